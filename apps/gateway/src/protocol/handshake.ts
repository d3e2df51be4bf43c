// The first request on a socket: `connect`, checked in OpenClaw's order — frame shape,
// protocol version, role, the failed-sign-in rate limit, the gateway token, the device proof
// — and answered with `hello-ok` or an error and the close code to drop the socket with.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { grantScopes } from '../access/operator-scopes.ts';
import { GatewayError } from '../gateway-error.ts';
import type { AuthRateLimiter } from './auth-rate-limit.ts';
import { verifyDeviceProof } from './device-auth.ts';
import {
  type ConnectParams,
  closeCodes,
  connectParamsSchema,
  describeIssue,
  maxBufferedBytes,
  maxFrameBytes,
  protocolVersion,
} from './frames.ts';
import type { ConnectionInfo } from './method-contract.ts';

export interface HelloDetails {
  readonly serverVersion: string;
  readonly methods: readonly string[];
  readonly events: readonly string[];
  /** The `snapshot` object of `hello-ok` (session defaults, health, uptime). */
  snapshot(connection: ConnectionInfo): Record<string, unknown>;
}

export type GatewayAuth = { readonly mode: 'token'; readonly token: string } | { readonly mode: 'none' };

export interface HandshakeSettings {
  readonly auth: GatewayAuth;
  readonly hello: HelloDetails;
  readonly rateLimiter: AuthRateLimiter;
  readonly now: () => number;
  readonly tickIntervalMs: number;
  readonly log: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
}

/** What the server knows of a socket before it signs in. */
export interface UnauthenticatedSocket {
  readonly remoteAddress: string;
  /** Whose failed sign-ins count together (an address, or `origin <origin>` for a browser page). */
  readonly rateLimitKey: string;
  /** The challenge nonce the device proof must sign. */
  readonly nonce: string;
}

export type HandshakeResult =
  | { readonly ok: true; readonly info: ConnectionInfo; readonly hello: Record<string, unknown> }
  | { readonly ok: false; readonly error: GatewayError; readonly closeCode: number };

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time token comparison, independent of the lengths involved. */
export function tokensMatch(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

export function createHandshake(
  settings: HandshakeSettings,
): (socket: UnauthenticatedSocket, method: string, rawParams: unknown) => HandshakeResult {
  const { rateLimiter, now } = settings;
  const expectedToken = settings.auth.mode === 'token' ? settings.auth.token : undefined;
  const refuse = (error: GatewayError, closeCode: number = closeCodes.policyViolation): HandshakeResult => ({
    ok: false,
    error,
    closeCode,
  });

  function checkToken(params: ConnectParams): GatewayError | undefined {
    if (expectedToken === undefined) return undefined;
    const presented = params.auth?.token ?? params.auth?.password;
    if (presented === undefined || presented.length === 0) {
      return new GatewayError('AUTH_TOKEN_MISSING', 'unauthorized: gateway token missing', {
        details: { recommendedNextStep: 'update_auth_configuration' },
      });
    }
    if (!tokensMatch(presented, expectedToken)) {
      return new GatewayError('AUTH_TOKEN_MISMATCH', 'unauthorized: gateway token mismatch', {
        details: { authReason: 'token_mismatch', recommendedNextStep: 'update_auth_credentials' },
      });
    }
    return undefined;
  }

  return (socket, method, rawParams) => {
    if (method !== 'connect')
      return refuse(
        new GatewayError('INVALID_HANDSHAKE', 'invalid handshake: first request must be connect'),
      );
    const parsed = connectParamsSchema.safeParse(rawParams);
    if (!parsed.success)
      return refuse(
        new GatewayError('INVALID_HANDSHAKE', `invalid connect params: ${describeIssue(parsed.error)}`),
      );
    const params = parsed.data;
    if (params.minProtocol > protocolVersion || params.maxProtocol < protocolVersion) {
      return refuse(
        new GatewayError(
          'PROTOCOL_MISMATCH',
          `protocol mismatch: gateway speaks ${protocolVersion}, client offered ${params.minProtocol}-${params.maxProtocol}`,
          { details: { serverProtocol: protocolVersion } },
        ),
        closeCodes.protocolMismatch,
      );
    }
    if ((params.role ?? 'operator') !== 'operator') {
      return refuse(
        new GatewayError(
          'INVALID_HANDSHAKE',
          `invalid connect params: role ${params.role} is not served by this gateway`,
        ),
      );
    }
    const retryAfterMs = rateLimiter.retryAfterMs(socket.rateLimitKey);
    if (retryAfterMs > 0) {
      return refuse(
        new GatewayError('AUTH_RATE_LIMITED', 'unauthorized: too many failed attempts, retry later', {
          retryable: true,
          retryAfterMs,
        }),
      );
    }
    const authError = checkToken(params);
    if (authError !== undefined) {
      rateLimiter.recordFailure(socket.rateLimitKey);
      settings.log('warn', 'refused a connection with bad credentials', {
        remoteAddress: socket.remoteAddress,
        reason: authError.code,
      });
      return refuse(authError);
    }
    let deviceId: string | undefined;
    if (params.device !== undefined) {
      try {
        deviceId = verifyDeviceProof(params, socket.nonce, now());
      } catch (error) {
        return refuse(error as GatewayError);
      }
    }
    rateLimiter.recordSuccess(socket.rateLimitKey);
    const info: ConnectionInfo = {
      connectionId: randomUUID(),
      remoteAddress: socket.remoteAddress,
      clientId: params.client.id,
      clientMode: params.client.mode,
      clientVersion: params.client.version,
      scopes: grantScopes(params.scopes),
      capabilities: new Set(params.caps ?? []),
      deviceId,
      connectedAt: now(),
    };
    const hello = {
      type: 'hello-ok',
      protocol: protocolVersion,
      server: { version: settings.hello.serverVersion, connId: info.connectionId },
      features: { methods: settings.hello.methods, events: settings.hello.events, capabilities: [] },
      snapshot: settings.hello.snapshot(info),
      auth: { role: 'operator', scopes: [...info.scopes], method: settings.auth.mode },
      policy: { maxPayload: maxFrameBytes, maxBufferedBytes, tickIntervalMs: settings.tickIntervalMs },
    };
    return { ok: true, info, hello };
  };
}
