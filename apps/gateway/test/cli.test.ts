// The operator CLI, run in-process (`runCli(argv, io)` with captured output) against real
// gateways with testkit's fake Anthropic: every command, its --json form, and its exit code.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteSessionStore } from '@switchboard/sessions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { z } from 'zod';
import { type CliIo, exitCodes, runCli } from '../src/cli/main.ts';
import { startTestGateway, type TestGateway, writeConfig } from './harness.ts';
import { createTestChannel, type TestChannel } from './test-channel.ts';

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(
  argv: readonly string[],
  environment: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<CliResult> {
  const out: string[] = [];
  const error: string[] = [];
  const io: CliIo = {
    out: (text) => out.push(text),
    error: (text) => error.push(text),
    environment,
    signal,
  };
  const code = await runCli(argv, io);
  return { code, stdout: out.join(''), stderr: error.join('') };
}

/** The CLI's view of a harness: its state directory (token in the config) and its address. */
const environmentOf = (harness: TestGateway): NodeJS.ProcessEnv => ({
  SWITCHBOARD_STATE_DIR: harness.stateDirectory,
  SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const extra: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map((harness) => harness.close()));
});

let harness: TestGateway;
let channel: TestChannel;
let environment: NodeJS.ProcessEnv;
beforeAll(async () => {
  channel = createTestChannel();
  harness = await startTestGateway({ plugins: [channel.plugin], config: { channels: { testchat: {} } } });
  environment = environmentOf(harness);
});
afterAll(async () => {
  await harness.close();
});

describe('switchboard CLI: basics', () => {
  it('prints its version and help, and refuses unknown commands and flags with exit 2', async () => {
    expect(await cli(['--version'], {})).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^switchboard \d/),
    });
    const help = await cli(['--help'], {});
    expect(help.code).toBe(exitCodes.ok);
    expect(help.stdout).toContain('sessions export KEY [--out FILE]');
    expect(help.stdout).toContain(
      'Exit codes: 0 ok, 1 failed, 2 usage, 3 no gateway running, 4 token refused',
    );
    expect((await cli([], {})).code).toBe(exitCodes.usage);
    const unknown = await cli(['frobnicate'], {});
    expect(unknown.code).toBe(exitCodes.usage);
    expect(unknown.stderr).toContain('unknown command: frobnicate');
    const flag = await cli(['status', '--bogus'], {});
    expect(flag.code).toBe(exitCodes.usage);
    expect(flag.stderr).toContain("Unknown option '--bogus'");
    expect((await cli(['sessions', 'show'], environment)).code).toBe(exitCodes.usage);
    expect((await cli(['sessions', 'rename', 'x'], environment)).code).toBe(exitCodes.usage);
  });

  it('says plainly that no gateway is running (exit 3), without hanging', async () => {
    const port = await closedPort();
    const started = Date.now();
    const result = await cli(['status'], {
      ...environment,
      SWITCHBOARD_GATEWAY_URL: `ws://127.0.0.1:${port}`,
    });
    expect(result.code).toBe(exitCodes.unreachable);
    expect(result.stderr).toContain(`no gateway is running at ws://127.0.0.1:${port}`);
    expect(result.stderr).toContain('Start one with: switchboard gateway run');
    expect(Date.now() - started).toBeLessThan(5000);
    // Without a URL, the port comes from the config in the state directory.
    const state = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
    writeFileSync(join(state, 'switchboard.json'), JSON.stringify({ gateway: { port } }));
    const fromConfig = await cli(['sessions', 'list'], { SWITCHBOARD_STATE_DIR: state });
    expect(fromConfig.code).toBe(exitCodes.unreachable);
    expect(fromConfig.stderr).toContain(`ws://127.0.0.1:${port}`);
  });

  it('tells a web server that is not a gateway apart (exit 3)', async () => {
    const server = createServer((_request, response) => response.writeHead(404).end('not here'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const result = await cli(['status'], { SWITCHBOARD_GATEWAY_URL: `ws://127.0.0.1:${port}` });
      expect(result.code).toBe(exitCodes.unreachable);
      expect(result.stderr).toContain('is not a Switchboard gateway or refused the WebSocket (HTTP 404)');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('says the token was refused (exit 4), for a wrong token and for none at all', async () => {
    const wrong = await cli(['status', '--token', 'wrong-token-0123456789abcdef'], environment);
    expect(wrong.code).toBe(exitCodes.unauthorized);
    expect(wrong.stderr).toContain('the gateway refused the token (AUTH_TOKEN_MISMATCH)');
    expect(wrong.stderr).toContain('gateway-token file, SWITCHBOARD_GATEWAY_TOKEN, or --token');
    const emptyState = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
    const none = await cli(['sessions', 'list'], {
      SWITCHBOARD_STATE_DIR: emptyState,
      SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
    });
    expect(none.code).toBe(exitCodes.unauthorized);
    expect(none.stderr).toContain('the gateway wants a token and none was found (AUTH_TOKEN_MISSING)');
    // A ${VAR} token in the config is read like the gateway reads it.
    const viaVariable = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
    writeFileSync(
      join(viaVariable, 'switchboard.json'),
      '{ gateway: { auth: { token: "${CLI_TEST_TOKEN}" } } }',
    );
    expect(
      (
        await cli(['status'], {
          SWITCHBOARD_STATE_DIR: viaVariable,
          SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
          CLI_TEST_TOKEN: harness.gateway.token,
        })
      ).code,
    ).toBe(exitCodes.ok);
    // The token file in the state directory is what a local CLI uses by default.
    writeFileSync(join(emptyState, 'gateway-token'), `${harness.gateway.token}\n`, { mode: 0o600 });
    expect(
      (
        await cli(['status'], {
          SWITCHBOARD_STATE_DIR: emptyState,
          SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
        })
      ).code,
    ).toBe(exitCodes.ok);
  });
});

describe('switchboard CLI: agent and status', () => {
  it('agent -m streams the reply to stdout; --json prints the final result', async () => {
    harness.model.enqueue({ text: ['Hello ', 'from ', 'the fake model.'] });
    const streamed = await cli(['agent', '-m', 'hi there', '--session-key', 'cli-agent'], environment);
    expect(streamed).toMatchObject({ code: 0, stdout: 'Hello from the fake model.\n' });
    expect(harness.model.lastRequest?.lastUserText).toBe('hi there');

    harness.model.enqueue({ text: 'as JSON' });
    const json = await cli(['agent', '-m', 'again', '--session-key', 'cli-agent', '--json'], environment);
    expect(json.code).toBe(exitCodes.ok);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'ok',
      result: { payloads: [{ text: 'as JSON' }] },
    });
    expect((await cli(['agent'], environment)).code).toBe(exitCodes.usage);
  });

  it('agent reports a failed run with exit 1 and the reason', async () => {
    const plain = await startTestGateway();
    extra.push(plain);
    plain.model.enqueue({ fault: { type: 'authentication' } });
    const failed = await cli(['agent', '-m', 'hello'], environmentOf(plain));
    expect(failed.code).toBe(exitCodes.failed);
    expect(failed.stderr).toContain('key rejected');
  });

  it('status shows channels, turns, plugins and credentials; --json has the same data', async () => {
    const result = await cli(['status'], environment);
    expect(result.code).toBe(exitCodes.ok);
    expect(result.stdout).toMatch(/^Switchboard \S+ on Node v24\.\d+\.\d+, up \d+[smh], \d+ MB$/m);
    expect(result.stdout).toContain('Turns: 0 running, 0 waiting for a slot, 0 messages queued');
    expect(result.stdout).toContain('  testchat/default: connected (in memory)');
    expect(result.stdout).toContain('Plugins: testchat-channel');
    expect(result.stdout).toContain('Credentials: no profiles configured');
    const json = JSON.parse((await cli(['status', '--json'], environment)).stdout);
    expect(json).toMatchObject({
      runs: { running: 0, waiting: 0, queuedMessages: 0 },
      channels: [{ channel: 'testchat', accountId: 'default', status: { state: 'connected' } }],
      plugins: { loaded: ['testchat-channel'], failed: [] },
    });
  });

  it('status shows a running turn and the messages queued behind it', async () => {
    const client = await harness.connect();
    harness.model.enqueue({ text: 'slow answer', latency: { firstByteMs: 1500 } });
    await client.request('chat.send', { sessionKey: 'queue-test', message: 'first', idempotencyKey: 'q-1' });
    await client.waitForEvent(
      (event) =>
        event.event === 'agent' && event.payload?.runId === 'q-1' && event.payload.stream === 'lifecycle',
    );
    await client.request('chat.send', { sessionKey: 'queue-test', message: 'second', idempotencyKey: 'q-2' });
    await client.request('chat.send', { sessionKey: 'queue-test', message: 'third', idempotencyKey: 'q-3' });
    const json = JSON.parse((await cli(['status', '--json'], environment)).stdout);
    expect(json.runs.running).toBe(1);
    expect(json.runs.queuedMessages).toBe(2);
    const human = await cli(['status'], environment);
    expect(human.stdout).toContain('Turns: 1 running, 0 waiting for a slot, 2 messages queued');
    await client.request('chat.abort', { sessionKey: 'queue-test' });
    await harness.gateway.dispatcher.whenIdle();
  });

  it('status shows credential cooldowns with the time left, and plugins that failed to load', async () => {
    const cooling = await startTestGateway({
      config: {
        auth: {
          profiles: { 'anthropic:main': { provider: 'anthropic', mode: 'api_key', apiKey: 'test-key' } },
        },
        // The 42 s rate limit fails the turn at once instead of being waited out in the run.
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', rateLimitMaxWaitSeconds: 0 } },
        plugins: {
          entries: { 'missing-plugin': { package: '@acme/switchboard-does-not-exist', optional: true } },
        },
      },
    });
    extra.push(cooling);
    cooling.model.enqueue({ fault: { type: 'rate_limit', retryAfterSeconds: 42 } });
    expect((await cli(['agent', '-m', 'hello'], environmentOf(cooling))).code).toBe(exitCodes.failed);
    const result = await cli(['status'], environmentOf(cooling));
    expect(result.stdout).toContain('  anthropic:main: cooling');
    expect(result.stdout).toMatch(/ {4}claude-sonnet-4-6: cooling down \(rate_limit\), 4[12]s left/);
    expect(result.stdout).toMatch(/ {2}failed: missing-plugin: optional, the gateway runs without it: .+/);
    const json = JSON.parse((await cli(['status', '--json'], environmentOf(cooling))).stdout);
    expect(json.authProfiles.profiles[0]).toMatchObject({
      id: 'anthropic:main',
      state: 'cooling',
      models: [{ model: 'claude-sonnet-4-6', reason: 'rate_limit' }],
    });
    expect(json.plugins.failed[0]).toMatchObject({ plugin: 'missing-plugin' });
  });
});

describe('switchboard CLI: sessions', () => {
  it('lists, shows, resets and deletes sessions; unknown ones exit 6', async () => {
    harness.model.enqueue({ text: 'first reply' }, { text: 'second reply' });
    await cli(['agent', '-m', 'one', '--session-key', 'cli-sessions'], environment);
    await cli(['agent', '-m', 'two', '--session-key', 'cli-sessions'], environment);
    const key = 'agent:main:cli-sessions';

    const list = await cli(['sessions', 'list'], environment);
    expect(list.code).toBe(exitCodes.ok);
    expect(list.stdout.split('\n')[0]).toMatch(/^KEY\s+UPDATED\s+CHANNEL\s+MODEL\s+TOKENS IN\/OUT$/);
    expect(list.stdout).toMatch(
      new RegExp(`^${key}\\s+\\d+s ago\\s+webchat\\s+claude-sonnet-4-6\\s+\\d+/\\d+`, 'm'),
    );
    const listed = JSON.parse((await cli(['sessions', 'list', '--json'], environment)).stdout);
    expect(listed.sessions.map((row: { key: string }) => row.key)).toContain(key);

    const show = await cli(['sessions', 'show', 'cli-sessions'], environment);
    expect(show).toMatchObject({
      code: 0,
      stdout: 'user: one\nassistant: first reply\nuser: two\nassistant: second reply\n',
    });
    const shown = JSON.parse((await cli(['sessions', 'show', key, '--json'], environment)).stdout);
    expect(shown.messages).toHaveLength(4);
    const missing = await cli(['sessions', 'show', 'no-such-session'], environment);
    expect(missing.code).toBe(exitCodes.notFound);
    expect(missing.stderr).toContain('no session agent:main:no-such-session');

    const reset = await cli(['sessions', 'reset', key], environment);
    expect(reset).toMatchObject({ code: 0, stdout: `Reset ${key} (the old transcript is archived).\n` });
    expect((await cli(['sessions', 'show', key], environment)).stdout).toBe('No messages.\n');
    expect((await cli(['sessions', 'reset', 'no-such-session'], environment)).code).toBe(exitCodes.notFound);

    const deleted = await cli(['sessions', 'delete', key, '--json'], environment);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ ok: true, key, deleted: true });
    const again = await cli(['sessions', 'delete', key], environment);
    expect(again.code).toBe(exitCodes.notFound);
    expect(again.stderr).toContain(`no session ${key} to delete`);
  });

  it('exports a large session as JSONL to a private file', async () => {
    // 6,000 entries written straight into the store before the gateway starts.
    const state = mkdtempSync(join(tmpdir(), 'switchboard-cli-export-'));
    const store = await createSqliteSessionStore({ stateDirectory: state });
    await store.ensureSession('agent:main:big', { agentId: 'main' });
    for (let batch = 0; batch < 6; batch += 1) {
      await store.appendEntries(
        'agent:main:big',
        Array.from({ length: 1000 }, (_, index) => ({
          type: 'message' as const,
          message: {
            role: 'user' as const,
            content: `message ${batch * 1000 + index + 1}`,
            timestamp: 1_700_000_000_000 + batch * 1000 + index,
          },
        })),
      );
    }
    await store.close();
    const big = await startTestGateway({ stateDirectory: state });
    extra.push(big);
    const file = join(state, 'big.jsonl');
    const result = await cli(['sessions', 'export', 'big', '--out', file], environmentOf(big));
    expect(result.code).toBe(exitCodes.ok);
    expect(result.stdout).toBe(`Exported 6000 entries of agent:main:big to ${file}.\n`);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(6000);
    const first = JSON.parse(lines[0] ?? '{}');
    expect(first).toMatchObject({ type: 'message', sequence: 1, message: { content: 'message 1' } });
    expect(JSON.parse(lines[5999] ?? '{}').message.content).toBe('message 6000');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const toStdout = await cli(['sessions', 'export', 'agent:main:big'], environmentOf(big));
    expect(toStdout.stdout.trimEnd().split('\n')).toHaveLength(6000);
    // The real gateway pages the export: progress per page on stderr, then the summary.
    expect(toStdout.stderr).toBe(
      'exported 2000/6000 entries (33%)\nexported 4000/6000 entries (66%)\nexported 6000 entries of agent:main:big\n',
    );
    expect((await cli(['sessions', 'export', 'nothing-here'], environmentOf(big))).code).toBe(
      exitCodes.notFound,
    );
  });

  it('compacts a session on request and says when there is nothing to compact', async () => {
    harness.model.enqueue({ text: 'short' });
    await cli(['agent', '-m', 'tiny', '--session-key', 'cli-compact'], environment);
    const result = await cli(['sessions', 'compact', 'cli-compact'], environment);
    expect(result.code).toBe(exitCodes.ok);
    expect(result.stderr).toContain('compacting cli-compact');
    expect(result.stdout).toMatch(/^Nothing to compact in agent:main:cli-compact/);
    const json = JSON.parse(
      (await cli(['sessions', 'compact', 'cli-compact', '--json'], environment)).stdout,
    );
    expect(json).toMatchObject({ ok: true, key: 'agent:main:cli-compact', compacted: false });
    expect((await cli(['sessions', 'compact', 'never-used'], environment)).code).toBe(exitCodes.notFound);
  });
});

describe('switchboard CLI: export progress against a paging gateway', () => {
  it('pages through sessions.export and reports progress on stderr', async () => {
    // A minimal gateway that pages its export (what `sessions.export` does given `limit`).
    const total = 4500;
    const requests: Array<Record<string, unknown>> = [];
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    server.on('connection', (socket) => {
      socket.send(
        JSON.stringify({ type: 'event', event: 'connect.challenge', payload: { nonce: 'n', ts: 1 } }),
      );
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as {
          id: string;
          method: string;
          params: Record<string, unknown>;
        };
        if (frame.method === 'connect') {
          socket.send(JSON.stringify({ type: 'res', id: frame.id, ok: true, payload: { type: 'hello-ok' } }));
          return;
        }
        requests.push(frame.params);
        const from = Number(frame.params.fromSequence ?? 1);
        const limit = Number(frame.params.limit);
        const last = Math.min(total, from + limit - 1);
        const entries = Array.from({ length: last - from + 1 }, (_, index) => ({ sequence: from + index }));
        socket.send(
          JSON.stringify({
            type: 'res',
            id: frame.id,
            ok: true,
            payload: {
              key: 'agent:main:paged',
              sessionId: 's-1',
              entries,
              totalEntries: total,
              nextSequence: last < total ? last + 1 : null,
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const { port } = server.address() as AddressInfo;
    try {
      const file = join(mkdtempSync(join(tmpdir(), 'switchboard-cli-paged-')), 'paged.jsonl');
      const result = await cli(['sessions', 'export', 'paged', '--out', file, '--token', 't'], {
        SWITCHBOARD_GATEWAY_URL: `ws://127.0.0.1:${port}`,
      });
      expect(result.code).toBe(exitCodes.ok);
      expect(result.stderr).toBe('exported 2000/4500 entries (44%)\nexported 4000/4500 entries (88%)\n');
      expect(requests).toEqual([
        { key: 'paged', limit: 2000 },
        { key: 'paged', limit: 2000, fromSequence: 2001, sessionId: 's-1' },
        { key: 'paged', limit: 2000, fromSequence: 4001, sessionId: 's-1' },
      ]);
      const sequences = readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { sequence: number }).sequence);
      expect(sequences).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    } finally {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('switchboard CLI: pairing', () => {
  it('lists pending pairing requests, approves one and refuses an unknown code (exit 6)', async () => {
    expect((await cli(['pairing', 'list'], environment)).stdout).toBe('No pending pairing requests.\n');
    await channel.receive({ text: 'let me in', sender: { id: 'stranger-7', name: 'Grace' } });
    const list = await cli(['pairing', 'list'], environment);
    const code = /\t([A-Z2-9]{8})\t/.exec(list.stdout)?.[1];
    expect(code).toBeDefined();
    expect(list.stdout).toMatch(/^testchat\tdefault\t[A-Z2-9]{8}\tGrace \(stranger-7\)\texpires /);
    const json = JSON.parse(
      (await cli(['pairing', 'list', '--json', '--channel', 'testchat'], environment)).stdout,
    );
    expect(json.requests).toHaveLength(1);

    const unknown = await cli(['pairing', 'approve', 'testchat', 'ZZZZZZZZ'], environment);
    expect(unknown.code).toBe(exitCodes.notFound);
    expect(unknown.stderr).toContain('no pending pairing code ZZZZZZZZ on testchat');
    const approved = await cli(['pairing', 'approve', 'testchat', String(code).toLowerCase()], environment);
    expect(approved).toMatchObject({ code: 0, stdout: `Approved ${code} on testchat.\n` });
    expect((await cli(['pairing', 'list'], environment)).stdout).toBe('No pending pairing requests.\n');
    expect((await cli(['pairing', 'deny', 'testchat'], environment)).code).toBe(exitCodes.usage);
  });
});

describe('switchboard CLI: config', () => {
  it('validates a config: ok (0), invalid with key paths (5), syntax errors and missing files (7)', async () => {
    const valid = await cli(['config', 'validate'], environment);
    expect(valid).toMatchObject({
      code: 0,
      stdout: `${join(harness.stateDirectory, 'switchboard.json')} is valid.\n`,
    });

    const state = mkdtempSync(join(tmpdir(), 'switchboard-cli-config-'));
    writeFileSync(
      join(state, 'switchboard.json'),
      JSON.stringify({ gateway: { port: 'eighty', bind: 'loopback' }, logging: { level: 'loud' }, extra: 1 }),
    );
    const invalid = await cli(['config', 'validate'], { SWITCHBOARD_STATE_DIR: state });
    expect(invalid.code).toBe(exitCodes.invalidConfig);
    expect(invalid.stderr).toContain('gateway.port: expected number, got string');
    expect(invalid.stderr).toContain('logging.level: expected one of "debug", "info", "warn", "error"');
    const json = JSON.parse(
      (await cli(['config', 'validate', '--json'], { SWITCHBOARD_STATE_DIR: state })).stdout,
    );
    expect(json).toMatchObject({ ok: false, code: 'CONFIG_INVALID' });
    expect(json.problems.map((problem: { path: string }) => problem.path)).toEqual([
      'gateway.port',
      'logging.level',
      'extra',
    ]);

    writeFileSync(join(state, 'broken.json'), '{ gateway: { port: 1 ');
    const syntax = await cli(['config', 'validate', '--config', join(state, 'broken.json')], {});
    expect(syntax.code).toBe(exitCodes.unreadableConfig);
    expect(syntax.stderr).toContain(`${join(state, 'broken.json')}:1:`);
    const missing = await cli(['config', 'validate', '--config', join(state, 'nope.json')], {});
    expect(missing).toMatchObject({
      code: exitCodes.unreadableConfig,
      stderr: expect.stringContaining('does not exist'),
    });
  });

  it('refuses to start the gateway on an invalid config (exit 5), naming the key', async () => {
    const state = mkdtempSync(join(tmpdir(), 'switchboard-cli-run-'));
    writeFileSync(
      join(state, 'switchboard.json'),
      JSON.stringify({ gateway: { auth: { mode: 'sometimes' } } }),
    );
    const result = await cli(['gateway', 'run', '--state-dir', state], {});
    expect(result.code).toBe(exitCodes.invalidConfig);
    expect(result.stderr).toContain('gateway.auth.mode: expected one of "token", "none"');
  });

  it('prints the config JSON Schema, which accepts good configs and rejects bad ones', async () => {
    const result = await cli(['config', 'schema'], {});
    expect(result.code).toBe(exitCodes.ok);
    const schema = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties as object)).toEqual(
      expect.arrayContaining(['gateway', 'models', 'agents', 'channels', 'auth', 'logging']),
    );
    const validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    const ours = JSON.parse(readFileSync(join(harness.stateDirectory, 'switchboard.json'), 'utf8'));
    expect(validator.safeParse(ours).success).toBe(true);
    expect(validator.safeParse({ gateway: { port: 'eighty' } }).success).toBe(false);
    expect(validator.safeParse({ logging: { level: 'loud' } }).success).toBe(false);
  });
});

describe('switchboard CLI: doctor, logs, webchat', () => {
  it('doctor passes on a healthy setup and fails on a weak token and a missing channel credential', async () => {
    const state = mkdtempSync(join(tmpdir(), 'switchboard-cli-doctor-'));
    writeConfig(state, harness.model.baseURL, {
      gateway: { port: 0, auth: { mode: 'token', token: harness.gateway.token } },
    });
    const healthy = await cli(['doctor'], {
      SWITCHBOARD_STATE_DIR: state,
      SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
    });
    expect(healthy.code).toBe(exitCodes.ok);
    expect(healthy.stdout).toMatch(/^ok +node: Node v24/m);
    expect(healthy.stdout).toMatch(/^ok +config: .*switchboard\.json is valid$/m);
    expect(healthy.stdout).toMatch(/^ok +state directory: .* mode 700$/m);
    expect(healthy.stdout).toMatch(/^ok +token: strong \(\d+ characters\)$/m);
    // Asked from the running gateway, which has the key in its config.
    expect(healthy.stdout).toMatch(
      /^ok +model credentials: anthropic\/claude-sonnet-4-6 has a credential: models\.providers\.anthropic\.apiKey$/m,
    );
    expect(healthy.stdout).toMatch(
      new RegExp(
        `^ok +model endpoint: ${harness.model.baseURL.replaceAll('.', '\\.')} answers \\(HTTP \\d+`,
        'm',
      ),
    );
    expect(healthy.stdout).toMatch(/^ok +gateway: running and answering \(Switchboard /m);
    expect(healthy.stdout).toMatch(/^ok +channel testchat\/default: connected/m);

    writeConfig(state, harness.model.baseURL, {
      gateway: { port: 0, auth: { mode: 'token', token: 'short-token' } },
      channels: { telegram: { accounts: { default: {} } } },
    });
    const weak = await cli(['doctor', '--json'], { SWITCHBOARD_STATE_DIR: state });
    expect(weak.code).toBe(exitCodes.failed);
    const report = JSON.parse(weak.stdout) as {
      ok: boolean;
      checks: Array<{ name: string; ok: boolean; detail: string }>;
    };
    expect(report.ok).toBe(false);
    const failed = report.checks.filter((check) => !check.ok).map((check) => check.name);
    expect(failed).toEqual(expect.arrayContaining(['token', 'channel telegram', 'gateway']));
    expect(report.checks.find((check) => check.name === 'token')?.detail).toBe(
      'the token is only 11 characters; use 24 or more',
    );
  });

  it('logs prints the log file, as JSON lines with --json, and follows it until stopped', async () => {
    const state = mkdtempSync(join(tmpdir(), 'switchboard-cli-logs-'));
    const file = join(state, 'gateway.log');
    writeFileSync(join(state, 'switchboard.json'), JSON.stringify({ logging: { file } }));
    const none = await cli(['logs'], { SWITCHBOARD_STATE_DIR: state });
    expect(none.code).toBe(exitCodes.notFound);
    writeFileSync(file, '2026-01-01T00:00:00.000Z INFO  gateway listening on ws://127.0.0.1:1\n');
    expect((await cli(['logs'], { SWITCHBOARD_STATE_DIR: state })).stdout).toBe(
      '2026-01-01T00:00:00.000Z INFO  gateway listening on ws://127.0.0.1:1\n',
    );
    expect(JSON.parse((await cli(['logs', '--json'], { SWITCHBOARD_STATE_DIR: state })).stdout)).toEqual({
      time: '2026-01-01T00:00:00.000Z',
      level: 'info',
      text: 'gateway listening on ws://127.0.0.1:1',
    });

    const stop = new AbortController();
    const following = cli(['logs', '--follow'], { SWITCHBOARD_STATE_DIR: state }, stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    writeFileSync(file, '2026-01-01T00:00:01.000Z WARN  something new\n', { flag: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    stop.abort();
    const followed = await following;
    expect(followed.code).toBe(exitCodes.ok);
    expect(followed.stdout).toContain('something new');

    const stderrOnly = mkdtempSync(join(tmpdir(), 'switchboard-cli-logs-'));
    const noFile = await cli(['logs'], { SWITCHBOARD_STATE_DIR: stderrOnly });
    expect(noFile.code).toBe(exitCodes.failed);
    expect(noFile.stderr).toContain('set logging.file in the config');
  });

  it('webchat prints the page address, and a sign-in link on request', async () => {
    const plain = await cli(['webchat'], environment);
    expect(plain.code).toBe(exitCodes.ok);
    expect(plain.stdout).toContain(`Open ${harness.gateway.httpUrl}/ and paste the gateway token`);
    const link = JSON.parse((await cli(['webchat', '--with-token', '--json'], environment)).stdout);
    expect(link).toEqual({
      url: `${harness.gateway.httpUrl}/`,
      signInUrl: `${harness.gateway.httpUrl}/#token=${encodeURIComponent(harness.gateway.token ?? '')}`,
    });
  });
});
