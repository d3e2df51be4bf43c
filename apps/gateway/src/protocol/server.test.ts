import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { connectClient, ProtocolClient } from '../../test/protocol-client.ts';
import { GatewayError } from '../gateway-error.ts';
import { createAuthRateLimiter } from './auth-rate-limit.ts';
import { buildDeviceProofPayload } from './device-auth.ts';
import { maxPreAuthFrameBytes } from './frames.ts';
import { defineMethod, type GatewayMethod } from './method-contract.ts';
import { createProtocolServer, type ProtocolServer } from './server.ts';

const token = 'test-token-0123456789abcdefghij';

const echo = defineMethod({
  name: 'echo',
  scope: 'operator.read',
  params: z.object({ value: z.string() }),
  handle: (params) => ({ echoed: params.value }),
});

const twoPhase = defineMethod({
  name: 'two.phase',
  scope: 'operator.write',
  params: z.object({}),
  handle: async (_params, context) => {
    context.respondInterim({ status: 'accepted' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { status: 'ok' };
  },
});

const failing = defineMethod({
  name: 'fails',
  scope: 'operator.read',
  params: z.object({}),
  handle: () => {
    throw new GatewayError('NOT_FOUND', 'session agent:main:nope not found');
  },
});

const crashing = defineMethod({
  name: 'crashes',
  scope: 'operator.read',
  params: z.object({}),
  handle: () => {
    throw new Error('secret internals');
  },
});

const servers: ProtocolServer[] = [];

async function startServer(overrides: Partial<Parameters<typeof createProtocolServer>[0]> = {}) {
  const methods = new Map<string, GatewayMethod>(
    [echo, twoPhase, failing, crashing].map((method) => [method.name, method as GatewayMethod]),
  );
  const server = createProtocolServer({
    host: '127.0.0.1',
    port: 0,
    auth: { mode: 'token', token },
    methods,
    hello: {
      serverVersion: '0.0.0-test',
      methods: [...methods.keys()],
      events: ['tick', 'shutdown'],
      snapshot: () => ({
        sessionDefaults: { defaultAgentId: 'main', mainKey: 'main', mainSessionKey: 'agent:main:main' },
      }),
    },
    ...overrides,
  });
  servers.push(server);
  const address = await server.listen();
  return { server, url: `ws://127.0.0.1:${address.port}`, httpUrl: `http://127.0.0.1:${address.port}` };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close('test over')));
});

describe('protocol server', () => {
  it('broadcasts one payload to every allowed connection, each with its own frame seq', async () => {
    const { server, url } = await startServer();
    const reader = (await connectClient(url, { token, scopes: ['operator.read'] })).client;
    const other = (await connectClient(url, { token, scopes: ['operator.read'] })).client;
    const connected = await connectClient(url, { token, scopes: ['operator.pairing'] });
    expect(connected.hello.ok).toBe(true);
    const outsider = connected.client;
    const payload = { runId: 'r1', text: 'quote " and \u2028 and ünïcode', nested: { list: [1, null] } };
    // Every connection has had the hello and tick frames: the seq continues each one's own count.
    server.broadcast('warm', {}, { scope: 'none' });
    server.broadcast('agent', payload);
    for (const client of [reader, other]) {
      const frame = await client.waitForEvent((event) => event.event === 'agent');
      expect(frame.payload).toEqual(payload);
      const warm = client.events.find((event) => event.event === 'warm');
      expect(frame.seq).toBe((warm?.seq ?? 0) + 1);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(outsider.events.some((event) => event.event === 'agent')).toBe(false);
    for (const client of [reader, other, outsider]) client.close();
  });

  it('sends a challenge, then answers connect with hello-ok', async () => {
    const { url } = await startServer();
    const { client, hello } = await connectClient(url, { token, scopes: ['operator.read'] });
    expect(client.events[0]?.event).toBe('connect.challenge');
    expect(hello.ok).toBe(true);
    expect(hello.payload).toMatchObject({
      type: 'hello-ok',
      protocol: 4,
      server: { version: '0.0.0-test' },
      features: { methods: expect.arrayContaining(['echo']) },
      snapshot: { sessionDefaults: { mainSessionKey: 'agent:main:main' } },
      auth: { role: 'operator', scopes: ['operator.read'] },
      policy: { maxPayload: 25 * 1024 * 1024, maxBufferedBytes: 50 * 1024 * 1024, tickIntervalMs: 30_000 },
    });
    const response = await client.request('echo', { value: 'hi' });
    expect(response).toMatchObject({ ok: true, payload: { echoed: 'hi' } });
    client.close();
  });

  it('rejects a wrong token with AUTH_TOKEN_MISMATCH and closes with 1008', async () => {
    const { url } = await startServer();
    const { client, hello } = await connectClient(url, { token: 'wrong' });
    expect(hello.ok).toBe(false);
    expect(hello.error).toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'AUTH_TOKEN_MISMATCH' } });
    await client.waitClosed();
    expect(client.closeCode).toBe(1008);
  });

  it('rejects a missing token with AUTH_TOKEN_MISSING', async () => {
    const { url } = await startServer();
    const { client, hello } = await connectClient(url);
    expect(hello.error?.details?.code).toBe('AUTH_TOKEN_MISSING');
    await client.waitClosed();
    expect(client.closeCode).toBe(1008);
  });

  it('accepts any client when auth mode is none', async () => {
    const { url } = await startServer({ auth: { mode: 'none' } });
    const { client, hello } = await connectClient(url);
    expect(hello.ok).toBe(true);
    client.close();
  });

  it('requires connect as the first request', async () => {
    const { url } = await startServer();
    const client = new ProtocolClient(url);
    await client.opened();
    const response = await client.request('echo', { value: 'x' });
    expect(response.error?.message).toBe('invalid handshake: first request must be connect');
    await client.waitClosed();
    expect(client.closeCode).toBe(1008);
  });

  it('names the bad field of invalid connect params', async () => {
    const { url } = await startServer();
    const { client, hello } = await connectClient(url, { token, clientId: 'not-a-client' });
    expect(hello.error?.message).toMatch(/^invalid connect params: .* at \/client\/id$/);
    await client.waitClosed();
    expect(client.closeCode).toBe(1008);
  });

  it('closes with 1002 on a protocol mismatch', async () => {
    const { url } = await startServer();
    const { client, hello } = await connectClient(url, { token, minProtocol: 5, maxProtocol: 6 });
    expect(hello.error?.details?.code).toBe('PROTOCOL_MISMATCH');
    await client.waitClosed();
    expect(client.closeCode).toBe(1002);
  });

  it('closes with 1009 on a pre-auth frame over 64 KiB, but accepts 1 MiB after auth', async () => {
    const { url } = await startServer();
    const early = new ProtocolClient(url);
    await early.opened();
    early.sendRaw('x'.repeat(maxPreAuthFrameBytes + 6 * 1024));
    await early.waitClosed();
    expect(early.closeCode).toBe(1009);

    const { client } = await connectClient(url, { token });
    const big = 'y'.repeat(1024 * 1024);
    const response = await client.request('echo', { value: big });
    expect(response.ok).toBe(true);
    expect(String(response.payload?.echoed).length).toBe(big.length);
    client.close();
  });

  it('stops reading an unauthenticated client after 128 KiB and closes with 1009, before its frame ends', async () => {
    const { url } = await startServer();
    const { hostname, port } = new URL(url);
    // A raw client: the frame header announces 8 MiB (under the 25 MiB authenticated cap) but
    // only 256 KiB follow, so the frame never completes: only the pre-auth read budget can close it.
    const socket = connect({ host: hostname, port: Number(port) });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined); // the server resets the connection once it gave up
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `GET / HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    await vi.waitFor(() => expect(Buffer.concat(received).toString('latin1')).toContain('\r\n\r\n'));
    const header = Buffer.alloc(14);
    header[0] = 0x81; // FIN, text
    header[1] = 0x80 | 127; // masked, 64-bit length
    header.writeBigUInt64BE(8n * 1024n * 1024n, 2);
    // Mask key 0: the payload goes as it is.
    socket.write(Buffer.concat([header, Buffer.alloc(256 * 1024, 0x7a)]));
    const closeCode = await vi.waitFor(
      () => {
        const bytes = Buffer.concat(received);
        // Walk the server's (unmasked) frames after the handshake: the challenge, then the close.
        let at = bytes.indexOf('\r\n\r\n') + 4;
        while (at + 2 <= bytes.length && bytes[at] !== 0x88) {
          const short = bytes[at + 1]! & 0x7f;
          const [length, headerBytes] =
            short === 126
              ? [bytes.readUInt16BE(at + 2), 4]
              : short === 127
                ? [Number(bytes.readBigUInt64BE(at + 2)), 10]
                : [short, 2];
          at += headerBytes + length;
        }
        expect(bytes[at]).toBe(0x88); // a close frame
        return bytes.readUInt16BE(at + 2);
      },
      { timeout: 5_000 },
    );
    socket.destroy();
    expect(closeCode).toBe(1009);
  });

  it('reports unknown methods, bad params and malformed frames without dropping the socket', async () => {
    const { url } = await startServer();
    const { client } = await connectClient(url, { token });
    const unknown = await client.request('nope.method', {});
    expect(unknown.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'unknown method: nope.method' });
    expect(unknown.error?.details?.code).toBe('UNKNOWN_METHOD');

    const badParams = await client.request('echo', { value: 42 });
    expect(badParams.error?.details?.code).toBe('INVALID_PARAMS');
    expect(badParams.error?.message).toMatch(/^invalid echo params: .* at \/value$/);

    client.sendRaw('{not json');
    const errorEvent = await client.waitForEvent((event) => event.event === 'error');
    expect(errorEvent.payload?.details).toMatchObject({ code: 'INVALID_FRAME' });

    const notFound = await client.request('fails', {});
    expect(notFound.error).toMatchObject({
      message: 'session agent:main:nope not found',
      details: { code: 'NOT_FOUND' },
    });

    const crashed = await client.request('crashes', {});
    expect(crashed.error).toMatchObject({ code: 'UNAVAILABLE', message: 'internal error' });
    expect(JSON.stringify(crashed)).not.toContain('secret internals');

    const still = await client.request('echo', { value: 'alive' });
    expect(still.ok).toBe(true);
    client.close();
  });

  it('enforces scopes per method', async () => {
    const { url } = await startServer();
    const { client } = await connectClient(url, { token, scopes: ['operator.read'] });
    const denied = await client.request('two.phase', {});
    expect(denied.error).toMatchObject({
      code: 'FORBIDDEN',
      details: { code: 'MISSING_SCOPE', missingScope: 'operator.write' },
    });
    client.close();
    const admin = await connectClient(url, { token, scopes: ['operator.admin'] });
    expect(admin.hello.payload?.auth).toMatchObject({
      scopes: expect.arrayContaining(['operator.read', 'operator.write']),
    });
    admin.client.close();
  });

  it('sends an interim and a final response on the same id', async () => {
    const { url } = await startServer();
    const { client } = await connectClient(url, { token });
    const { accepted, final } = await client.requestFinal('two.phase', {});
    expect(accepted.payload).toEqual({ status: 'accepted' });
    expect(final.payload).toEqual({ status: 'ok' });
    expect(final.id).toBe(accepted.id);
    client.close();
  });

  it('verifies an Ed25519 device proof and rejects a forged one', async () => {
    const { url } = await startServer();
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    const deviceId = createHash('sha256').update(raw).digest('hex');
    const proof = (forge: boolean) => (challenge: { nonce: string; ts: number }) => {
      const payload = buildDeviceProofPayload('v3', {
        deviceId,
        clientId: 'test',
        clientMode: 'test',
        role: 'operator',
        scopes: ['operator.read'],
        signedAtMs: challenge.ts,
        token,
        nonce: challenge.nonce,
        platform: process.platform,
      });
      const signature = sign(null, Buffer.from(forge ? `${payload}x` : payload), privateKey);
      return {
        device: {
          id: deviceId,
          publicKey: raw.toString('base64url'),
          signature: signature.toString('base64url'),
          signedAt: challenge.ts,
          nonce: challenge.nonce,
        },
      };
    };
    const good = await connectClient(url, { token, scopes: ['operator.read'], extra: proof(false) });
    expect(good.hello.ok).toBe(true);
    good.client.close();
    const forged = await connectClient(url, { token, scopes: ['operator.read'], extra: proof(true) });
    expect(forged.hello.error?.details?.code).toBe('DEVICE_AUTH_SIGNATURE_INVALID');
  });

  it('refuses browser origins other than its own', async () => {
    const { url, httpUrl } = await startServer();
    const foreign = new ProtocolClient(url, 'https://evil.example');
    await expect(foreign.opened()).rejects.toThrow(/403/);
    const own = await connectClient(url, { token, origin: httpUrl });
    expect(own.hello.ok).toBe(true);
    own.client.close();
  });

  it('rate-limits wrong tokens from a browser page even on loopback, but not local programs', async () => {
    const limiter = createAuthRateLimiter({ maxFailures: 3 });
    const { url, httpUrl } = await startServer({ rateLimiter: limiter });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const wrong = await connectClient(url, { token: 'wrong-token', origin: httpUrl });
      expect(wrong.hello.error?.details?.code).not.toBe('AUTH_RATE_LIMITED');
    }
    // The page is locked out, even with the right token now.
    const locked = await connectClient(url, { token, origin: httpUrl });
    expect(locked.hello.error?.details?.code).toBe('AUTH_RATE_LIMITED');
    expect(locked.hello.error?.retryAfterMs).toBeGreaterThan(0);
    // A local program without an Origin keeps loopback's exemption.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await connectClient(url, { token: 'wrong-token' });
    }
    const local = await connectClient(url, { token });
    expect(local.hello.ok).toBe(true);
    local.client.close();
  });

  it('closes sockets that never finish the handshake', async () => {
    const { url } = await startServer({ handshakeTimeoutMs: 50 });
    const idle = new ProtocolClient(url);
    await idle.opened();
    await idle.waitClosed();
    expect(idle.closeCode).toBe(1008);
    expect(idle.closeReason).toBe('handshake timeout');
  });

  it('ticks, and on close sends shutdown then 1012', async () => {
    const { server, url } = await startServer({ tickIntervalMs: 20 });
    const { client } = await connectClient(url, { token });
    const tick = await client.waitForEvent((event) => event.event === 'tick');
    expect(typeof tick.payload?.ts).toBe('number');
    expect(tick.seq).toBeGreaterThan(0);
    await server.close('maintenance', 5000);
    await client.waitClosed();
    const shutdown = client.events.find((event) => event.event === 'shutdown');
    expect(shutdown?.payload).toEqual({ reason: 'maintenance', restartExpectedMs: 5000 });
    expect(client.closeCode).toBe(1012);
  });

  it('serves /healthz and /readyz', async () => {
    let ready = false;
    const { httpUrl } = await startServer({ isReady: () => ready });
    expect((await fetch(`${httpUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${httpUrl}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${httpUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${httpUrl}/nothing-here`)).status).toBe(404);
  });
});

describe('auth rate limiter', () => {
  it('locks an address out after repeated failures and lets it back in later', () => {
    let time = 0;
    const limiter = createAuthRateLimiter({
      maxFailures: 3,
      windowMs: 60_000,
      lockoutMs: 300_000,
      now: () => time,
    });
    for (let attempt = 0; attempt < 3; attempt += 1) limiter.recordFailure('203.0.113.7');
    expect(limiter.retryAfterMs('203.0.113.7')).toBe(300_000);
    expect(limiter.retryAfterMs('::ffff:203.0.113.7')).toBe(300_000);
    expect(limiter.retryAfterMs('203.0.113.8')).toBe(0);
    time = 300_001;
    expect(limiter.retryAfterMs('203.0.113.7')).toBe(0);
  });

  it('exempts loopback by default', () => {
    const limiter = createAuthRateLimiter({ maxFailures: 1 });
    limiter.recordFailure('127.0.0.1');
    expect(limiter.retryAfterMs('127.0.0.1')).toBe(0);
  });

  it('forgets failures outside the window', () => {
    let time = 0;
    const limiter = createAuthRateLimiter({ maxFailures: 2, windowMs: 1000, now: () => time });
    limiter.recordFailure('198.51.100.1');
    time = 5000;
    limiter.recordFailure('198.51.100.1');
    expect(limiter.retryAfterMs('198.51.100.1')).toBe(0);
  });
});
