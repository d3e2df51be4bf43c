import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentEntrySchema,
  agentsConfigSchema,
  bindingsSchema,
  checkRoutingConfig,
  parseRoutingConfig,
  type RoutingConfig,
  routingConfigSchema,
  sessionConfigSchema,
} from './config.ts';
import { RoutingError } from './errors.ts';

function parseError(raw: unknown): RoutingError {
  try {
    parseRoutingConfig(raw);
  } catch (error) {
    if (error instanceof RoutingError) return error;
    throw error;
  }
  throw new Error('expected parseRoutingConfig to throw');
}

const validConfig = {
  gateway: { port: 18789 },
  agents: {
    defaults: { model: 'anthropic/claude-sonnet' },
    list: [
      { id: 'home', default: true, name: 'Home', workspace: '~/.switchboard/workspace-home' },
      { id: 'Work', model: 'anthropic/claude-opus' },
    ],
  },
  bindings: [
    { agentId: 'work', match: { channel: 'whatsapp', accountId: 'biz' } },
    {
      type: 'route',
      agentId: 'HOME',
      comment: 'DMs from my phone',
      match: { channel: 'telegram', peer: { kind: 'dm', id: '111' } },
      session: { dmScope: 'per-peer' },
    },
    {
      type: 'acp',
      agentId: 'work',
      match: { channel: 'discord', peer: { kind: 'channel', id: 'C1' } },
      acp: { mode: 'persistent', cwd: '/repo' },
    },
  ],
  session: {
    dmScope: 'per-channel-peer',
    identityLinks: { alice: ['telegram:111', 'discord:222'] },
    mainKey: 'main',
    reset: { mode: 'daily', atHour: 4 },
    store: '~/.switchboard/sessions',
  },
};

describe('routing config', () => {
  it('accepts the OpenClaw shape and keeps keys owned by other packages', () => {
    const { config, warnings } = parseRoutingConfig(validConfig);
    expect(warnings).toEqual([]);
    expect(config.gateway).toEqual({ port: 18789 });
    expect(config.agents?.defaults).toEqual({ model: 'anthropic/claude-sonnet' });
    expect(config.agents?.list?.[0]?.workspace).toBe('~/.switchboard/workspace-home');
    expect(config.agents?.list?.[1]?.model).toBe('anthropic/claude-opus');
    expect(config.session?.reset).toEqual({ mode: 'daily', atHour: 4 });
    expect(config.session?.store).toBe('~/.switchboard/sessions');
    expect(config.bindings).toHaveLength(3);
  });

  it('accepts an empty config and a config without agents.list', () => {
    expect(parseRoutingConfig({}).config).toEqual({});
    const { config, warnings } = parseRoutingConfig({
      bindings: [{ agentId: 'AnyAgent', match: { channel: 'slack' } }],
    });
    expect(config.bindings?.[0]?.agentId).toBe('AnyAgent');
    expect(warnings).toEqual([]);
  });

  it('rejects unknown keys in a binding match, naming the key path and the allowed keys', () => {
    const error = parseError({ bindings: [{ agentId: 'a', match: { channel: 'x', guild: '1' } }] });
    expect(error.code).toBe('ROUTING_INVALID_CONFIG');
    expect(error.message).toContain(
      'bindings[0].match.guild: unknown key: expected only channel, accountId, peer',
    );
    expect(error.problems).toEqual([
      {
        path: 'bindings[0].match.guild',
        message: 'unknown key: expected only channel, accountId, peer, guildId, teamId, roles',
      },
    ]);
  });

  it('rejects unknown keys on a binding and its peer and session', () => {
    const error = parseError({
      bindings: [
        { agentId: 'a', match: { channel: 'x', peer: { kind: 'group', id: '1', name: 'g' } } },
        { agentId: 'a', match: { channel: 'x' }, session: { groupScope: 'main' } },
        { agentId: 'a', match: { channel: 'x' }, priority: 1 },
      ],
    });
    expect(error.problems.map((problem) => problem.path)).toEqual([
      'bindings[0].match.peer.name',
      'bindings[1].session.groupScope',
      'bindings[2].priority',
    ]);
  });

  it('names the expected values of enums', () => {
    const error = parseError({
      bindings: [{ agentId: 'a', match: { channel: 'x', peer: { kind: 'user', id: '1' } } }],
      session: { dmScope: 'per-user' },
    });
    expect(error.problems).toEqual([
      {
        path: 'bindings[0].match.peer.kind',
        message: 'expected one of "direct", "group", "channel", "dm", got "user"',
      },
      {
        path: 'session.dmScope',
        message:
          'expected one of "main", "per-peer", "per-channel-peer", "per-account-channel-peer", got "per-user"',
      },
    ]);
  });

  it('names missing and mistyped values', () => {
    const error = parseError({
      agents: { list: [{ name: 'no id' }, { id: 3 }] },
      bindings: [{ match: { channel: 'x' } }, { agentId: 'a', match: { channel: 'x', roles: 'admin' } }],
      session: { identityLinks: { 'alice smith': 'telegram:1' } },
    });
    expect(error.problems).toEqual([
      { path: 'agents.list[0].id', message: 'expected a string, got nothing' },
      { path: 'agents.list[1].id', message: 'expected a string, got number 3' },
      { path: 'bindings[0].agentId', message: 'expected a string, got nothing' },
      { path: 'bindings[1].match.roles', message: 'expected an array, got "admin"' },
      { path: 'session.identityLinks["alice smith"]', message: 'expected an array, got "telegram:1"' },
    ]);
  });

  it('rejects a binding type other than route or acp', () => {
    const error = parseError({ bindings: [{ type: 'broadcast', agentId: 'a', match: { channel: 'x' } }] });
    expect(error.problems).toEqual([
      { path: 'bindings[0].type', message: 'expected "route" (or no type) or "acp", got "broadcast"' },
    ]);
  });

  it('requires ACP bindings to target a concrete peer', () => {
    const error = parseError({ bindings: [{ type: 'acp', agentId: 'a', match: { channel: 'discord' } }] });
    expect(error.problems).toEqual([
      {
        path: 'bindings[0].match.peer',
        message: 'expected a concrete peer ({ kind, id }): ACP bindings target one conversation',
      },
    ]);
  });

  it('rejects a non-object config and a non-array bindings value', () => {
    expect(parseError(null).problems).toEqual([{ path: '(root)', message: 'expected an object, got null' }]);
    expect(parseError({ bindings: {} }).problems).toEqual([
      { path: 'bindings', message: 'expected an array, got an object' },
    ]);
  });

  it('a binding naming no listed agent is an error naming its index', () => {
    const error = parseError({
      agents: { list: [{ id: 'home' }, { id: 'work', default: true }] },
      bindings: [
        { agentId: 'home', match: { channel: 'a' } },
        { agentId: 'WORK', match: { channel: 'b' } },
        { agentId: 'home', match: { channel: 'c' } },
        { agentId: 'ops', match: { channel: 'd' } },
      ],
    });
    expect(error.code).toBe('ROUTING_UNKNOWN_AGENT');
    expect(error.message).toBe(
      'Invalid routing config: bindings[3].agentId: expected one of the agents in agents.list (home, work), got "ops"',
    );
    expect(error.details).toEqual({ problems: error.problems });
  });

  it('matches binding agents to the roster after normalization', () => {
    const { config } = parseRoutingConfig({
      agents: { list: [{ id: 'Support Team' }] },
      bindings: [
        { agentId: 'support-team', match: { channel: 'a' } },
        { agentId: ' SUPPORT TEAM ', match: { channel: 'b' } },
      ],
    });
    expect(config.bindings).toHaveLength(2);
  });

  it('ACP bindings must name listed agents too', () => {
    const error = parseError({
      agents: { list: [{ id: 'main' }] },
      bindings: [
        { type: 'acp', agentId: 'codex', match: { channel: 'discord', peer: { kind: 'channel', id: 'C1' } } },
      ],
    });
    expect(error.code).toBe('ROUTING_UNKNOWN_AGENT');
    expect(error.problems[0]?.path).toBe('bindings[0].agentId');
  });

  it('agents whose ids normalize to the same id are an error naming both', () => {
    const error = parseError({ agents: { list: [{ id: 'work' }, { id: 'home' }, { id: ' WORK ' }] } });
    expect(error.code).toBe('ROUTING_DUPLICATE_AGENT');
    expect(error.problems).toEqual([
      {
        path: 'agents.list[2].id',
        message: 'expected a unique agent id, but " WORK " normalizes to "work", the id of agents.list[0]',
      },
    ]);
  });

  it('empty agent ids in the roster and in bindings are errors', () => {
    const error = parseError({
      agents: { list: [{ id: ' ' }, { id: 'main' }] },
      bindings: [{ agentId: '', match: { channel: 'x' } }],
    });
    expect(error.code).toBe('ROUTING_INVALID_CONFIG');
    expect(error.problems.map((problem) => problem.path)).toEqual([
      'agents.list[0].id',
      'bindings[0].agentId',
    ]);
  });

  it('several agents and no default: the first is the default, with a warning', () => {
    const { warnings } = parseRoutingConfig({ agents: { list: [{ id: 'home' }, { id: 'work' }] } });
    expect(warnings).toEqual([
      {
        code: 'ROUTING_DEFAULT_AGENT_IMPLICIT',
        path: 'agents.list',
        message:
          '2 agents and none is marked default: true; agents.list[0] ("home") receives every message no binding matches',
      },
    ]);
  });

  it('a single agent without default: true is simply the default', () => {
    expect(parseRoutingConfig({ agents: { list: [{ id: 'solo' }] } }).warnings).toEqual([]);
  });

  it('several agents marked default: the first wins, with a warning', () => {
    const { warnings } = parseRoutingConfig({
      agents: { list: [{ id: 'a' }, { id: 'b', default: true }, { id: 'c', default: true }] },
    });
    expect(warnings.map((warning) => [warning.code, warning.path])).toEqual([
      ['ROUTING_DEFAULT_AGENT_AMBIGUOUS', 'agents.list[2].default'],
    ]);
    expect(warnings[0]?.message).toContain('agents.list[1] is the default');
  });

  it('warns about agent ids used in normalized form', () => {
    const { warnings } = parseRoutingConfig({ agents: { list: [{ id: 'My Agent' }] } });
    expect(warnings).toEqual([
      {
        code: 'ROUTING_AGENT_ID_NORMALIZED',
        path: 'agents.list[0].id',
        message: '"My Agent" is not a safe id and is used as "my-agent"',
      },
    ]);
  });

  it('warns about bindings that can never match', () => {
    const { warnings } = parseRoutingConfig({
      bindings: [
        { agentId: 'a', match: { channel: ' ' } },
        { agentId: 'a', match: { channel: 'x', peer: { kind: 'group', id: '  ' } } },
      ],
    });
    expect(warnings.map((warning) => [warning.code, warning.path])).toEqual([
      ['ROUTING_BINDING_NEVER_MATCHES', 'bindings[0].match.channel'],
      ['ROUTING_BINDING_NEVER_MATCHES', 'bindings[1].match.peer.id'],
    ]);
  });

  it('warns when an identity is linked under two names', () => {
    const { warnings } = parseRoutingConfig({
      session: { identityLinks: { alice: ['telegram:1'], 'Alice B': ['TELEGRAM:1', 'telegram:2'] } },
    });
    expect(warnings).toEqual([
      {
        code: 'ROUTING_IDENTITY_LINK_SHADOWED',
        path: 'session.identityLinks["Alice B"][0]',
        message: '"telegram:1" is already linked to "alice", which wins',
      },
    ]);
  });

  it('the schemas compose into a larger config schema, and checkRoutingConfig validates the result', () => {
    const gatewaySchema = z.looseObject({
      gateway: z.strictObject({ port: z.number() }),
      agents: agentsConfigSchema
        .extend({ list: z.array(agentEntrySchema.extend({ workspace: z.string().optional() })).optional() })
        .optional(),
      bindings: bindingsSchema.optional(),
      session: sessionConfigSchema.extend({ store: z.string().optional() }).optional(),
    });
    const parsed = gatewaySchema.parse(validConfig);
    const config: RoutingConfig = parsed;
    expect(checkRoutingConfig(config)).toEqual([]);
    expect(gatewaySchema.safeParse({ ...validConfig, session: { store: 5 } }).success).toBe(false);
    expect(() =>
      checkRoutingConfig({ ...config, bindings: [{ agentId: 'nobody', match: { channel: 'x' } }] }),
    ).toThrow(/bindings\[0\]\.agentId/);
    expect(routingConfigSchema.shape.agents).toBeDefined();
  });
});
