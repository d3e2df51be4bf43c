// The fast resolver against the naive reference (reference-resolver.ts, a plain scan
// written from the spec) on a large realistic config and on hand-picked odd inputs.
import {
  type AgentBinding,
  createRouteResolver,
  type ResolveAgentRouteInput,
  type RoutingConfig,
} from '@switchboard/routing';
import { describe, expect, it } from 'vitest';
import { referenceResolve } from './reference-resolver.ts';
import { CHANNELS, createLargeConfig, createRandom, sampleInput } from './route-fixtures.ts';

function expectSameAnswers(
  inputs: readonly ResolveAgentRouteInput[],
  resolve: (input: ResolveAgentRouteInput) => unknown,
): void {
  for (const input of inputs) {
    const fast = resolve(input);
    const expected = referenceResolve(input);
    if (JSON.stringify(fast) !== JSON.stringify(expected)) {
      expect({ input: { ...input, config: '<config>' }, fast }).toEqual({
        input: { ...input, config: '<config>' },
        fast: expected,
      });
    }
  }
}

const oddBindings: unknown[] = [
  { agentId: 'Peer Agent', match: { channel: ' Discord ', peer: { kind: 'DM', id: ' U1 ' } } },
  {
    agentId: 'rooms',
    match: { channel: 'discord', accountId: '*', peer: { kind: 'group', id: 'R1' }, teamId: 'T' },
  },
  {
    agentId: 'wild',
    match: { channel: 'discord', accountId: 'Bot Main', peer: { kind: 'channel', id: '*' } },
  },
  { agentId: 'mods', match: { channel: 'discord', guildId: 'G', roles: ['mod', 'admin'] } },
  { agentId: 'guild', match: { channel: 'discord', guildId: 'G', roles: [] } },
  { agentId: 'roles-only', match: { channel: 'discord', accountId: '_prod', roles: ['vip'] } },
  { agentId: 'team', match: { channel: 'slack', teamId: 'T', accountId: '*' } },
  { agentId: 'bad-peer', match: { channel: 'slack', peer: { kind: 'thread', id: 'x' } } },
  { agentId: 'no-channel', match: { channel: '' } },
  { type: 'acp', agentId: 'codex', match: { channel: 'discord', peer: { kind: 'channel', id: 'R1' } } },
  {
    agentId: 'isolated',
    match: { channel: 'telegram', peer: { kind: 'direct', id: '111' } },
    session: { dmScope: 'per-account-channel-peer' },
  },
  { agentId: 'unknown-agent', match: { channel: 'telegram', accountId: 'ops' } },
  { agentId: 'main', match: { channel: 'signal', accountId: '*' }, session: { dmScope: 'main' } },
];

const oddConfig: RoutingConfig = {
  agents: {
    list: [
      { id: 'Peer Agent' },
      { id: 'rooms' },
      { id: 'wild' },
      { id: 'mods', default: true },
      { id: 'guild' },
      { id: 'roles-only' },
      { id: 'team' },
      { id: 'isolated' },
      { id: 'main' },
    ],
  },
  bindings: oddBindings as AgentBinding[],
  session: {
    dmScope: 'per-channel-peer',
    mainKey: 'Desk',
    identityLinks: { ' Alice ': ['telegram:111', 'U1'], bob: ['discord:u1', 'unknown'] },
  },
};

function oddInputs(config: RoutingConfig): ResolveAgentRouteInput[] {
  const peers = [
    undefined,
    null,
    { kind: 'direct', id: 'U1' },
    { kind: 'dm', id: ' U1 ' },
    { kind: 'direct', id: 'u1' },
    { kind: 'direct', id: '' },
    { kind: 'direct', id: 111 },
    { kind: 'group', id: 'R1' },
    { kind: 'channel', id: 'R1' },
    { kind: 'GROUP', id: 'R2' },
    { kind: 'thread', id: 'x' },
    { id: 'kindless' },
  ] as Array<ResolveAgentRouteInput['peer']>;
  const inputs: ResolveAgentRouteInput[] = [];
  for (const channel of ['discord', 'Discord ', 'slack', 'telegram', 'signal', 'matrix', '']) {
    for (const accountId of [undefined, null, '', 'bot-main', 'Bot Main', '_prod', 'ops', '__proto__']) {
      for (const peer of peers) {
        inputs.push({ config, channel, accountId, peer });
        inputs.push({
          config,
          channel,
          accountId,
          peer,
          parentPeer: { kind: 'channel', id: 'R1' },
          guildId: 'G',
          teamId: 'T',
          memberRoleIds: ['vip', 'admin'],
        });
        inputs.push({ config, channel, accountId, peer, guildId: 'G', memberRoleIds: ['mod'] });
      }
    }
  }
  return inputs;
}

describe('fast resolver against the naive reference', () => {
  it('agrees on 1,000 realistic messages over 1,000 bindings, cached, re-served from cache, and uncached', () => {
    const fixture = createLargeConfig(3);
    const random = createRandom(99);
    const inputs = Array.from({ length: 1_000 }, () => sampleInput(fixture, random));
    const cached = createRouteResolver({ indexCapacity: 16, routeCacheCapacity: 500 });
    expectSameAnswers(inputs, cached.resolveAgentRoute);
    expectSameAnswers(inputs, cached.resolveAgentRoute);
    expectSameAnswers(inputs, createRouteResolver({ routeCacheCapacity: 0 }).resolveAgentRoute);
    expect(cached.stats(fixture.config)?.routeCacheHits).toBeGreaterThan(0);
    expect(new Set(inputs.map((input) => referenceResolve(input).matchedBy)).size).toBe(9);
    expect(CHANNELS).toHaveLength(10);
  });

  it('agrees on odd spellings, empty and numeric ids, unknown kinds, ACP and invalid bindings', () => {
    const inputs = oddInputs(oddConfig);
    const resolver = createRouteResolver();
    expectSameAnswers(inputs, resolver.resolveAgentRoute);
    expectSameAnswers(inputs, resolver.resolveAgentRoute);
    expectSameAnswers(inputs, createRouteResolver({ routeCacheCapacity: 0 }).resolveAgentRoute);
  });

  it('agrees without a roster and under every dmScope', () => {
    for (const dmScope of ['main', 'per-peer', 'per-channel-peer', 'per-account-channel-peer'] as const) {
      const config: RoutingConfig = {
        bindings: oddBindings as AgentBinding[],
        session: { dmScope, identityLinks: { carol: ['U1', 'signal:u1'] } },
      };
      expectSameAnswers(oddInputs(config), createRouteResolver().resolveAgentRoute);
    }
  });
});
