import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../config/load.ts';
import type { GatewayConfig } from '../config/schema.ts';
import { diffConfig, planReload, restartReason, restartRules, shareUnchanged } from './config-reload.ts';
import { createLiveConfig, createLiveModelCatalog } from './live-config.ts';

const parse = (value: Record<string, unknown>): GatewayConfig =>
  parseGatewayConfig(JSON.stringify(value), 'test.json', {}).config;

const base = {
  gateway: { port: 18_789, auth: { mode: 'token', token: 'a-long-enough-token-0123456789' } },
  models: { providers: { anthropic: { apiKey: 'old-key' } } },
  agents: { list: [{ id: 'main', default: true }] },
  channels: { testchat: { dmPolicy: 'allowlist', allowFrom: ['user-1'] } },
};

describe('diffConfig', () => {
  it('names each changed leaf by its key path; arrays change as a whole; missing equals undefined', () => {
    expect(
      diffConfig(
        { a: { b: 1, c: [1, 2], d: undefined }, e: 'same' },
        { a: { b: 2, c: [1, 3] }, e: 'same', f: { g: true } },
      ),
    ).toEqual([['a', 'b'], ['a', 'c'], ['f']]);
    expect(diffConfig({ list: [{ id: 'x' }] }, { list: [{ id: 'x' }] })).toEqual([]);
  });
});

describe('planReload', () => {
  it('applies credentials, agents, bindings and access live; keeps restart-only keys at their old values', () => {
    const previous = parse(base);
    const next = parse({
      ...base,
      gateway: { ...base.gateway, port: 9999 },
      models: { providers: { anthropic: { apiKey: 'new-key' } } },
      agents: { list: [{ id: 'main', default: true }, { id: 'work' }] },
      bindings: [{ agentId: 'work', match: { channel: 'testchat' } }],
      channels: { testchat: { dmPolicy: 'allowlist', allowFrom: ['user-1', 'user-2'] } },
      session: { durability: 'full' },
      logging: { level: 'debug' },
    });
    const plan = planReload(previous, next, ['testchat']);
    expect(plan.applied).toEqual([
      'models.providers.anthropic.apiKey',
      'agents.list',
      'bindings',
      'channels.testchat.allowFrom',
    ]);
    expect(plan.needsRestart.map((entry) => entry.path)).toEqual([
      'gateway.port',
      'session.durability',
      'logging.level',
    ]);
    expect(plan.config.gateway.port).toBe(18_789);
    expect(plan.config.session.durability).toBeUndefined();
    expect(plan.config.logging.level).toBe('info');
    expect(plan.config.models.providers.anthropic?.apiKey).toBe('new-key');
    expect(plan.config.agents.list?.map((agent) => agent.id)).toEqual(['main', 'work']);
    // Unchanged sections stay the same objects (the catalog and auth rebuild only on change).
    expect(plan.config.auth).toBe(previous.auth);
    expect(plan.config.tools).toBe(previous.tools);
    expect(plan.config.models).not.toBe(previous.models);
  });

  it('needs a restart for a channel no loaded plugin provides, and for a plugins change', () => {
    const previous = parse(base);
    const next = parse({
      ...base,
      channels: { ...base.channels, telegram: { botToken: '123:abc' } },
      plugins: { entries: { guard: { enabled: true } } },
    });
    const plan = planReload(previous, next, ['testchat']);
    expect(plan.applied).toEqual([]);
    expect(plan.needsRestart).toEqual([
      {
        path: 'channels.telegram',
        reason: 'the telegram channel was not configured at start-up, so its code is not loaded',
      },
      { path: 'plugins', reason: expect.stringContaining('plugin code is loaded and set up once') },
    ]);
    expect(plan.config.channels.telegram).toBeUndefined();
    expect(plan.config.plugins).toBeUndefined();
  });

  it('every restart rule names why', () => {
    for (const rule of restartRules) expect(rule.reason.length).toBeGreaterThan(10);
    expect(restartReason(['agents', 'defaults', 'maxConcurrent'], [])).toContain('dispatcher');
    expect(restartReason(['agents', 'defaults', 'timeoutSeconds'], [])).toBeUndefined();
    expect(restartReason(['gateway', 'reload', 'mode'], [])).toBeUndefined();
    expect(restartReason(['auth', 'profiles', 'anthropic:a', 'apiKey'], [])).toBeUndefined();
  });
});

describe('shareUnchanged', () => {
  it('keeps equal subtrees as the old objects', () => {
    const previous = { a: { b: [1] }, c: { d: 1 } };
    const shared = shareUnchanged(previous, { a: { b: [1] }, c: { d: 2 } });
    expect(shared.a).toBe(previous.a);
    expect(shared.c).toEqual({ d: 2 });
    expect(shareUnchanged(previous, structuredClone(previous))).toBe(previous);
  });
});

describe('live config', () => {
  it('swaps in one step, tells listeners, and the model catalog follows a changed key', () => {
    const live = createLiveConfig(parse(base));
    const catalog = createLiveModelCatalog(live, {});
    const seen: string[] = [];
    const stop = live.onChange((next, previous) =>
      seen.push(`${previous.models.providers.anthropic?.apiKey}->${next.models.providers.anthropic?.apiKey}`),
    );
    const before = catalog.resolve('anthropic/claude-sonnet-4-6');
    expect(before.apiKey).toBe('old-key');
    expect(catalog.resolve('anthropic/claude-sonnet-4-6')).toBe(before);
    live.replace(parse({ ...base, models: { providers: { anthropic: { apiKey: 'new-key' } } } }));
    expect(catalog.resolve('anthropic/claude-sonnet-4-6').apiKey).toBe('new-key');
    expect(seen).toEqual(['old-key->new-key']);
    stop();
    live.replace(parse(base));
    expect(seen).toHaveLength(1);
  });
});
