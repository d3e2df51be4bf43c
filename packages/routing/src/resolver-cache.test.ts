import { describe, expect, it } from 'vitest';
import type { AgentBinding, RoutingConfig } from './config.ts';
import { createRouteResolver } from './resolve-route.ts';

function config(bindings: AgentBinding[] = [], rest: Partial<RoutingConfig> = {}): RoutingConfig {
  return { ...rest, bindings };
}

const roleBindings: AgentBinding[] = [
  { agentId: 'mods', match: { channel: 'discord', guildId: 'G', roles: ['mod'] } },
  { agentId: 'admins', match: { channel: 'discord', guildId: 'G', roles: ['admin'] } },
  { agentId: 'guild', match: { channel: 'discord', guildId: 'G' } },
];

describe('route resolver caches', () => {
  it('prepares a config once and keeps it while the config and its parts are the same objects', () => {
    const resolver = createRouteResolver();
    const routing = config([{ agentId: 'a', match: { channel: 'x' } }]);
    expect(resolver.stats(routing)).toBeNull();
    resolver.prepare(routing);
    for (let index = 0; index < 5; index += 1) resolver.resolveAgentRoute({ config: routing, channel: 'x' });
    expect(resolver.stats(routing)?.bindingScans).toBe(1);
    expect(resolver.stats(routing)?.indexBuilds).toBe(1);
  });

  it('rebuilds when the bindings, agents or session object of the same config is replaced', () => {
    const resolver = createRouteResolver();
    const routing: { -readonly [K in keyof RoutingConfig]: RoutingConfig[K] } = config([
      { agentId: 'a', match: { channel: 'x' } },
    ]);
    const resolve = () =>
      resolver.resolveAgentRoute({ config: routing, channel: 'x', peer: { kind: 'direct', id: 'u' } });
    expect(resolve().agentId).toBe('a');
    routing.bindings = [{ agentId: 'b', match: { channel: 'x' } }];
    expect(resolve().agentId).toBe('b');
    routing.agents = { list: [{ id: 'c', default: true }] };
    expect(resolve().agentId).toBe('c');
    routing.session = { dmScope: 'per-peer' };
    expect(resolve().sessionKey).toBe('agent:c:direct:u');
    expect(resolver.stats(routing)?.bindingScans).toBe(4);
  });

  it('does not see edits made in place to the same objects (hot reloads must build new objects)', () => {
    const resolver = createRouteResolver();
    const session: { dmScope?: 'main' | 'per-peer' } = { dmScope: 'main' };
    const routing: RoutingConfig = { session };
    const resolve = () =>
      resolver.resolveAgentRoute({ config: routing, channel: 'x', peer: { kind: 'direct', id: 'u' } });
    expect(resolve().sessionKey).toBe('agent:main:main');
    session.dmScope = 'per-peer';
    expect(resolve().sessionKey).toBe('agent:main:main');
  });

  it('keeps (channel, account) indexes in a true LRU: the least recently used one goes first', () => {
    const resolver = createRouteResolver({ indexCapacity: 2, routeCacheCapacity: 0 });
    const routing = config([{ agentId: 'a', match: { channel: 'x', accountId: '*' } }]);
    const resolve = (accountId: string) =>
      resolver.resolveAgentRoute({ config: routing, channel: 'x', accountId });
    resolve('one');
    resolve('two');
    resolve('one');
    resolve('three');
    expect(resolver.stats(routing)?.indexes).toEqual(['x\tthree', 'x\tone']);
    expect(resolver.stats(routing)?.indexEvictions).toBe(1);
    expect(resolve('two').agentId).toBe('a');
    expect(resolver.stats(routing)?.indexes).toEqual(['x\ttwo', 'x\tthree']);
    expect(resolver.stats(routing)?.indexBuilds).toBe(4);
  });

  it('a route-cache hit counts as a use of the index the route came from', () => {
    const resolver = createRouteResolver({ indexCapacity: 2 });
    const routing = config([{ agentId: 'a', match: { channel: 'x', accountId: '*' } }]);
    const resolve = (accountId: string) =>
      resolver.resolveAgentRoute({
        config: routing,
        channel: 'x',
        accountId,
        peer: { kind: 'direct', id: accountId },
      });
    resolve('one');
    resolve('one');
    resolve('two');
    resolve('one');
    resolve('three');
    const stats = resolver.stats(routing);
    expect(stats?.routeCacheHits).toBe(1);
    expect(stats?.indexes).toEqual(['x\tthree', 'x\tone']);
  });

  it('rolling over the index capacity never rescans the bindings (OpenClaw #36915)', () => {
    const resolver = createRouteResolver({ indexCapacity: 4, routeCacheCapacity: 0 });
    const routing = config(
      Array.from({ length: 50 }, (_, index) => ({
        agentId: `a${index}`,
        match: { channel: 'x', accountId: `acct${index}` },
      })),
    );
    for (let round = 0; round < 3; round += 1) {
      for (let index = 0; index < 50; index += 1) {
        const resolved = resolver.resolveAgentRoute({
          config: routing,
          channel: 'x',
          accountId: `acct${index}`,
        });
        expect(resolved.agentId).toBe(`a${index}`);
      }
    }
    const stats = resolver.stats(routing);
    expect(stats?.bindingScans).toBe(1);
    expect(stats?.indexBuilds).toBe(150);
    expect(stats?.indexes.length).toBeLessThanOrEqual(4);
  });

  it('different spellings of one channel and account share one index', () => {
    const resolver = createRouteResolver({ routeCacheCapacity: 0 });
    const routing = config([{ agentId: 'biz', match: { channel: 'whatsapp', accountId: 'biz' } }]);
    for (const [channel, accountId] of [
      ['whatsapp', 'biz'],
      [' WhatsApp ', 'BIZ'],
      ['WHATSAPP', ' biz '],
    ] as const) {
      expect(resolver.resolveAgentRoute({ config: routing, channel, accountId }).agentId).toBe('biz');
    }
    expect(resolver.stats(routing)?.indexBuilds).toBe(1);
    expect(resolver.stats(routing)?.indexes).toEqual(['whatsapp\tbiz']);
  });

  it('caches a route on the second miss for its peer, then answers from the cache with equal routes', () => {
    const resolver = createRouteResolver();
    const routing = config([{ agentId: 'a', match: { channel: 'x', peer: { kind: 'direct', id: 'u' } } }], {
      session: { dmScope: 'per-channel-peer' },
    });
    const input = { config: routing, channel: 'x', peer: { kind: 'direct', id: 'u' } } as const;
    const first = resolver.resolveAgentRoute(input);
    expect(resolver.stats(routing)?.cachedRoutes).toBe(0);
    const second = resolver.resolveAgentRoute(input);
    expect(resolver.stats(routing)?.cachedRoutes).toBe(1);
    const third = resolver.resolveAgentRoute(input);
    expect(third).toEqual(first);
    expect(second).toEqual(first);
    expect(third).not.toBe(second);
    const stats = resolver.stats(routing);
    expect([stats?.routeCacheHits, stats?.routeCacheMisses, stats?.cachedRoutes]).toEqual([1, 2, 1]);
  });

  it('hands out copies: changing a returned route does not change later answers', () => {
    const resolver = createRouteResolver();
    const routing = config();
    const input = { config: routing, channel: 'x' } as const;
    const first = resolver.resolveAgentRoute(input) as { agentId: string };
    first.agentId = 'tampered';
    const second = resolver.resolveAgentRoute(input) as { agentId: string };
    second.agentId = 'tampered again';
    expect(resolver.resolveAgentRoute(input).agentId).toBe('main');
  });

  it('treats member roles as a set: order and repeats do not matter, different sets do', () => {
    const resolver = createRouteResolver();
    const routing = config(roleBindings);
    const resolve = (memberRoleIds: string[]) =>
      resolver.resolveAgentRoute({ config: routing, channel: 'discord', guildId: 'G', memberRoleIds })
        .agentId;
    expect(resolve(['admin', 'mod'])).toBe('mods');
    expect(resolve(['admin', 'mod'])).toBe('mods');
    expect(resolve(['mod', 'admin'])).toBe('mods');
    expect(resolve(['mod', 'admin', 'mod'])).toBe('mods');
    expect(resolver.stats(routing)?.routeCacheHits).toBe(2);
    expect(resolve(['admin'])).toBe('admins');
    expect(resolve(['other'])).toBe('guild');
    expect(resolve([])).toBe('guild');
  });

  it('keys the cache on every input that changes the answer', () => {
    const resolver = createRouteResolver();
    const routing = config([
      { agentId: 'parent', match: { channel: 'd', peer: { kind: 'channel', id: 'P' } } },
      { agentId: 'team', match: { channel: 'd', teamId: 'T' } },
      { agentId: 'guild', match: { channel: 'd', guildId: 'G' } },
      { agentId: 'ops', match: { channel: 'd', accountId: 'ops' } },
    ]);
    const base = { config: routing, channel: 'd', peer: { kind: 'channel', id: 'C' } } as const;
    const agent = (extra: object) => resolver.resolveAgentRoute({ ...base, ...extra }).agentId;
    for (let round = 0; round < 2; round += 1) {
      expect(agent({})).toBe('main');
      expect(agent({ parentPeer: { kind: 'channel', id: 'P' } })).toBe('parent');
      expect(agent({ parentPeer: { kind: 'channel', id: 'Q' } })).toBe('main');
      expect(agent({ guildId: 'G' })).toBe('guild');
      expect(agent({ teamId: 'T' })).toBe('team');
      expect(agent({ accountId: 'ops' })).toBe('ops');
      expect(resolver.resolveAgentRoute({ ...base, peer: { kind: 'group', id: 'C' } }).sessionKey).toBe(
        'agent:main:d:group:c',
      );
      expect(resolver.resolveAgentRoute({ ...base, peer: { kind: 'channel', id: 'C' } }).sessionKey).toBe(
        'agent:main:d:channel:c',
      );
    }
    // Round one caches every answer but its first (the peer's first sighting); its last call
    // repeats the first and caches it too. Round two is all hits.
    expect(resolver.stats(routing)?.routeCacheHits).toBe(8);
  });

  it('does not cache conversations seen once', () => {
    const resolver = createRouteResolver();
    const routing = config();
    for (let index = 0; index < 500; index += 1) {
      resolver.resolveAgentRoute({
        config: routing,
        channel: 'x',
        peer: { kind: 'direct', id: `new-${index}` },
      });
    }
    expect(resolver.stats(routing)?.cachedRoutes).toBe(0);
  });

  it('keeps routes used within the last generation and drops the others', () => {
    const resolver = createRouteResolver({ routeCacheCapacity: 4 });
    const routing = config();
    const resolve = (id: string) =>
      resolver.resolveAgentRoute({ config: routing, channel: 'x', peer: { kind: 'direct', id } });
    const hits = () => resolver.stats(routing)?.routeCacheHits;
    for (const id of ['a', 'a', 'b', 'b']) resolve(id);
    // a and b are cached in the young generation, which is now full (2 of 4).
    for (const id of ['c', 'c']) resolve(id);
    // c started a new generation; a and b are the old one.
    resolve('a');
    expect(hits()).toBe(1);
    for (const id of ['d', 'd']) resolve(id);
    // d started another generation: b (unused since) is gone, a (used) survives.
    resolve('a');
    expect(hits()).toBe(2);
    resolve('b');
    expect(hits()).toBe(2);
  });

  it('keeps the route cache bounded, dropping routes unused for a generation, and stays correct', () => {
    const resolver = createRouteResolver({ routeCacheCapacity: 16 });
    const routing = config([{ agentId: 'a', match: { channel: 'x', peer: { kind: 'direct', id: 'u7' } } }], {
      session: { dmScope: 'per-peer' },
    });
    for (let index = 0; index < 200; index += 1) {
      const id = `u${index % 50}`;
      const resolved = resolver.resolveAgentRoute({
        config: routing,
        channel: 'x',
        peer: { kind: 'direct', id },
      });
      expect(resolved.sessionKey).toBe(`agent:${id === 'u7' ? 'a' : 'main'}:direct:${id}`);
      expect(resolver.stats(routing)?.cachedRoutes).toBeLessThanOrEqual(16);
    }
    expect(resolver.stats(routing)?.routeCacheEvictions).toBeGreaterThan(0);
  });

  it('keeps at most 8 routes per peer id, dropping the least recently used variant', () => {
    const resolver = createRouteResolver();
    const routing = config();
    for (let index = 0; index < 12; index += 1) {
      resolver.resolveAgentRoute({
        config: routing,
        channel: 'x',
        accountId: `a${index}`,
        peer: { kind: 'direct', id: 'u' },
      });
    }
    // The first sighting is not cached; 11 are, and the 3 oldest variants make way.
    expect(resolver.stats(routing)?.cachedRoutes).toBe(8);
    expect(resolver.stats(routing)?.routeCacheEvictions).toBe(3);
  });

  it('caches with identity links configured, and the links still shape the keys', () => {
    const resolver = createRouteResolver();
    const routing: RoutingConfig = {
      session: { dmScope: 'per-peer', identityLinks: { alice: ['telegram:1'] } },
    };
    const input = { config: routing, channel: 'telegram', peer: { kind: 'direct', id: '1' } } as const;
    for (let round = 0; round < 3; round += 1) {
      expect(resolver.resolveAgentRoute(input).sessionKey).toBe('agent:main:direct:alice');
    }
    expect(resolver.stats(routing)?.routeCacheHits).toBe(1);
  });

  it('can run without a route cache', () => {
    const resolver = createRouteResolver({ routeCacheCapacity: 0 });
    const routing = config();
    resolver.resolveAgentRoute({ config: routing, channel: 'x' });
    resolver.resolveAgentRoute({ config: routing, channel: 'x' });
    const stats = resolver.stats(routing);
    expect([stats?.routeCacheHits, stats?.routeCacheMisses, stats?.cachedRoutes]).toEqual([0, 0, 0]);
  });

  it('does not cache inputs it cannot compare cheaply, and still answers them right', () => {
    const resolver = createRouteResolver();
    const routing = config([{ agentId: 'n', match: { channel: 'x', peer: { kind: 'direct', id: '42' } } }]);
    const numeric = { config: routing, channel: 'x', peer: { kind: 'direct', id: 42 } } as const;
    expect(resolver.resolveAgentRoute(numeric).agentId).toBe('n');
    expect(resolver.resolveAgentRoute(numeric).agentId).toBe('n');
    const manyRoles = Array.from({ length: 40 }, (_, index) => `r${index}`);
    resolver.resolveAgentRoute({ config: routing, channel: 'x', memberRoleIds: manyRoles });
    expect(resolver.stats(routing)?.cachedRoutes).toBe(0);
  });

  it('rejects capacities that are not integers in range', () => {
    expect(() => createRouteResolver({ indexCapacity: 0 })).toThrow(
      /indexCapacity must be a positive integer/,
    );
    expect(() => createRouteResolver({ routeCacheCapacity: -1 })).toThrow(/routeCacheCapacity/);
    expect(() => createRouteResolver({ routeCacheCapacity: 1 })).toThrow(/at least 2/);
  });
});
