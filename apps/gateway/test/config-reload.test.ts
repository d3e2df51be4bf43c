// Config changes without a restart (issue 17; docs/decisions/0011-config-reload.md): a running
// gateway whose config file is edited applies new agents, bindings, access lists and keys to
// the next message or turn, rejects an invalid edit and keeps answering with the old config,
// restarts only the channel accounts whose settings changed, reports keys that need a
// restart, and reloads on SIGHUP and on `switchboard config reload`.
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChannelAccount,
  type ChannelPlugin,
  defineChannelConfig,
  definePlugin,
  type InboundMessage,
  type ReceiveOutcome,
  z,
} from '@switchboard/hooks';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodes } from '../src/cli/main.ts';
import type { ConfigReloadReport } from '../src/runtime/config-reload.ts';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { runCliOn, startTestGateway, type TestGateway } from './harness.ts';
import { createTestChannel } from './test-channel.ts';

const running: TestGateway[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function start(...args: Parameters<typeof startTestGateway>): Promise<TestGateway> {
  const harness = await startTestGateway(...args);
  running.push(harness);
  return harness;
}

/**
 * Edits the config file the way many editors save: a new file renamed over the old one.
 * `changes` maps dotted key paths to new values (undefined removes the key).
 */
function editConfig(stateDirectory: string, changes: Record<string, unknown>): void {
  const path = join(stateDirectory, 'switchboard.json');
  const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  for (const [keyPath, value] of Object.entries(changes)) {
    const keys = keyPath.split('.');
    let parent = config;
    for (const key of keys.slice(0, -1)) {
      if (typeof parent[key] !== 'object' || parent[key] === null) parent[key] = {};
      parent = parent[key] as Record<string, unknown>;
    }
    const last = keys.at(-1)!;
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  writeFileSync(`${path}.tmp`, JSON.stringify(config, null, 2));
  renameSync(`${path}.tmp`, path);
}

/** Waits for a log line (the file watcher reloads on its own, after its debounce). */
async function waitForLog(harness: TestGateway, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = harness.logs.find((entry) => pattern.test(entry));
    if (line !== undefined) return line;
    if (Date.now() > deadline)
      throw new Error(`no log line matches ${pattern} within ${timeoutMs} ms:\n${harness.logs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function reload(harness: TestGateway): Promise<ConfigReloadReport> {
  const response = await (await harness.connect()).request('config.reload', {});
  expect(response.ok).toBe(true);
  return response.payload as unknown as ConfigReloadReport;
}

async function sessionKeys(harness: TestGateway): Promise<string[]> {
  const sessions = await (await harness.connect()).request('sessions.list', {});
  return ((sessions.payload?.sessions as Array<{ key: string }> | undefined) ?? []).map(
    (session) => session.key,
  );
}

/** A channel that counts how often each account was started and stopped. */
function createCountingChannel() {
  const starts = new Map<string, number>();
  const stops = new Map<string, number>();
  const labels = new Map<string, string | undefined>();
  const receivers = new Map<string, (message: InboundMessage) => Promise<ReceiveOutcome>>();
  const channel: ChannelPlugin = {
    id: 'fakechat',
    label: 'Fake chat',
    capabilities: {
      chatTypes: ['direct'],
      threads: false,
      media: false,
      edits: false,
      typing: false,
      reactions: false,
      textLimit: 1000,
      markup: 'plain',
    },
    config: defineChannelConfig(z.object({ label: z.string().optional() })) as ChannelPlugin['config'],
    async start(context): Promise<ChannelAccount> {
      const account = context.accountId;
      starts.set(account, (starts.get(account) ?? 0) + 1);
      labels.set(account, (context.account as { label?: string }).label);
      receivers.set(account, (message) => context.receive(message));
      return {
        async send() {
          return { messageIds: ['out'] };
        },
        async stop() {
          stops.set(account, (stops.get(account) ?? 0) + 1);
        },
      };
    },
  };
  return {
    plugin: definePlugin({
      name: 'fakechat-channel',
      version: '1.0.0',
      specVersion: 1,
      setup(api) {
        api.registerChannel(channel);
      },
    }),
    starts,
    stops,
    labels,
    receive(accountId: string, senderId: string, text: string): Promise<ReceiveOutcome> {
      const receive = receivers.get(accountId);
      if (receive === undefined) throw new Error(`account ${accountId} never started`);
      return receive({
        channel: 'fakechat',
        accountId,
        messageId: `${accountId}-${senderId}-${text}`,
        chatType: 'direct',
        peer: { kind: 'direct', id: senderId },
        sender: { id: senderId },
        text,
        timestamp: Date.now(),
      });
    },
  };
}

describe('config reload: edits apply without a restart', () => {
  it('a new agent and binding written to the file route the next message to that agent', async () => {
    const channel = createTestChannel();
    const harness = await start({
      plugins: [channel.plugin],
      config: { channels: { testchat: { dmPolicy: 'open' } } },
    });
    await channel.receive({ text: 'before the edit' });
    await channel.waitForSent(1);
    expect(await sessionKeys(harness)).toEqual(['agent:main:testchat:direct:user-1']);

    editConfig(harness.stateDirectory, {
      'agents.list': [{ id: 'main', default: true }, { id: 'work' }],
      bindings: [{ agentId: 'work', match: { channel: 'testchat' } }],
    });
    expect(await waitForLog(harness, /config reloaded \(file\)/)).toContain('agents.list, bindings');

    await channel.receive({ text: 'after the edit' });
    await channel.waitForSent(2);
    expect(await sessionKeys(harness)).toContain('agent:work:testchat:direct:user-1');
    expect(harness.model.lastRequest?.lastUserText).toBe('after the edit');
    expect(harness.gateway.currentConfig().agents.list?.map((agent) => agent.id)).toEqual(['main', 'work']);
  });

  it('a sender added to allowFrom gets in on their next message; the account is not restarted', async () => {
    const channel = createCountingChannel();
    const harness = await start({
      plugins: [channel.plugin],
      config: { channels: { fakechat: { dmPolicy: 'allowlist', allowFrom: ['user-1'] } } },
    });
    expect(await channel.receive('default', 'user-2', 'let me in')).toEqual({
      status: 'dropped',
      reason: 'dm-not-allowlisted',
    });
    editConfig(harness.stateDirectory, { 'channels.fakechat.allowFrom': ['user-1', 'user-2'] });
    await waitForLog(harness, /config reloaded \(file\): channels\.fakechat\.allowFrom/);
    expect(await channel.receive('default', 'user-2', 'let me in, again')).toEqual({ status: 'journaled' });
    expect(channel.starts.get('default')).toBe(1);
    expect(channel.stops.get('default')).toBeUndefined();
    expect(harness.logs.join('')).toContain('access settings changed; applied without a restart');
  });

  it('a new API key for a 401-disabled profile applies to the next turn and clears the disabled state', async () => {
    const harness = await start({
      model: { acceptedCredentials: ['sk-new'] },
      config: {
        auth: {
          profiles: { 'anthropic:main': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-old' } },
        },
      },
    });
    const client = await harness.connect();
    const failed = await client.requestFinal('agent', { message: 'hello', idempotencyKey: 'with-old-key' });
    expect(failed.final.ok).toBe(false);
    expect(failed.final.error?.details).toMatchObject({ errorClass: 'auth' });
    const profileState = async () =>
      (
        (await client.request('status', {})).payload?.authProfiles as
          | { profiles: Array<{ id: string; state: string }> }
          | undefined
      )?.profiles.find((profile) => profile.id === 'anthropic:main')?.state;
    expect(await profileState()).toBe('disabled');

    editConfig(harness.stateDirectory, { 'auth.profiles.anthropic:main.apiKey': 'sk-new' });
    const report = await reload(harness);
    expect(report).toMatchObject({
      ok: true,
      applied: ['auth.profiles.anthropic:main.apiKey'],
      needsRestart: [],
    });
    expect(await profileState()).toBe('ready');
    expect(harness.logs.join('')).not.toContain('sk-new');

    const answered = await client.requestFinal('agent', {
      message: 'hello again',
      idempotencyKey: 'with-new-key',
    });
    expect(answered.final.payload).toMatchObject({ status: 'ok' });
    expect(harness.model.messageRequests.map((request) => request.credential)).toEqual(['sk-old', 'sk-new']);
  });

  it('a new provider key (models.providers.*.apiKey) applies to the next turn', async () => {
    const harness = await start({ model: { acceptedCredentials: ['sk-provider-new'] } });
    const client = await harness.connect();
    const failed = await client.requestFinal('agent', { message: 'one', idempotencyKey: 'old-provider-key' });
    expect(failed.final.ok).toBe(false);
    editConfig(harness.stateDirectory, { 'models.providers.anthropic.apiKey': 'sk-provider-new' });
    await waitForLog(harness, /config reloaded \(file\): models\.providers\.anthropic\.apiKey/);
    const answered = await client.requestFinal('agent', {
      message: 'two',
      idempotencyKey: 'new-provider-key',
    });
    expect(answered.final.payload).toMatchObject({ status: 'ok' });
  });

  it('an invalid edit is rejected with its key path, and the old config keeps answering', async () => {
    const harness = await start({ model: { turns: [{ text: 'still here' }] } });
    editConfig(harness.stateDirectory, {
      'agents.defaults.timeoutSeconds': 'soon',
      'agents.list': [{ id: 'main', default: true }, { id: 'work' }],
    });
    const line = await waitForLog(harness, /config reload rejected \(file\)/);
    expect(line).toContain('agents.defaults.timeoutSeconds: expected number, got string');

    const report = await reload(harness);
    expect(report.ok).toBe(false);
    expect(report.applied).toEqual([]);
    expect(report.problems).toContainEqual({
      path: 'agents.defaults.timeoutSeconds',
      message: 'expected number, got string',
      severity: 'error',
    });
    expect(harness.gateway.currentConfig().agents.list).toBeUndefined();
    const client = await harness.connect();
    const { final } = await client.requestFinal('agent', {
      message: 'are you there?',
      idempotencyKey: 'after',
    });
    expect(final.payload).toMatchObject({ status: 'ok', result: { payloads: [{ text: 'still here' }] } });

    // Not JSON5 at all: the line and column, and still the old config.
    writeFileSync(join(harness.stateDirectory, 'switchboard.json'), '{ agents: { defaults: { ');
    const broken = await reload(harness);
    expect(broken.ok).toBe(false);
    expect(broken.problems[0]?.message).toMatch(/switchboard\.json:1:\d+/);
  });

  it('restarts only the channel accounts whose settings changed, one by one', async () => {
    const channel = createCountingChannel();
    const harness = await start({
      plugins: [channel.plugin],
      config: {
        channels: {
          fakechat: {
            dmPolicy: 'open',
            accounts: {
              alpha: { label: 'first' },
              beta: { label: 'same' },
              gamma: { dmPolicy: 'allowlist', allowFrom: ['user-1'] },
              delta: { label: 'going away' },
            },
          },
        },
      },
    });
    editConfig(harness.stateDirectory, {
      'channels.fakechat.accounts.alpha.label': 'second',
      'channels.fakechat.accounts.gamma.allowFrom': ['user-1', 'user-2'],
      'channels.fakechat.accounts.delta': undefined,
      'channels.fakechat.accounts.epsilon': { label: 'new' },
    });
    const report = await reload(harness);
    expect(report.channels).toEqual({
      restarted: ['fakechat:alpha'],
      started: ['fakechat:epsilon'],
      stopped: ['fakechat:delta'],
      accessUpdated: ['fakechat:gamma'],
    });
    expect(Object.fromEntries(channel.starts)).toEqual({ alpha: 2, beta: 1, gamma: 1, delta: 1, epsilon: 1 });
    expect(Object.fromEntries(channel.stops)).toEqual({ alpha: 1, delta: 1 });
    expect(channel.labels.get('alpha')).toBe('second');
    const status = await (await harness.connect()).request('status', {});
    expect(
      (status.payload?.channels as Array<{ accountId: string; status: { state: string } }> | undefined)?.map(
        (account) => `${account.accountId}:${account.status.state}`,
      ),
    ).toEqual(['alpha:connected', 'beta:connected', 'gamma:connected', 'epsilon:connected']);
    expect(await channel.receive('gamma', 'user-2', 'hi')).toEqual({ status: 'journaled' });
  });

  it('reports keys that need a restart and keeps their old values; the live ones still apply', async () => {
    const harness = await start();
    editConfig(harness.stateDirectory, {
      'gateway.port': 1,
      'logging.level': 'error',
      'agents.defaults.maxConcurrent': 9,
      'agents.defaults.timeoutSeconds': 30,
    });
    const report = await reload(harness);
    expect(report.ok).toBe(true);
    expect(report.applied).toEqual(['agents.defaults.timeoutSeconds']);
    expect(report.needsRestart.map((entry) => entry.path)).toEqual([
      'gateway.port',
      'agents.defaults.maxConcurrent',
      'logging.level',
    ]);
    const current = harness.gateway.currentConfig();
    expect(current.gateway.port).toBe(0);
    expect(current.agents.defaults.maxConcurrent).toBe(4);
    expect(current.logging.level).toBe('info');
    expect(current.agents.defaults.timeoutSeconds).toBe(30);
    expect(harness.logs.join('')).toContain('gateway.port: the listening socket is opened once');
  });
});

describe('config reload: the operator commands', () => {
  it('`switchboard config reload` says what applied and what needs a restart; an invalid file exits 5', async () => {
    // Reload on change off: the file watcher would otherwise apply the edit before the CLI asks.
    const harness = await start({
      config: {
        gateway: {
          port: 0,
          auth: { mode: 'token', token: 'test-gateway-token-0123456789' },
          reload: { mode: 'off' },
        },
      },
    });
    editConfig(harness.stateDirectory, {
      'agents.list': [{ id: 'main', default: true }, { id: 'work' }],
      'session.durability': 'full',
    });
    const result = await runCliOn(['config', 'reload'], harness);
    expect(result.code).toBe(exitCodes.ok);
    expect(result.stdout).toContain('applied without a restart:\n  agents.list');
    expect(result.stdout).toContain(
      'needs a restart (the old values stay in force until then):\n  session.durability: the database is opened once',
    );
    const json = JSON.parse((await runCliOn(['config', 'reload', '--json'], harness)).stdout);
    expect(json).toMatchObject({ ok: true, applied: [], needsRestart: [{ path: 'session.durability' }] });

    editConfig(harness.stateDirectory, { bindings: [{ agentId: 'work', match: { channel: 42 } }] });
    const rejected = await runCliOn(['config', 'reload'], harness);
    expect(rejected.code).toBe(exitCodes.invalidConfig);
    expect(rejected.stderr).toContain('was rejected; the gateway keeps running with its current config');
    expect(rejected.stderr).toMatch(/error {3}bindings\[0\]\.match\.channel: /);
  });

  it('SIGHUP makes a gateway process reload its config (with reload on change off)', async () => {
    const model: FakeAnthropic = await createFakeAnthropic({ fallback: 'echo' }).start();
    const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-sighup-'));
    const token = 'sighup-test-token-0123456789abcdef';
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token }, reload: { mode: 'off' } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
      }),
    );
    const gateway: ChildGateway = await startChildGateway({ stateDirectory, token });
    cleanups.push(async () => {
      await gateway.stop();
      await model.close();
    });
    const agents = async () =>
      (
        (await (await gateway.client()).request('health', {})).payload?.agents as
          | Array<{ id: string }>
          | undefined
      )?.map((agent) => agent.id);
    expect(await agents()).toEqual(['main']);
    editConfig(stateDirectory, { 'agents.list': [{ id: 'main', default: true }, { id: 'night-shift' }] });
    gateway.signal('SIGHUP');
    const deadline = Date.now() + 10_000;
    while (!gateway.output.join('').includes('config reloaded (signal): agents.list')) {
      if (Date.now() > deadline) throw new Error(`no reload after SIGHUP:\n${gateway.output.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(gateway.output.join('')).toContain('received SIGHUP, reloading the config');
    expect(gateway.output.join('')).not.toContain('config reloaded (file)');
    expect(await agents()).toEqual(['main', 'night-shift']);
    expect(await gateway.waitForExit(0)).toBe('running');
  });
});
