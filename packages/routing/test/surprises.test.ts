// OpenClaw routing's surprises and traps: one test per item.
import {
  type AgentBinding,
  createRouteResolver,
  parseRoutingConfig,
  type RoutingConfig,
  RoutingError,
  resolveAgentRoute,
  resolveInboundLastRouteSessionKey,
} from '@switchboard/routing';
import { describe, expect, it } from 'vitest';

function bindings(list: unknown[], rest: Partial<RoutingConfig> = {}): RoutingConfig {
  return { ...rest, bindings: list as AgentBinding[] };
}

describe('surprises and traps', () => {
  it('1. an omitted match.accountId means the default account, and a channel-only binding is binding.account', () => {
    const config = bindings([{ agentId: 'support', match: { channel: 'telegram' } }]);
    const onDefault = resolveAgentRoute({ config, channel: 'telegram' });
    expect([onDefault.agentId, onDefault.matchedBy]).toEqual(['support', 'binding.account']);
    const onOtherAccount = resolveAgentRoute({ config, channel: 'telegram', accountId: 'second-bot' });
    expect([onOtherAccount.agentId, onOtherAccount.matchedBy]).toEqual(['main', 'default']);
    const channelWide = bindings([{ agentId: 'support', match: { channel: 'telegram', accountId: '*' } }]);
    const anyAccount = resolveAgentRoute({
      config: channelWide,
      channel: 'telegram',
      accountId: 'second-bot',
    });
    expect([anyAccount.agentId, anyAccount.matchedBy]).toEqual(['support', 'binding.channel']);
  });

  it('2. peer ids match case-sensitively yet are lowercased in keys; Signal groups and Matrix rooms keep case, Matrix DMs do not', () => {
    const config = bindings([
      { agentId: 'ops', match: { channel: 'slack', peer: { kind: 'channel', id: 'c1' } } },
    ]);
    const upper = resolveAgentRoute({ config, channel: 'slack', peer: { kind: 'channel', id: 'C1' } });
    expect([upper.agentId, upper.matchedBy, upper.sessionKey]).toEqual([
      'main',
      'default',
      'agent:main:slack:channel:c1',
    ]);
    const signal = resolveAgentRoute({
      config: {},
      channel: 'signal',
      peer: { kind: 'group', id: 'VWAT+q=' },
    });
    expect(signal.sessionKey).toBe('agent:main:signal:group:VWAT+q=');
    const room = resolveAgentRoute({
      config: {},
      channel: 'matrix',
      peer: { kind: 'channel', id: '!AbC:Matrix.org' },
    });
    expect(room.sessionKey).toBe('agent:main:matrix:channel:!AbC:Matrix.org');
    const dm = resolveAgentRoute({
      config: { session: { dmScope: 'per-channel-peer' } },
      channel: 'matrix',
      peer: { kind: 'direct', id: '@Alice:Matrix.org' },
    });
    expect(dm.sessionKey).toBe('agent:main:matrix:direct:@alice:matrix.org');
  });

  it('3. group and channel peer kinds match each other, but the key keeps the inbound kind', () => {
    const config = bindings([
      { agentId: 'room', match: { channel: 'discord', peer: { kind: 'group', id: 'R1' } } },
    ]);
    const resolved = resolveAgentRoute({ config, channel: 'discord', peer: { kind: 'channel', id: 'R1' } });
    expect([resolved.agentId, resolved.matchedBy, resolved.sessionKey]).toEqual([
      'room',
      'binding.peer',
      'agent:room:discord:channel:r1',
    ]);
  });

  it('4. a peer binding with guild, team or roles is still a peer-tier binding, never a guild-wide catch-all', () => {
    const config = bindings([
      { agentId: 'room-a', match: { channel: 'discord', guildId: 'G1', peer: { kind: 'channel', id: 'A' } } },
    ]);
    const roomB = resolveAgentRoute({
      config,
      channel: 'discord',
      guildId: 'G1',
      peer: { kind: 'channel', id: 'B' },
    });
    expect([roomB.agentId, roomB.matchedBy]).toEqual(['main', 'default']);
    const otherGuild = resolveAgentRoute({
      config,
      channel: 'discord',
      guildId: 'G2',
      peer: { kind: 'channel', id: 'A' },
    });
    expect([otherGuild.agentId, otherGuild.matchedBy]).toEqual(['main', 'default']);
    const roomA = resolveAgentRoute({
      config,
      channel: 'discord',
      guildId: 'G1',
      peer: { kind: 'channel', id: 'A' },
    });
    expect([roomA.agentId, roomA.matchedBy]).toEqual(['room-a', 'binding.peer']);
  });

  it('5. a roles-only binding without a guild sits in the account tier and still needs a held role', () => {
    const config = bindings([{ agentId: 'mods', match: { channel: 'discord', roles: ['R-mod'] } }]);
    const holder = resolveAgentRoute({ config, channel: 'discord', guildId: 'G1', memberRoleIds: ['R-mod'] });
    expect([holder.agentId, holder.matchedBy]).toEqual(['mods', 'binding.account']);
    const other = resolveAgentRoute({ config, channel: 'discord', guildId: 'G1', memberRoleIds: ['R-x'] });
    expect([other.agentId, other.matchedBy]).toEqual(['main', 'default']);
  });

  it('6. an empty roles list means no role restriction, so the binding is in the guild tier', () => {
    const config = bindings([{ agentId: 'guild', match: { channel: 'discord', guildId: 'G1', roles: [] } }]);
    const noRoles = resolveAgentRoute({ config, channel: 'discord', guildId: 'G1' });
    expect([noRoles.agentId, noRoles.matchedBy]).toEqual(['guild', 'binding.guild']);
    const withRoles = resolveAgentRoute({ config, channel: 'discord', guildId: 'G1', memberRoleIds: ['R'] });
    expect([withRoles.agentId, withRoles.matchedBy]).toEqual(['guild', 'binding.guild']);
  });

  it('7. an unknown binding agent is a validation error here; unvalidated, it falls back silently as in 2026.6', () => {
    const raw = {
      agents: { list: [{ id: 'home', default: true }, { id: 'work' }] },
      bindings: [{ agentId: 'ghost', match: { channel: 'slack' } }],
    };
    expect(() => parseRoutingConfig(raw)).toThrow(RoutingError);
    expect(() => parseRoutingConfig(raw)).toThrow(/bindings\[0\]\.agentId/);
    const fallback = resolveAgentRoute({ config: raw as RoutingConfig, channel: 'slack' });
    expect([fallback.agentId, fallback.matchedBy]).toEqual(['home', 'binding.account']);
  });

  it('8. with no default: true the first listed agent takes all unbound traffic, and validation warns', () => {
    const raw = { agents: { list: [{ id: 'sandbox' }, { id: 'assistant' }] } };
    const { config, warnings } = parseRoutingConfig(raw);
    expect(warnings.map((warning) => warning.code)).toEqual(['ROUTING_DEFAULT_AGENT_IMPLICIT']);
    const resolved = resolveAgentRoute({
      config,
      channel: 'telegram',
      peer: { kind: 'direct', id: 'stranger' },
    });
    expect([resolved.agentId, resolved.matchedBy]).toEqual(['sandbox', 'default']);
  });

  it('9. group keys ignore the account: two bot accounts in one group share the session', () => {
    const config: RoutingConfig = { session: { dmScope: 'per-account-channel-peer' } };
    const first = resolveAgentRoute({
      config,
      channel: 'telegram',
      accountId: 'bot-a',
      peer: { kind: 'group', id: '-100' },
    });
    const second = resolveAgentRoute({
      config,
      channel: 'telegram',
      accountId: 'bot-b',
      peer: { kind: 'group', id: '-100' },
    });
    expect(first.sessionKey).toBe('agent:main:telegram:group:-100');
    expect(second.sessionKey).toBe(first.sessionKey);
  });

  it('10. identityLinks only apply under a non-main dmScope, and only per-peer unifies across channels', () => {
    const identityLinks = { alice: ['telegram:111', 'discord:222'] };
    const key = (dmScope: 'main' | 'per-peer' | 'per-channel-peer', channel: string, id: string) =>
      resolveAgentRoute({
        config: { session: { dmScope, identityLinks } },
        channel,
        peer: { kind: 'direct', id },
      }).sessionKey;
    expect(key('main', 'telegram', '111')).toBe('agent:main:main');
    expect(key('per-peer', 'telegram', '111')).toBe('agent:main:direct:alice');
    expect(key('per-peer', 'discord', '222')).toBe('agent:main:direct:alice');
    expect(key('per-channel-peer', 'telegram', '111')).toBe('agent:main:telegram:direct:alice');
    expect(key('per-channel-peer', 'discord', '222')).toBe('agent:main:discord:direct:alice');
  });

  it('11. caches are keyed by object identity: in-place edits are not seen, new objects are; identity links keep the cache', () => {
    const resolver = createRouteResolver();
    const list: AgentBinding[] = [{ agentId: 'first', match: { channel: 'x' } }];
    const config: RoutingConfig = {
      bindings: list,
      session: { dmScope: 'per-peer', identityLinks: { al: ['x:1'] } },
    };
    expect(resolver.resolveAgentRoute({ config, channel: 'x' }).agentId).toBe('first');
    list[0] = { agentId: 'second', match: { channel: 'x' } };
    expect(resolver.resolveAgentRoute({ config, channel: 'x' }).agentId).toBe('first');
    const reloaded: RoutingConfig = { ...config, bindings: [...list] };
    expect(resolver.resolveAgentRoute({ config: reloaded, channel: 'x' }).agentId).toBe('second');
    const dm = { config: reloaded, channel: 'x', peer: { kind: 'direct', id: '1' } } as const;
    for (let round = 0; round < 3; round += 1) {
      expect(resolver.resolveAgentRoute(dm).sessionKey).toBe('agent:second:direct:al');
    }
    expect(resolver.stats(reloaded)?.routeCacheHits).toBe(1);
  });

  it('12. parentPeer changes only the agent, not the key', () => {
    const config = bindings([
      { agentId: 'parent', match: { channel: 'discord', peer: { kind: 'channel', id: 'P' } } },
    ]);
    const thread = resolveAgentRoute({
      config,
      channel: 'discord',
      peer: { kind: 'channel', id: 'T' },
      parentPeer: { kind: 'channel', id: 'P' },
    });
    expect([thread.agentId, thread.sessionKey]).toEqual(['parent', 'agent:parent:discord:channel:t']);
  });

  it('13. missing ids become unknown: a DM with no peer id under per-peer is a shared bucket', () => {
    const config: RoutingConfig = { session: { dmScope: 'per-peer' } };
    const first = resolveAgentRoute({ config, channel: 'whatsapp', peer: { kind: 'direct', id: '' } });
    const second = resolveAgentRoute({ config, channel: 'telegram', peer: { kind: 'direct', id: '   ' } });
    expect(first.sessionKey).toBe('agent:main:direct:unknown');
    expect(second.sessionKey).toBe(first.sessionKey);
    expect(resolveAgentRoute({ config, channel: 'x', peer: { kind: 'group', id: '' } }).sessionKey).toBe(
      'agent:main:x:group:unknown',
    );
  });

  it('14. DMs and the main session share one key, so the DM records its last route on the main session', () => {
    const dm = resolveAgentRoute({
      config: {},
      channel: 'telegram',
      peer: { kind: 'direct', id: 'stranger' },
    });
    expect(dm.sessionKey).toBe(dm.mainSessionKey);
    expect(dm.lastRoutePolicy).toBe('main');
    expect(resolveInboundLastRouteSessionKey({ route: dm, sessionKey: dm.sessionKey })).toBe(
      'agent:main:main',
    );
    const isolated = resolveAgentRoute({
      config: { session: { dmScope: 'per-peer' } },
      channel: 'telegram',
      peer: { kind: 'direct', id: 'stranger' },
    });
    expect(isolated.lastRoutePolicy).toBe('session');
    expect(resolveInboundLastRouteSessionKey({ route: isolated, sessionKey: isolated.sessionKey })).toBe(
      'agent:main:direct:stranger',
    );
  });
});
