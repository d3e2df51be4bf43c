// OpenClaw's own reference client (@openclaw/gateway-client) against Switchboard, unchanged.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { GatewayClient } from '@openclaw/gateway-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';

const running: Array<{ harness: TestGateway; client?: GatewayClient }> = [];
afterEach(async () => {
  for (const entry of running.splice(0)) {
    entry.client?.stop();
    await entry.harness.close();
  }
});

function connect(
  harness: TestGateway,
  options: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {},
) {
  const events: Array<{ event: string; payload?: unknown }> = [];
  return new Promise<{ client: GatewayClient; hello: Record<string, unknown>; events: typeof events }>(
    (resolve, reject) => {
      const client = new GatewayClient({
        url: harness.gateway.url,
        token: harness.gateway.token,
        deviceIdentity: null,
        onEvent: (event) => events.push(event as { event: string; payload?: unknown }),
        onHelloOk: (hello) => resolve({ client, hello: hello as unknown as Record<string, unknown>, events }),
        onConnectError: reject,
        ...options,
      });
      client.start();
      running.at(-1)!.client = client;
    },
  );
}

function deviceIdentity() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  return {
    deviceId: createHash('sha256').update(raw).digest('hex'),
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

describe('OpenClaw gateway client compatibility', () => {
  it('connects, runs agent with expectFinal, and reads health and sessions', async () => {
    const harness = await startTestGateway({ model: { turns: [{ text: 'Hello, OpenClaw client.' }] } });
    running.push({ harness });
    const { client, hello, events } = await connect(harness);
    expect(hello).toMatchObject({ type: 'hello-ok', protocol: 4 });

    const final = await client.request<{
      runId: string;
      status: string;
      result: { payloads: Array<{ text: string }> };
    }>('agent', { message: 'hi', idempotencyKey: 'openclaw-run-1', agentId: 'main' }, { expectFinal: true });
    expect(final).toMatchObject({
      runId: 'openclaw-run-1',
      status: 'ok',
      result: { payloads: [{ text: 'Hello, OpenClaw client.' }] },
    });
    expect(events.some((event) => event.event === 'agent')).toBe(true);

    const health = await client.request<{ ok: boolean }>('health', {});
    expect(health.ok).toBe(true);
    const sessions = await client.request<{ sessions: Array<{ key: string }> }>('sessions.list', {});
    expect(sessions.sessions.map((session) => session.key)).toContain('agent:main:main');
  });

  it('signs a device proof the gateway verifies', async () => {
    const harness = await startTestGateway();
    running.push({ harness });
    const identity = deviceIdentity();
    const { client, hello } = await connect(harness, {
      deviceIdentity: identity,
      hostDeps: {
        signDevicePayload: (privateKeyPem: string, payload: string) =>
          sign(null, Buffer.from(payload, 'utf8'), createPrivateKey(privateKeyPem)).toString('base64url'),
        publicKeyRawBase64UrlFromPem: (publicKeyPem: string) =>
          createPublicKey(publicKeyPem)
            .export({ format: 'der', type: 'spki' })
            .subarray(12)
            .toString('base64url'),
      } as never,
    });
    expect(hello).toMatchObject({ type: 'hello-ok' });
    expect(await client.request<{ ok: boolean }>('health', {})).toMatchObject({ ok: true });
  });

  it('reports a wrong token the way the client understands', async () => {
    const harness = await startTestGateway();
    running.push({ harness });
    const error = await connect(harness, { token: 'not-the-token' }).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(String(error?.message)).toMatch(/token mismatch/);
  });
});
