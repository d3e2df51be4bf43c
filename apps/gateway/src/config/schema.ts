import { authConfigSchema } from '@switchboard/auth-profiles';
import { thinkingLevels } from '@switchboard/core-loop';
import { pluginsConfigSchema } from '@switchboard/hooks';
import { agentEntrySchema, bindingsSchema, dmScopeSchema, sessionConfigSchema } from '@switchboard/routing';
import { z } from 'zod';
import { mcpSectionSchema } from './schema-mcp.ts';
import { memoryConfigSchema, memorySearchConfigSchema } from './schema-memory.ts';
import { extraModelApis, modelsModeSchema, providerCompatSchema } from './schema-providers.ts';
import { agentSandboxSchema } from './schema-sandbox.ts';
import { cronConfigSchema, heartbeatConfigSchema } from './schema-scheduler.ts';
import { agentSkillsSchema, skillsConfigSchema } from './schema-skills.ts';
import { storageConfigSchema } from './schema-storage.ts';
import { agentSubagentsSchema, subagentDefaultsSchema } from './schema-subagents.ts';

/**
 * The gateway configuration (`switchboard.json`, JSON5). Keys follow OpenClaw's shape where
 * they overlap, so an OpenClaw config mostly just works: `gateway`, `models.providers`,
 * `agents.defaults`, `agents.list`, `bindings`, `session`, `auth`, `channels.<name>` with
 * `accounts`, `plugins`. Keys it does not know are reported at every depth with their key
 * path (see validate.ts and docs/decisions/0010): warnings, except inside `plugins.entries`.
 */

const thinkingLevelSchema = z.enum(thinkingLevels);

/** `"<provider>/<model>"`, e.g. `anthropic/claude-sonnet-4-6`. */
const modelReferenceSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*\/\S+$/i, 'expected "<provider>/<model>", e.g. "anthropic/claude-sonnet-4-6"');

const modelChoiceSchema = z.union([
  modelReferenceSchema.transform((primary) => ({ primary, fallbacks: [] as string[] })),
  z.strictObject({ primary: modelReferenceSchema, fallbacks: z.array(modelReferenceSchema).default([]) }),
]);

const modelCostSchema = z.strictObject({
  input: z.number().nonnegative().default(0),
  output: z.number().nonnegative().default(0),
  cacheRead: z.number().nonnegative().default(0),
  cacheWrite: z.number().nonnegative().default(0),
});

const providerModelSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().optional(),
  contextWindow: z.number().int().positive().default(200_000),
  maxTokens: z.number().int().positive().default(8192),
  reasoning: z.boolean().optional(),
  input: z.array(z.enum(['text', 'image'])).optional(),
  cost: modelCostSchema.optional(),
  compat: providerCompatSchema.optional(),
});

/**
 * The wire APIs a `models.providers.<name>.api` may name; each has a registration in the
 * model provider registry (apps/gateway/src/extensions/model-providers.ts).
 */
export const modelApis = ['anthropic-messages', ...extraModelApis] as const;

const providerSchema = z.strictObject({
  baseUrl: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  /** Sent as `Authorization: Bearer` instead of an API key (OAuth-style tokens, proxies). */
  authToken: z.string().min(1).optional(),
  api: z.enum(modelApis).default('anthropic-messages'),
  headers: z.record(z.string(), z.string()).optional(),
  timeoutSeconds: z.number().positive().optional(),
  models: z.array(providerModelSchema).default([]),
  compat: providerCompatSchema.optional(),
});

const compactionSchema = z.strictObject({
  enabled: z.boolean().default(true),
  reserveTokens: z.number().int().nonnegative().optional(),
  keepRecentTokens: z.number().int().positive().optional(),
});

const blockStreamingSchema = z.enum(['off', 'text_end', 'message_end']);

const agentDefaultsSchema = z.strictObject({
  model: modelChoiceSchema.optional(),
  workspace: z.string().optional(),
  thinking: thinkingLevelSchema.optional(),
  timeoutSeconds: z.number().positive().default(600),
  maxConcurrent: z.number().int().positive().default(4),
  maxModelCalls: z.number().int().positive().default(50),
  rateLimitMaxWaitSeconds: z
    .number()
    .min(0)
    .default(60)
    .describe(
      "Most seconds one run waits in total, when every key and model is rate-limited or overloaded, for the provider's retry-after (or a backoff) before trying again; a longer wait fails the turn with the time to wait. 0 never waits.",
    ),
  blockStreaming: blockStreamingSchema.default('off'),
  typingIntervalSeconds: z.number().positive().default(6),
  compaction: compactionSchema.optional(),
  timeZone: z.string().optional(),
  heartbeat: heartbeatConfigSchema.optional(),
  skills: agentSkillsSchema,
  sandbox: agentSandboxSchema,
  /** OpenClaw's older name of `memory.search` (an alias; `memory.search` wins key by key). */
  memorySearch: memorySearchConfigSchema.optional(),
  subagents: subagentDefaultsSchema.optional(),
});

const agentToolsSchema = z.strictObject({
  allow: z.array(z.string()).optional(),
  deny: z.array(z.string()).optional(),
});

const agentSchema = z.strictObject({
  ...agentEntrySchema.shape,
  workspace: z.string().optional(),
  model: modelChoiceSchema.optional(),
  thinking: thinkingLevelSchema.optional(),
  tools: agentToolsSchema.optional(),
  heartbeat: heartbeatConfigSchema.optional(),
  skills: agentSkillsSchema,
  sandbox: agentSandboxSchema,
  subagents: agentSubagentsSchema.optional(),
});

const resetPolicySchema = z.strictObject({
  mode: z.enum(['daily', 'idle', 'off']).optional(),
  atHour: z.number().int().min(0).max(23).optional(),
  idleMinutes: z.number().int().positive().optional(),
});

const sessionSchema = z.strictObject({
  ...sessionConfigSchema.shape,
  /**
   * Switchboard's default is `per-channel-peer` (OpenClaw's own advice for any bot with more
   * than one DM sender): each sender gets their own conversation. `main` (OpenClaw's default,
   * every DM in one session) stays available when set explicitly; `doctor` warns when it is
   * combined with more than one allowed DM sender.
   */
  dmScope: dmScopeSchema.default('per-channel-peer'),
  scope: z.enum(['per-sender', 'global']).optional(),
  reset: resetPolicySchema.optional(),
  resetByType: z
    .strictObject({
      direct: resetPolicySchema.optional(),
      group: resetPolicySchema.optional(),
      thread: resetPolicySchema.optional(),
    })
    .optional(),
  resetByChannel: z.record(z.string(), resetPolicySchema).optional(),
  resetTriggers: z.array(z.string().min(1)).optional(),
  maintenance: z
    .strictObject({
      pruneAfterDays: z.number().positive().optional(),
      maxEntries: z.number().int().positive().optional(),
    })
    .optional(),
  /**
   * When a commit counts as written (Switchboard's own key). `normal` (default): it survives a
   * crash of the process. `full`: it is also fsynced, so it survives a power cut, at the cost
   * of throughput. See docs/decisions/0005.
   */
  durability: z.enum(['normal', 'full']).optional(),
});

const queueModeSchema = z.enum(['collect', 'steer', 'followup', 'interrupt']);
const queueOptionsSchema = z.strictObject({
  mode: queueModeSchema.optional(),
  debounceMs: z.number().int().nonnegative().optional(),
  cap: z.number().int().positive().optional(),
  drop: z.enum(['old', 'new', 'summarize']).optional(),
});

const messagesSchema = z.strictObject({
  queue: z
    .strictObject({
      ...queueOptionsSchema.shape,
      byChannel: z.record(z.string(), queueOptionsSchema).optional(),
    })
    .optional(),
});

const gatewaySectionSchema = z.strictObject({
  port: z.number().int().min(0).max(65_535).default(18_789),
  /** `loopback` (127.0.0.1), `lan` (0.0.0.0), or an address to bind. */
  bind: z.string().min(1).default('loopback'),
  auth: z
    .strictObject({
      mode: z.enum(['token', 'none']).default('token'),
      token: z.string().optional(),
    })
    .default({ mode: 'token' }),
  controlUi: z.strictObject({ allowedOrigins: z.array(z.string()).default([]) }).optional(),
  /**
   * Reloading the config file when it changes (OpenClaw's key; docs/decisions/0011). `off`:
   * file changes are ignored (SIGHUP and `switchboard config reload` still reload). Any other
   * mode reloads on change and applies what can apply live; Switchboard never restarts
   * itself, so `hybrid` and `restart` behave as `hot` and report the keys that need a restart.
   */
  reload: z
    .strictObject({
      mode: z.enum(['hybrid', 'hot', 'restart', 'off']).default('hybrid'),
      debounceMs: z.number().int().nonnegative().default(300),
    })
    .optional(),
});

const toolsSchema = z.strictObject({
  /** Tool names, globs (`github__*`) or `group:<source>`; when set, only these tools (decision 0013). */
  allow: z.array(z.string().min(1)).optional(),
  /** Tool names, globs or groups no agent gets (wins over every allow list). */
  deny: z.array(z.string().min(1)).optional(),
  /** Host exec for unsandboxed sessions only (sandbox mode off, or the main session with non-main): bare commands, no shell. */
  exec: z
    .strictObject({
      allow: z.array(z.string().regex(/^[^/\\\s]+$/, 'expected a bare command name')).default([]),
      timeoutSeconds: z.number().positive().default(30),
      /** `on-miss`: a command off the allowlist waits for an operator (`switchboard approvals`); `off`: refused. */
      ask: z.enum(['off', 'on-miss']).default('off'),
      approvalTimeoutSeconds: z.number().positive().default(120),
    })
    .optional(),
  webFetch: z
    .strictObject({
      enabled: z.boolean().default(true),
      allowHosts: z.array(z.string()).default([]),
      allowPrivateNetworks: z.boolean().default(false),
    })
    .optional(),
});

const loggingSchema = z.strictObject({
  level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  file: z.string().optional(),
});

export const gatewayConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  gateway: gatewaySectionSchema.default({ port: 18_789, bind: 'loopback', auth: { mode: 'token' } }),
  models: z
    .strictObject({ mode: modelsModeSchema, providers: z.record(z.string(), providerSchema).default({}) })
    .prefault({}),
  agents: z
    .strictObject({
      defaults: agentDefaultsSchema.default(agentDefaultsSchema.parse({})),
      list: z.array(agentSchema).optional(),
    })
    .default({ defaults: agentDefaultsSchema.parse({}) }),
  bindings: bindingsSchema.default([]),
  session: sessionSchema.prefault({}),
  messages: messagesSchema.default({}),
  /** Credential profiles, their order per provider, and cooldown settings (@switchboard/auth-profiles). */
  auth: authConfigSchema.optional(),
  /** `channels.<id>`: each validated by the channel plugin that owns the id. */
  channels: z.record(z.string(), z.unknown()).default({}),
  /** Plugins to load; each entry's `config` is validated by the plugin's own schema. */
  plugins: pluginsConfigSchema.optional(),
  tools: toolsSchema.default({}),
  logging: loggingSchema.default({ level: 'info' }),
  cron: cronConfigSchema.prefault({}),
  skills: skillsConfigSchema.prefault({}),
  memory: memoryConfigSchema.optional(),
  /** MCP servers whose tools the agents use (@switchboard/mcp, decision 0020). */
  mcp: mcpSectionSchema,
  /** Where sessions, the journal and state live: SQLite (default) or PostgreSQL for replicas (decision 0021). */
  storage: storageConfigSchema,
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type ProviderModelConfig = z.infer<typeof providerModelSchema>;
export type AgentConfig = z.infer<typeof agentSchema>;

/** JSON Schema of the configuration, for editors (`switchboard config schema`). */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(gatewayConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}
