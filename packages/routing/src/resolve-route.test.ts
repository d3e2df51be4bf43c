import { describe, expect, it } from 'vitest';
import type { AgentBinding, RoutingConfig } from './config.ts';
import {
  type ResolveAgentRouteInput,
  resolveAgentRoute,
  resolveInboundLastRouteSessionKey,
} from './resolve-route.ts';

type Input = Omit<ResolveAgentRouteInput, 'config'>;

function withBindings(bindings: unknown[], rest: Partial<RoutingConfig> = {}): RoutingConfig {
  return { ...rest, bindings: bindings as AgentBinding[] };
}

function route(config: RoutingConfig, input: Input) {
  return resolveAgentRoute({ config, ...input });
}

function picked(config: RoutingConfig, input: Input): [string, string] {
  const resolved = route(config, input);
  return [resolved.agentId, resolved.matchedBy];
}

const discordGuild = { channel: 'discord', guildId: 'G1' } as const;

describe('resolveAgentRoute', () => {
  it('returns exactly the documented shape', () => {
    const resolved = route(
      {},
      { channel: 'Telegram', accountId: ' Ops ', peer: { kind: 'direct', id: '111' } },
    );
    expect(resolved).toEqual({
      agentId: 'main',
      channel: 'telegram',
      accountId: 'ops',
      sessionKey: 'agent:main:main',
      mainSessionKey: 'agent:main:main',
      lastRoutePolicy: 'main',
      matchedBy: 'default',
    });
    expect(Object.keys(resolved)).toEqual([
      'agentId',
      'channel',
      'accountId',
      'sessionKey',
      'mainSessionKey',
      'lastRoutePolicy',
      'matchedBy',
    ]);
  });

  it('tier 1, binding.peer: the exact peer wins over every other tier', () => {
    const config = withBindings([
      { agentId: 'channel-wide', match: { channel: 'discord', accountId: '*' } },
      { agentId: 'guild', match: { channel: 'discord', guildId: 'G1' } },
      { agentId: 'wild', match: { channel: 'discord', peer: { kind: 'channel', id: '*' } } },
      { agentId: 'room', match: { channel: 'discord', peer: { kind: 'channel', id: 'C1' } } },
    ]);
    expect(picked(config, { ...discordGuild, peer: { kind: 'channel', id: 'C1' } })).toEqual([
      'room',
      'binding.peer',
    ]);
    expect(picked(config, { ...discordGuild, peer: { kind: 'channel', id: 'C2' } })).toEqual([
      'wild',
      'binding.peer.wildcard',
    ]);
  });

  it('tier 1: peer ids match exactly after trimming, case-sensitively', () => {
    const config = withBindings([
      { agentId: 'lower', match: { channel: 'slack', peer: { kind: 'channel', id: ' c1 ' } } },
    ]);
    expect(picked(config, { channel: 'slack', peer: { kind: 'channel', id: 'c1 ' } })).toEqual([
      'lower',
      'binding.peer',
    ]);
    expect(picked(config, { channel: 'slack', peer: { kind: 'channel', id: 'C1' } })).toEqual([
      'main',
      'default',
    ]);
  });

  it('tier 1: numeric peer ids are compared as strings', () => {
    const config = withBindings([
      { agentId: 'n', match: { channel: 'telegram', peer: { kind: 'group', id: '-1001' } } },
    ]);
    expect(picked(config, { channel: 'telegram', peer: { kind: 'group', id: -1001 } })).toEqual([
      'n',
      'binding.peer',
    ]);
  });

  it('peer kinds: dm is direct, in bindings and in inputs, whatever the case', () => {
    const config = withBindings([
      { agentId: 'legacy', match: { channel: 'whatsapp', peer: { kind: 'dm', id: '+1555' } } },
      { agentId: 'modern', match: { channel: 'whatsapp', peer: { kind: 'direct', id: '+1666' } } },
    ]);
    expect(picked(config, { channel: 'whatsapp', peer: { kind: 'direct', id: '+1555' } })).toEqual([
      'legacy',
      'binding.peer',
    ]);
    expect(picked(config, { channel: 'whatsapp', peer: { kind: 'dm', id: '+1666' } })).toEqual([
      'modern',
      'binding.peer',
    ]);
    expect(picked(config, { channel: 'whatsapp', peer: { kind: 'DM' as 'dm', id: '+1666' } })).toEqual([
      'modern',
      'binding.peer',
    ]);
  });

  it('peer kinds: group and channel match each other; direct matches only direct', () => {
    const config = withBindings([
      { agentId: 'g', match: { channel: 'x', peer: { kind: 'group', id: 'R1' } } },
      { agentId: 'c', match: { channel: 'x', peer: { kind: 'channel', id: 'R2' } } },
      { agentId: 'd', match: { channel: 'x', peer: { kind: 'direct', id: 'R3' } } },
    ]);
    expect(picked(config, { channel: 'x', peer: { kind: 'channel', id: 'R1' } })).toEqual([
      'g',
      'binding.peer',
    ]);
    expect(picked(config, { channel: 'x', peer: { kind: 'group', id: 'R2' } })).toEqual([
      'c',
      'binding.peer',
    ]);
    expect(picked(config, { channel: 'x', peer: { kind: 'group', id: 'R3' } })).toEqual(['main', 'default']);
    expect(picked(config, { channel: 'x', peer: { kind: 'direct', id: 'R1' } })).toEqual(['main', 'default']);
  });

  it('tier 2, binding.peer.parent: a thread inherits its parent binding but keeps its own key', () => {
    const config = withBindings([
      { agentId: 'guild', match: { channel: 'discord', guildId: 'G1' } },
      { agentId: 'parent', match: { channel: 'discord', peer: { kind: 'channel', id: 'P1' } } },
      { agentId: 'wild', match: { channel: 'discord', peer: { kind: 'channel', id: '*' } } },
    ]);
    const resolved = route(config, {
      ...discordGuild,
      peer: { kind: 'channel', id: 'T1' },
      parentPeer: { kind: 'channel', id: 'P1' },
    });
    expect([resolved.agentId, resolved.matchedBy]).toEqual(['parent', 'binding.peer.parent']);
    expect(resolved.sessionKey).toBe('agent:parent:discord:channel:t1');
  });

  it('tier 2: an exact binding on the thread wins over its parent', () => {
    const config = withBindings([
      { agentId: 'parent', match: { channel: 'discord', peer: { kind: 'channel', id: 'P1' } } },
      { agentId: 'thread', match: { channel: 'discord', peer: { kind: 'channel', id: 'T1' } } },
    ]);
    expect(
      picked(config, {
        channel: 'discord',
        peer: { kind: 'channel', id: 'T1' },
        parentPeer: { kind: 'channel', id: 'P1' },
      }),
    ).toEqual(['thread', 'binding.peer']);
  });

  it('tier 2: a parent peer with an empty id is ignored and the lower tiers decide', () => {
    const config = withBindings([
      { agentId: 'parent', match: { channel: 'discord', peer: { kind: 'channel', id: '' } } },
      { agentId: 'wild', match: { channel: 'discord', peer: { kind: 'channel', id: '*' } } },
    ]);
    expect(
      picked(config, {
        channel: 'discord',
        peer: { kind: 'channel', id: 'T1' },
        parentPeer: { kind: 'channel', id: '  ' },
      }),
    ).toEqual(['wild', 'binding.peer.wildcard']);
  });

  it('tier 2: the parent is matched by peer, while guild, team and roles are the inbound ones', () => {
    const config = withBindings([
      {
        agentId: 'parent-in-g1',
        match: { channel: 'discord', guildId: 'G1', peer: { kind: 'channel', id: 'P1' } },
      },
    ]);
    const thread = { peer: { kind: 'channel', id: 'T1' }, parentPeer: { kind: 'group', id: 'P1' } } as const;
    expect(picked(config, { channel: 'discord', guildId: 'G1', ...thread })).toEqual([
      'parent-in-g1',
      'binding.peer.parent',
    ]);
    expect(picked(config, { channel: 'discord', guildId: 'G2', ...thread })).toEqual(['main', 'default']);
  });

  it('tier 3, binding.peer.wildcard: any peer of the kind, group and channel interchangeable', () => {
    const config = withBindings([
      { agentId: 'dms', match: { channel: 'feishu', peer: { kind: 'direct', id: '*' } } },
      { agentId: 'rooms', match: { channel: 'feishu', peer: { kind: 'group', id: ' * ' } } },
    ]);
    expect(picked(config, { channel: 'feishu', peer: { kind: 'direct', id: 'u1' } })).toEqual([
      'dms',
      'binding.peer.wildcard',
    ]);
    expect(picked(config, { channel: 'feishu', peer: { kind: 'channel', id: 'c1' } })).toEqual([
      'rooms',
      'binding.peer.wildcard',
    ]);
    expect(picked(config, { channel: 'feishu' })).toEqual(['main', 'default']);
  });

  it('tier 3: a peer with an empty id still meets wildcard bindings', () => {
    const config = withBindings([
      { agentId: 'dms', match: { channel: 'x', peer: { kind: 'direct', id: '*' } } },
    ]);
    expect(picked(config, { channel: 'x', peer: { kind: 'direct', id: '' } })).toEqual([
      'dms',
      'binding.peer.wildcard',
    ]);
  });

  it('tier 4, binding.guild+roles: needs the guild and any one listed role, and beats the plain guild', () => {
    const config = withBindings([
      { agentId: 'guild', match: { channel: 'discord', guildId: 'G1' } },
      { agentId: 'mods', match: { channel: 'discord', guildId: 'G1', roles: ['R-mod', 'R-admin'] } },
    ]);
    expect(picked(config, { ...discordGuild, memberRoleIds: ['R-x', 'R-admin'] })).toEqual([
      'mods',
      'binding.guild+roles',
    ]);
    expect(picked(config, { ...discordGuild, memberRoleIds: ['R-x'] })).toEqual(['guild', 'binding.guild']);
    expect(picked(config, { ...discordGuild, memberRoleIds: [] })).toEqual(['guild', 'binding.guild']);
    expect(picked(config, { channel: 'discord', guildId: 'G2', memberRoleIds: ['R-mod'] })).toEqual([
      'main',
      'default',
    ]);
  });

  it('tier 4: role ids are compared exactly', () => {
    const config = withBindings([
      { agentId: 'mods', match: { channel: 'discord', guildId: 'G1', roles: ['Mod'] } },
    ]);
    expect(picked(config, { ...discordGuild, memberRoleIds: ['mod'] })).toEqual(['main', 'default']);
    expect(picked(config, { ...discordGuild, memberRoleIds: ['Mod'] })).toEqual([
      'mods',
      'binding.guild+roles',
    ]);
  });

  it('tier 5, binding.guild: guild ids are trimmed and case-sensitive; numbers become strings', () => {
    const config = withBindings([
      { agentId: 'guild', match: { channel: 'discord', guildId: ' 123456789012345678 ' } },
    ]);
    expect(picked(config, { channel: 'discord', guildId: 123456789012345678n })).toEqual([
      'guild',
      'binding.guild',
    ]);
    const named = withBindings([{ agentId: 'guild', match: { channel: 'discord', guildId: 'Gx' } }]);
    expect(picked(named, { channel: 'discord', guildId: 'gx' })).toEqual(['main', 'default']);
  });

  it('tier 5: a guild binding with a team needs both', () => {
    const config = withBindings([{ agentId: 'both', match: { channel: 'x', guildId: 'G1', teamId: 'T1' } }]);
    expect(picked(config, { channel: 'x', guildId: 'G1', teamId: 'T1' })).toEqual(['both', 'binding.guild']);
    expect(picked(config, { channel: 'x', guildId: 'G1' })).toEqual(['main', 'default']);
    expect(picked(config, { channel: 'x', teamId: 'T1' })).toEqual(['main', 'default']);
  });

  it('tier 6, binding.team: matches the team, and any roles it lists', () => {
    const config = withBindings([
      { agentId: 'leads', match: { channel: 'slack', teamId: 'T1', roles: ['lead'] } },
      { agentId: 'team', match: { channel: 'slack', teamId: 'T1' } },
    ]);
    expect(picked(config, { channel: 'slack', teamId: 'T1', memberRoleIds: ['lead'] })).toEqual([
      'leads',
      'binding.team',
    ]);
    expect(picked(config, { channel: 'slack', teamId: 'T1' })).toEqual(['team', 'binding.team']);
    expect(picked(config, { channel: 'slack', teamId: 'T2' })).toEqual(['main', 'default']);
  });

  it('tier 7, binding.account: named accounts, and the default account when accountId is omitted', () => {
    const config = withBindings([
      { agentId: 'biz', match: { channel: 'whatsapp', accountId: 'BIZ' } },
      { agentId: 'personal', match: { channel: 'whatsapp' } },
      { agentId: 'bot-main', match: { channel: 'whatsapp', accountId: 'Bot Main' } },
    ]);
    expect(picked(config, { channel: 'whatsapp', accountId: ' biz ' })).toEqual(['biz', 'binding.account']);
    expect(picked(config, { channel: 'whatsapp' })).toEqual(['personal', 'binding.account']);
    expect(picked(config, { channel: 'whatsapp', accountId: 'default' })).toEqual([
      'personal',
      'binding.account',
    ]);
    expect(picked(config, { channel: 'whatsapp', accountId: 'bot-main' })).toEqual([
      'bot-main',
      'binding.account',
    ]);
    expect(picked(config, { channel: 'whatsapp', accountId: 'other' })).toEqual(['main', 'default']);
  });

  it('tier 8, binding.channel: accountId "*" matches every account, the default one included', () => {
    const config = withBindings([{ agentId: 'all', match: { channel: 'telegram', accountId: ' * ' } }]);
    expect(picked(config, { channel: 'telegram', accountId: 'ops' })).toEqual(['all', 'binding.channel']);
    expect(picked(config, { channel: 'telegram' })).toEqual(['all', 'binding.channel']);
  });

  it('"*" combines with more specific fields and then sits in their tier for every account', () => {
    const config = withBindings([
      { agentId: 'any-team', match: { channel: 'slack', accountId: '*', teamId: 'T1' } },
      {
        agentId: 'any-peer',
        match: { channel: 'slack', accountId: '*', peer: { kind: 'channel', id: 'C1' } },
      },
    ]);
    expect(picked(config, { channel: 'slack', accountId: 'a', teamId: 'T1' })).toEqual([
      'any-team',
      'binding.team',
    ]);
    expect(picked(config, { channel: 'slack', accountId: 'b', peer: { kind: 'channel', id: 'C1' } })).toEqual(
      ['any-peer', 'binding.peer'],
    );
  });

  it('tier 9, default: the first default:true agent, else the first listed, else main', () => {
    const roster = (list: unknown[]) => ({ agents: { list } }) as RoutingConfig;
    expect(
      picked(roster([{ id: 'a' }, { id: 'B', default: true }, { id: 'c', default: true }]), { channel: 'x' }),
    ).toEqual(['b', 'default']);
    expect(picked(roster([{ id: 'First' }, { id: 'second' }]), { channel: 'x' })).toEqual([
      'first',
      'default',
    ]);
    expect(picked(roster([]), { channel: 'x' })).toEqual(['main', 'default']);
    expect(picked({}, { channel: 'x' })).toEqual(['main', 'default']);
  });

  it('within a tier the first binding in config order wins, account-specific or "*" alike', () => {
    const anyFirst = withBindings([
      { agentId: 'any', match: { channel: 'x', accountId: '*', guildId: 'G' } },
      { agentId: 'ops', match: { channel: 'x', accountId: 'ops', guildId: 'G' } },
    ]);
    const opsFirst = withBindings([
      { agentId: 'ops', match: { channel: 'x', accountId: 'ops', guildId: 'G' } },
      { agentId: 'any', match: { channel: 'x', accountId: '*', guildId: 'G' } },
    ]);
    expect(picked(anyFirst, { channel: 'x', accountId: 'ops', guildId: 'G' })).toEqual([
      'any',
      'binding.guild',
    ]);
    expect(picked(opsFirst, { channel: 'x', accountId: 'ops', guildId: 'G' })).toEqual([
      'ops',
      'binding.guild',
    ]);
    const sameTier = withBindings([
      { agentId: 'first', match: { channel: 'x', peer: { kind: 'direct', id: 'u' } } },
      { agentId: 'second', match: { channel: 'x', peer: { kind: 'direct', id: 'u' } } },
    ]);
    expect(picked(sameTier, { channel: 'x', peer: { kind: 'direct', id: 'u' } })).toEqual([
      'first',
      'binding.peer',
    ]);
  });

  it('a later binding in a higher tier beats an earlier binding in a lower tier', () => {
    const config = withBindings([
      { agentId: 'account', match: { channel: 'x' } },
      { agentId: 'peer', match: { channel: 'x', peer: { kind: 'direct', id: 'u' } } },
    ]);
    expect(picked(config, { channel: 'x', peer: { kind: 'direct', id: 'u' } })).toEqual([
      'peer',
      'binding.peer',
    ]);
  });

  it('bindings of other channels and other accounts are never considered', () => {
    const config = withBindings([
      { agentId: 'slack-peer', match: { channel: 'slack', peer: { kind: 'direct', id: 'u' } } },
      {
        agentId: 'other-account',
        match: { channel: 'discord', accountId: 'b', peer: { kind: 'direct', id: 'u' } },
      },
    ]);
    expect(picked(config, { channel: 'discord', accountId: 'a', peer: { kind: 'direct', id: 'u' } })).toEqual(
      ['main', 'default'],
    );
  });

  it('channels are compared trimmed and lowercased; empty binding channels never match', () => {
    const config = withBindings([
      { agentId: 'empty', match: { channel: '  ' } },
      { agentId: 'disc', match: { channel: ' Discord ' } },
    ]);
    expect(picked(config, { channel: 'DISCORD' })).toEqual(['disc', 'binding.account']);
    expect(picked(config, { channel: '' })).toEqual(['main', 'default']);
  });

  it('an empty inbound channel becomes unknown inside keys', () => {
    const resolved = route({}, { channel: '', peer: { kind: 'group', id: 'x' } });
    expect(resolved.channel).toBe('');
    expect(resolved.sessionKey).toBe('agent:main:unknown:group:x');
  });

  it('agents: with no roster the binding agent is used normalized', () => {
    const config = withBindings([{ agentId: 'SupportTeam', match: { channel: 'x' } }]);
    expect(route(config, { channel: 'x' }).agentId).toBe('supportteam');
    expect(route(config, { channel: 'x' }).sessionKey).toBe('agent:supportteam:main');
  });

  it('agents: with a roster the binding agent is matched case-insensitively to its canonical id', () => {
    const config = withBindings([{ agentId: ' WORK ', match: { channel: 'x' } }], {
      agents: { list: [{ id: 'home', default: true }, { id: 'Work' }] },
    });
    expect(route(config, { channel: 'x' }).agentId).toBe('work');
  });

  it('agents: an unknown agent in an unvalidated config falls back to the default, keeping the tier (2026.6)', () => {
    const config = withBindings([{ agentId: 'ghost', match: { channel: 'x' } }], {
      agents: { list: [{ id: 'home' }, { id: 'work', default: true }] },
    });
    expect(picked(config, { channel: 'x' })).toEqual(['work', 'binding.account']);
    const blank = withBindings([{ agentId: ' ', match: { channel: 'x' } }]);
    expect(picked(blank, { channel: 'x' })).toEqual(['main', 'binding.account']);
  });

  it('a binding session.dmScope replaces the global one for the DMs it routes, in both directions', () => {
    const isolate = withBindings(
      [
        {
          agentId: 'main',
          match: { channel: 'discord', peer: { kind: 'direct', id: 'U1' } },
          session: { dmScope: 'per-channel-peer' },
        },
      ],
      { session: { dmScope: 'main' } },
    );
    expect(route(isolate, { channel: 'discord', peer: { kind: 'direct', id: 'U1' } }).sessionKey).toBe(
      'agent:main:discord:direct:u1',
    );
    expect(route(isolate, { channel: 'discord', peer: { kind: 'direct', id: 'U2' } }).sessionKey).toBe(
      'agent:main:main',
    );
    const collapse = withBindings(
      [{ agentId: 'main', match: { channel: 'discord' }, session: { dmScope: 'main' } }],
      { session: { dmScope: 'per-peer' } },
    );
    expect(route(collapse, { channel: 'discord', peer: { kind: 'direct', id: 'U1' } }).sessionKey).toBe(
      'agent:main:main',
    );
    expect(route(collapse, { channel: 'slack', peer: { kind: 'direct', id: 'U1' } }).sessionKey).toBe(
      'agent:main:direct:u1',
    );
    expect(route(collapse, { channel: 'discord', peer: { kind: 'group', id: 'R' } }).sessionKey).toBe(
      'agent:main:discord:group:r',
    );
  });

  it('every dmScope, through the resolver', () => {
    const key = (dmScope: 'main' | 'per-peer' | 'per-channel-peer' | 'per-account-channel-peer') =>
      route(
        { session: { dmScope } },
        { channel: 'Telegram', accountId: 'Ops', peer: { kind: 'direct', id: 'U9' } },
      ).sessionKey;
    expect(key('main')).toBe('agent:main:main');
    expect(key('per-peer')).toBe('agent:main:direct:u9');
    expect(key('per-channel-peer')).toBe('agent:main:telegram:direct:u9');
    expect(key('per-account-channel-peer')).toBe('agent:main:telegram:ops:direct:u9');
  });

  it('session.mainKey names the main session', () => {
    const resolved = route(
      { session: { mainKey: ' Desk ' } },
      { channel: 'x', peer: { kind: 'direct', id: 'u' } },
    );
    expect(resolved.sessionKey).toBe('agent:main:desk');
    expect(resolved.mainSessionKey).toBe('agent:main:desk');
  });

  it('identity links unify a person across channels under per-peer', () => {
    const config: RoutingConfig = {
      session: { dmScope: 'per-peer', identityLinks: { Alice: ['telegram:111', 'discord:222'] } },
    };
    expect(route(config, { channel: 'telegram', peer: { kind: 'direct', id: '111' } }).sessionKey).toBe(
      'agent:main:direct:alice',
    );
    expect(route(config, { channel: 'discord', peer: { kind: 'direct', id: '222' } }).sessionKey).toBe(
      'agent:main:direct:alice',
    );
    expect(route(config, { channel: 'discord', peer: { kind: 'direct', id: '111' } }).sessionKey).toBe(
      'agent:main:direct:111',
    );
  });

  it('identity links never change the agent: routing uses the raw peer id', () => {
    const config = withBindings(
      [
        { agentId: 'by-raw', match: { channel: 'telegram', peer: { kind: 'direct', id: '111' } } },
        { agentId: 'by-name', match: { channel: 'telegram', peer: { kind: 'direct', id: 'alice' } } },
      ],
      { session: { dmScope: 'per-peer', identityLinks: { alice: ['telegram:111'] } } },
    );
    const resolved = route(config, { channel: 'telegram', peer: { kind: 'direct', id: '111' } });
    expect([resolved.agentId, resolved.sessionKey]).toEqual(['by-raw', 'agent:by-raw:direct:alice']);
  });

  it('ACP bindings and malformed entries are not routing bindings; a non-array bindings value is empty', () => {
    const config = withBindings([
      { type: 'acp', agentId: 'codex', match: { channel: 'discord', peer: { kind: 'channel', id: 'C1' } } },
      null,
      'junk',
      { agentId: 'no-match-object' },
      { type: 'route', agentId: 'routed', match: { channel: 'discord' } },
    ]);
    expect(picked(config, { channel: 'discord', peer: { kind: 'channel', id: 'C1' } })).toEqual([
      'routed',
      'binding.account',
    ]);
    expect(picked({ bindings: {} as unknown as AgentBinding[] }, { channel: 'discord' })).toEqual([
      'main',
      'default',
    ]);
  });

  it('bindings whose peer is invalid never match, in any tier', () => {
    const config = withBindings([
      { agentId: 'bad-kind', match: { channel: 'x', peer: { kind: 'thread', id: 'u' }, guildId: 'G' } },
      { agentId: 'no-id', match: { channel: 'x', peer: { kind: 'direct', id: ' ' } } },
    ]);
    expect(picked(config, { channel: 'x', guildId: 'G', peer: { kind: 'direct', id: 'u' } })).toEqual([
      'main',
      'default',
    ]);
  });

  it('peers of kinds routing does not know match no peer binding and keep their kind in the key', () => {
    const config = withBindings([
      { agentId: 'wild', match: { channel: 'x', peer: { kind: 'direct', id: '*' } } },
    ]);
    const odd = route(config, { channel: 'x', peer: { kind: 'Thread' as 'group', id: 'AB' } });
    expect([odd.matchedBy, odd.sessionKey]).toEqual(['default', 'agent:main:x:thread:ab']);
    const kindless = route(
      { ...config, session: { dmScope: 'per-peer' } },
      { channel: 'x', peer: { id: 'AB' } as unknown as { kind: 'direct'; id: string } },
    );
    expect([kindless.matchedBy, kindless.sessionKey]).toEqual(['default', 'agent:main:direct:ab']);
  });

  it('resolveInboundLastRouteSessionKey records on the main session under the main policy', () => {
    const dm = route({}, { channel: 'x', peer: { kind: 'direct', id: 'u' } });
    expect(resolveInboundLastRouteSessionKey({ route: dm, sessionKey: 'agent:main:x:thread:1' })).toBe(
      'agent:main:main',
    );
    const group = route({}, { channel: 'x', peer: { kind: 'group', id: 'g' } });
    expect(group.lastRoutePolicy).toBe('session');
    expect(
      resolveInboundLastRouteSessionKey({ route: group, sessionKey: 'agent:main:x:group:g:thread:1' }),
    ).toBe('agent:main:x:group:g:thread:1');
  });
});
