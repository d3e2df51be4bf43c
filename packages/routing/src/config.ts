/**
 * The routing part of the config, in OpenClaw's shape: zod schemas the
 * gateway composes into its own config schema, and the checks that need the whole config
 * (binding agents against agents.list, the default agent).
 */
import { z } from 'zod';
import { type RoutingConfigProblem, RoutingError, type RoutingErrorCode } from './errors.ts';
import { normalizeAgentId, normalizeToken, type RoutePeerKind } from './normalize.ts';
import type { DmScope, IdentityLinks } from './session-key.ts';

/** A binding's peer kind as written in config; `dm` is the legacy spelling of `direct`. */
export type BindingPeerKind = RoutePeerKind | 'dm';

export interface BindingPeer {
  readonly kind: BindingPeerKind;
  /** The conversation id, matched case-sensitively after trimming; `"*"` is any peer of that kind. */
  readonly id: string;
}

export interface BindingMatch {
  /** The channel, compared after trim + lowercase. Required. */
  readonly channel: string;
  /** Omitted or `""` means the `default` account only; `"*"` means any account. */
  readonly accountId?: string | undefined;
  readonly peer?: BindingPeer | undefined;
  /** A Discord guild id (or group space); matched as-is after trimming. */
  readonly guildId?: string | undefined;
  /** A Slack workspace or MS Teams team id; matched as-is after trimming. */
  readonly teamId?: string | undefined;
  /** Discord role ids; the sender must hold any one. An empty list means no restriction. */
  readonly roles?: readonly string[] | undefined;
}

export interface BindingSession {
  /** Replaces `session.dmScope` for DMs this binding routes. */
  readonly dmScope?: DmScope | undefined;
}

/** A binding that routes conversations to an agent. `type` may be omitted. */
export interface RouteBinding {
  readonly type?: 'route' | undefined;
  readonly agentId: string;
  readonly comment?: string | undefined;
  readonly match: BindingMatch;
  readonly session?: BindingSession | undefined;
}

export interface AcpBindingOptions {
  readonly mode?: 'persistent' | 'oneshot' | undefined;
  readonly label?: string | undefined;
  readonly cwd?: string | undefined;
  readonly backend?: string | undefined;
}

/** An ACP binding: kept in the config for the ACP runtime, never used to route. */
export interface AcpBinding {
  readonly type: 'acp';
  readonly agentId: string;
  readonly comment?: string | undefined;
  readonly match: BindingMatch;
  readonly acp?: AcpBindingOptions | undefined;
}

export type AgentBinding = RouteBinding | AcpBinding;

/** One `agents.list` entry. Keys other packages own (workspace, model, tools...) are kept. */
export interface AgentEntry {
  readonly id: string;
  readonly default?: boolean | undefined;
  readonly name?: string | undefined;
  readonly [key: string]: unknown;
}

export interface AgentsConfig {
  /** The roster, in order: with no `default: true` entry the first one is the default agent. */
  readonly list?: readonly AgentEntry[] | undefined;
  readonly [key: string]: unknown;
}

/** The `session` keys routing reads. Keys other packages own (reset, store...) are kept. */
export interface SessionConfig {
  readonly dmScope?: DmScope | undefined;
  readonly identityLinks?: IdentityLinks | undefined;
  /** The main session key segment (`agent:<id>:<mainKey>`), default `main`. */
  readonly mainKey?: string | undefined;
  readonly [key: string]: unknown;
}

/** The config routing reads. Any other top-level keys are the gateway's and are kept. */
export interface RoutingConfig {
  readonly agents?: AgentsConfig | undefined;
  readonly bindings?: readonly AgentBinding[] | undefined;
  readonly session?: SessionConfig | undefined;
  readonly [key: string]: unknown;
}

/** What a warning is about. */
export type RoutingConfigWarningCode =
  | 'ROUTING_DEFAULT_AGENT_IMPLICIT'
  | 'ROUTING_DEFAULT_AGENT_AMBIGUOUS'
  | 'ROUTING_AGENT_ID_NORMALIZED'
  | 'ROUTING_BINDING_NEVER_MATCHES'
  | 'ROUTING_IDENTITY_LINK_SHADOWED';

/** Every warning code, with the sentence that documents it. */
export const routingConfigWarningCodes: Readonly<Record<RoutingConfigWarningCode, string>> = {
  ROUTING_DEFAULT_AGENT_IMPLICIT:
    'agents.list has several agents and none is marked default: true, so the first one receives all unbound traffic.',
  ROUTING_DEFAULT_AGENT_AMBIGUOUS:
    'Several agents are marked default: true; the first of them is the default.',
  ROUTING_AGENT_ID_NORMALIZED:
    'An agents.list id is not a safe id and is used in its normalized form (for example "My Agent" becomes "my-agent").',
  ROUTING_BINDING_NEVER_MATCHES:
    'A binding can never match: its match.channel or match.peer.id is empty after trimming.',
  ROUTING_IDENTITY_LINK_SHADOWED:
    'An id is listed under several session.identityLinks names; the first name (object order) wins.',
};

/** Something legal but probably unintended, found while checking a config. */
export interface RoutingConfigWarning {
  readonly code: RoutingConfigWarningCode;
  /** The key path the warning is about, e.g. `agents.list[0].default`. */
  readonly path: string;
  /** What is suspicious there; print it after the path. */
  readonly message: string;
}

/** A validated config and what looked suspicious in it. */
export interface ParsedRoutingConfig {
  readonly config: RoutingConfig;
  readonly warnings: readonly RoutingConfigWarning[];
}

// ---------------------------------------------------------------------------------------
// Schemas

/** `main`, `per-peer`, `per-channel-peer` or `per-account-channel-peer`. */
export const dmScopeSchema: z.ZodType<DmScope> = z.enum([
  'main',
  'per-peer',
  'per-channel-peer',
  'per-account-channel-peer',
]);

/** `{ kind, id }`, strict. */
export const bindingPeerSchema: z.ZodType<BindingPeer> = z.strictObject({
  kind: z.enum(['direct', 'group', 'channel', 'dm']),
  id: z.string(),
});

/** A binding's `match`, strict: no keys beyond channel, accountId, peer, guildId, teamId, roles. */
export const bindingMatchSchema: z.ZodType<BindingMatch> = z.strictObject({
  channel: z.string(),
  accountId: z.string().optional(),
  peer: bindingPeerSchema.optional(),
  guildId: z.string().optional(),
  teamId: z.string().optional(),
  roles: z.array(z.string()).optional(),
});

/** A route binding's `session`, strict. */
export const bindingSessionSchema: z.ZodType<BindingSession> = z.strictObject({
  dmScope: dmScopeSchema.optional(),
});

const routeBindingSchema = z.strictObject({
  type: z.literal('route').optional(),
  agentId: z.string(),
  comment: z.string().optional(),
  match: bindingMatchSchema,
  session: bindingSessionSchema.optional(),
});

const acpBindingSchema = z
  .strictObject({
    type: z.literal('acp'),
    agentId: z.string(),
    comment: z.string().optional(),
    match: bindingMatchSchema,
    acp: z
      .strictObject({
        mode: z.enum(['persistent', 'oneshot']).optional(),
        label: z.string().optional(),
        cwd: z.string().optional(),
        backend: z.string().optional(),
      })
      .optional(),
  })
  .superRefine((binding, context) => {
    if ((binding.match.peer?.id ?? '').trim() === '') {
      context.addIssue({
        code: 'custom',
        path: ['match', 'peer'],
        message: 'expected a concrete peer ({ kind, id }): ACP bindings target one conversation',
      });
    }
  });

/** One `bindings[]` entry: a route binding (`type` omitted or `"route"`) or an ACP binding. */
export const bindingSchema: z.ZodType<AgentBinding> = z.discriminatedUnion('type', [
  routeBindingSchema,
  acpBindingSchema,
]);

/** `bindings`: an array of bindings, in priority order. */
export const bindingsSchema: z.ZodType<readonly AgentBinding[]> = z.array(bindingSchema);

type AgentEntryShape = {
  id: z.ZodString;
  default: z.ZodOptional<z.ZodBoolean>;
  name: z.ZodOptional<z.ZodString>;
};

/** One `agents.list` entry; other keys pass through (extend it with `.extend({...})`). */
export const agentEntrySchema: z.ZodObject<AgentEntryShape, z.core.$loose> = z.looseObject({
  id: z.string(),
  default: z.boolean().optional(),
  name: z.string().optional(),
});

type AgentsConfigShape = { list: z.ZodOptional<z.ZodArray<typeof agentEntrySchema>> };

/** `agents`: `list` is routing's; other keys (defaults...) pass through. */
export const agentsConfigSchema: z.ZodObject<AgentsConfigShape, z.core.$loose> = z.looseObject({
  list: z.array(agentEntrySchema).optional(),
});

type SessionConfigShape = {
  dmScope: z.ZodOptional<z.ZodType<DmScope>>;
  identityLinks: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodArray<z.ZodString>>>;
  mainKey: z.ZodOptional<z.ZodString>;
};

/** `session`: dmScope, identityLinks and mainKey are routing's; other keys pass through. */
export const sessionConfigSchema: z.ZodObject<SessionConfigShape, z.core.$loose> = z.looseObject({
  dmScope: dmScopeSchema.optional(),
  identityLinks: z.record(z.string(), z.array(z.string())).optional(),
  mainKey: z.string().optional(),
});

type RoutingConfigShape = {
  agents: z.ZodOptional<typeof agentsConfigSchema>;
  bindings: z.ZodOptional<typeof bindingsSchema>;
  session: z.ZodOptional<typeof sessionConfigSchema>;
};

/** The whole routing config; top-level keys other than agents, bindings and session pass through. */
export const routingConfigSchema: z.ZodObject<RoutingConfigShape, z.core.$loose> = z.looseObject({
  agents: agentsConfigSchema.optional(),
  bindings: bindingsSchema.optional(),
  session: sessionConfigSchema.optional(),
});

// ---------------------------------------------------------------------------------------
// Validation

/**
 * Validates a raw config (parsed JSON/JSON5) and returns the typed config plus warnings.
 * Throws a `RoutingError` naming every key path that is wrong and what was expected there:
 * `ROUTING_INVALID_CONFIG` for shape errors, `ROUTING_DUPLICATE_AGENT` and
 * `ROUTING_UNKNOWN_AGENT` for agents that collide or that bindings name but the roster
 * lacks.
 */
export function parseRoutingConfig(raw: unknown): ParsedRoutingConfig {
  const result = routingConfigSchema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    const problems = result.error.issues.flatMap((issue) => describeIssue(issue, []));
    throw failure('ROUTING_INVALID_CONFIG', problems);
  }
  const config = result.data as RoutingConfig;
  return { config, warnings: checkRoutingConfig(config) };
}

/**
 * The checks that need the whole config, for a config whose shape is already valid (the
 * gateway runs this after parsing its own schema): agent ids non-empty and unique after
 * normalization, every binding naming a listed agent (when agents.list is present), and
 * the warnings (default agent, bindings that never match, shadowed identity links).
 * Throws `RoutingError`; returns the warnings.
 */
export function checkRoutingConfig(config: RoutingConfig): RoutingConfigWarning[] {
  const warnings: RoutingConfigWarning[] = [];
  const invalid: RoutingConfigProblem[] = [];
  const duplicates: RoutingConfigProblem[] = [];
  const unknown: RoutingConfigProblem[] = [];

  const roster = new Map<string, number>();
  const list = config.agents?.list ?? [];
  list.forEach((agent, index) => {
    const path = `agents.list[${index}].id`;
    const trimmed = agent.id.trim();
    if (trimmed === '') {
      invalid.push({ path, message: 'expected a non-empty agent id, got an empty string' });
      return;
    }
    const id = normalizeAgentId(trimmed);
    const first = roster.get(id);
    if (first !== undefined) {
      duplicates.push({
        path,
        message: `expected a unique agent id, but ${JSON.stringify(agent.id)} normalizes to "${id}", the id of agents.list[${first}]`,
      });
      return;
    }
    roster.set(id, index);
    if (id !== trimmed.toLowerCase()) {
      warnings.push({
        code: 'ROUTING_AGENT_ID_NORMALIZED',
        path,
        message: `${JSON.stringify(agent.id)} is not a safe id and is used as "${id}"`,
      });
    }
  });

  const defaults = list.flatMap((agent, index) => (agent.default === true ? [index] : []));
  if (defaults.length > 1) {
    warnings.push({
      code: 'ROUTING_DEFAULT_AGENT_AMBIGUOUS',
      path: `agents.list[${defaults[1]}].default`,
      message: `${defaults.length} agents are marked default: true (indexes ${defaults.join(', ')}); agents.list[${defaults[0]}] is the default`,
    });
  } else if (defaults.length === 0 && list.length > 1) {
    warnings.push({
      code: 'ROUTING_DEFAULT_AGENT_IMPLICIT',
      path: 'agents.list',
      message: `${list.length} agents and none is marked default: true; agents.list[0] ("${normalizeAgentId(list[0]?.id)}") receives every message no binding matches`,
    });
  }

  const listedAgents = [...roster.keys()].join(', ');
  (config.bindings ?? []).forEach((binding, index) => {
    const path = `bindings[${index}]`;
    if (binding.agentId.trim() === '') {
      invalid.push({
        path: `${path}.agentId`,
        message: 'expected a non-empty agent id, got an empty string',
      });
    } else if (roster.size > 0 && !roster.has(normalizeAgentId(binding.agentId))) {
      unknown.push({
        path: `${path}.agentId`,
        message: `expected one of the agents in agents.list (${listedAgents}), got ${JSON.stringify(binding.agentId)}`,
      });
    }
    if (normalizeToken(binding.match.channel) === '') {
      warnings.push({
        code: 'ROUTING_BINDING_NEVER_MATCHES',
        path: `${path}.match.channel`,
        message: 'the channel is empty, so the binding never matches',
      });
    } else if (binding.match.peer !== undefined && binding.match.peer.id.trim() === '') {
      warnings.push({
        code: 'ROUTING_BINDING_NEVER_MATCHES',
        path: `${path}.match.peer.id`,
        message: 'the peer id is empty, so the binding never matches (use "*" for any peer)',
      });
    }
  });

  const linkedBy = new Map<string, string>();
  for (const [name, ids] of Object.entries(config.session?.identityLinks ?? {})) {
    if (name.trim() === '') continue;
    ids.forEach((id, index) => {
      const normalized = normalizeToken(id);
      if (normalized === '') return;
      const owner = linkedBy.get(normalized);
      if (owner === undefined) {
        linkedBy.set(normalized, name);
      } else if (owner !== name) {
        const path = `session.identityLinks${formatPathSegment(name)}[${index}]`;
        warnings.push({
          code: 'ROUTING_IDENTITY_LINK_SHADOWED',
          path,
          message: `"${normalized}" is already linked to ${JSON.stringify(owner)}, which wins`,
        });
      }
    });
  }

  if (invalid.length > 0) throw failure('ROUTING_INVALID_CONFIG', [...invalid, ...duplicates, ...unknown]);
  if (duplicates.length > 0) throw failure('ROUTING_DUPLICATE_AGENT', [...duplicates, ...unknown]);
  if (unknown.length > 0) throw failure('ROUTING_UNKNOWN_AGENT', unknown);
  return warnings;
}

function failure(code: RoutingErrorCode, problems: readonly RoutingConfigProblem[]): RoutingError {
  const listed = problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');
  return new RoutingError(code, `Invalid routing config: ${listed}`, problems);
}

// ---------------------------------------------------------------------------------------
// Zod issues → key paths and "expected ..." sentences

type PathSegment = PropertyKey;

function formatPathSegment(segment: PathSegment): string {
  if (typeof segment === 'number') return `[${segment}]`;
  const key = String(segment);
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function formatPath(path: readonly PathSegment[]): string {
  const formatted = path.map(formatPathSegment).join('');
  return formatted.startsWith('.') ? formatted.slice(1) : formatted || '(root)';
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function withArticle(expected: string): string {
  if (expected === 'object' || expected === 'array') return `an ${expected}`;
  return `a ${expected}`;
}

const STRICT_KEYS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^bindings\[\d+\]\.match$/, 'channel, accountId, peer, guildId, teamId, roles'],
  [/^bindings\[\d+\]\.match\.peer$/, 'kind, id'],
  [/^bindings\[\d+\]\.session$/, 'dmScope'],
  [/^bindings\[\d+\]\.acp$/, 'mode, label, cwd, backend'],
  [/^bindings\[\d+\]$/, 'type, agentId, comment, match, session (route) or acp (type "acp")'],
];

function allowedKeysAt(path: string): string | undefined {
  for (const [pattern, keys] of STRICT_KEYS) if (pattern.test(path)) return keys;
  return undefined;
}

function describeIssue(issue: z.core.$ZodIssue, prefix: readonly PathSegment[]): RoutingConfigProblem[] {
  const path = [...prefix, ...issue.path];
  switch (issue.code) {
    case 'invalid_type':
      return [
        {
          path: formatPath(path),
          message: `expected ${withArticle(issue.expected)}, got ${describeValue(issue.input)}`,
        },
      ];
    case 'invalid_value': {
      const values = issue.values.map((value) => JSON.stringify(value));
      const expected = values.length === 1 ? values[0] : `one of ${values.join(', ')}`;
      return [{ path: formatPath(path), message: `expected ${expected}, got ${describeValue(issue.input)}` }];
    }
    case 'unrecognized_keys': {
      const objectPath = formatPath(path);
      const allowed = allowedKeysAt(objectPath);
      return issue.keys.map((key) => ({
        path: formatPath([...path, key]),
        message: `unknown key${allowed === undefined ? '' : `: expected only ${allowed}`}`,
      }));
    }
    case 'invalid_union': {
      if (issue.errors.length === 0) {
        const discriminator = (issue as { discriminator?: unknown }).discriminator;
        const input = issue.input;
        const given =
          typeof discriminator === 'string' && typeof input === 'object' && input !== null
            ? (input as Record<string, unknown>)[discriminator]
            : input;
        return [
          {
            path: formatPath(path),
            message: `expected "route" (or no type) or "acp", got ${describeValue(given)}`,
          },
        ];
      }
      return issue.errors.flat().flatMap((inner) => describeIssue(inner, path));
    }
    default:
      return [{ path: formatPath(path), message: issue.message }];
  }
}
