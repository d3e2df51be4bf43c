import { createHash, createPublicKey, verify } from 'node:crypto';
import { GatewayError } from '../gateway-error.ts';
import type { ConnectParams } from './frames.ts';

/** How far a device's signing clock may be from ours. */
const maxDeviceClockSkewMs: number = 10 * 60 * 1000;

const ed25519SpkiPrefix = Buffer.from('302a300506032b6570032100', 'hex');

function fromBase64Url(value: string): Buffer {
  return Buffer.from(value.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
}

function lowerAscii(value: string | undefined): string {
  return (value ?? '').trim().replace(/[A-Z]/g, (character) => character.toLowerCase());
}

/** The fields of a device proof as signed by the client (v2 or v3 payload). */
export function buildDeviceProofPayload(
  version: 'v2' | 'v3',
  fields: {
    readonly deviceId: string;
    readonly clientId: string;
    readonly clientMode: string;
    readonly role: string;
    readonly scopes: readonly string[];
    readonly signedAtMs: number;
    readonly token: string;
    readonly nonce: string;
    readonly platform?: string;
    readonly deviceFamily?: string;
  },
): string {
  const parts = [
    version,
    fields.deviceId,
    fields.clientId,
    fields.clientMode,
    fields.role,
    fields.scopes.join(','),
    String(fields.signedAtMs),
    fields.token,
    fields.nonce,
  ];
  if (version === 'v3') parts.push(lowerAscii(fields.platform), lowerAscii(fields.deviceFamily));
  return parts.join('|');
}

/**
 * Verifies an Ed25519 device proof (OpenClaw protocol §3.3). Accepts the v3 payload and the
 * older v2 one. Throws a `GatewayError` naming what failed; returns the device id.
 */
export function verifyDeviceProof(params: ConnectParams, challengeNonce: string, now: number): string {
  const device = params.device;
  if (device === undefined) throw new GatewayError('INTERNAL', 'no device proof to verify');
  const rawKey = fromBase64Url(device.publicKey);
  if (rawKey.length !== 32) {
    throw new GatewayError(
      'DEVICE_AUTH_PUBLIC_KEY_INVALID',
      'device public key must be 32 raw Ed25519 bytes',
    );
  }
  const expectedId = createHash('sha256').update(rawKey).digest('hex');
  if (device.id.toLowerCase() !== expectedId) {
    throw new GatewayError(
      'DEVICE_AUTH_DEVICE_ID_MISMATCH',
      'device id is not the SHA-256 of its public key',
    );
  }
  if (device.nonce !== undefined && device.nonce !== challengeNonce) {
    throw new GatewayError('DEVICE_AUTH_NONCE_MISMATCH', 'device proof signed a different challenge nonce');
  }
  if (Math.abs(now - device.signedAt) > maxDeviceClockSkewMs) {
    throw new GatewayError(
      'DEVICE_AUTH_SIGNATURE_EXPIRED',
      'device proof is too old or from the future (clock skew)',
    );
  }
  const key = createPublicKey({
    key: Buffer.concat([ed25519SpkiPrefix, rawKey]),
    format: 'der',
    type: 'spki',
  });
  const signature = fromBase64Url(device.signature);
  const fields = {
    deviceId: device.id,
    clientId: params.client.id,
    clientMode: params.client.mode,
    role: params.role ?? 'operator',
    scopes: params.scopes ?? [],
    signedAtMs: device.signedAt,
    token: params.auth?.token ?? params.auth?.deviceToken ?? params.auth?.password ?? '',
    nonce: device.nonce ?? challengeNonce,
    platform: params.client.platform,
    deviceFamily: params.client.deviceFamily,
  };
  for (const version of ['v3', 'v2'] as const) {
    const payload = Buffer.from(buildDeviceProofPayload(version, fields), 'utf8');
    if (verify(null, payload, key, signature)) return expectedId;
  }
  throw new GatewayError('DEVICE_AUTH_SIGNATURE_INVALID', 'device proof signature does not verify');
}
