// OpenClaw's config (openclaw.json, classic 2026.6 or keyed 2026.9 shape) converted to
// Switchboard's switchboard.json. Every key of the source gets a note: mapped, mapped with a
// changed meaning (explained), or unsupported (with what to do instead).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cronConfigSchema, heartbeatConfigSchema } from '../config/schema-scheduler.ts';
import { isRecord, resolveOpenClawPath } from './openclaw-source.ts';

type KeyDisposition = 'mapped' | 'changed' | 'unsupported';

/** What became of one OpenClaw config key. */
interface KeyNote {
  readonly path: string;
  readonly disposition: KeyDisposition;
  /** The Switchboard key it went to, when it went somewhere. */
  readonly target?: string;
  /** For `changed`: what differs; for `unsupported`: what to do instead. */
  readonly message?: string;
}

interface ImportedAgent {
  readonly id: string;
  readonly isDefault: boolean;
  /** Absolute path of the workspace (left where it is). */
  readonly workspace: string;
}

export interface ConvertedConfig {
  readonly config: Record<string, unknown>;
  readonly notes: readonly KeyNote[];
  /** `classic`: agents.list[]; `2026.9`: agents.entries.<id>; `none`: no agent roster. */
  readonly shape: 'classic' | '2026.9' | 'none';
  readonly agents: readonly ImportedAgent[];
}

interface ConvertConfigOptions {
  /** The OpenClaw state directory (relative paths and default workspaces are resolved from it). */
  readonly root: string;
  /** The `models.providers.<p>.api` values this Switchboard build has a provider for. */
  readonly modelApis: readonly string[];
  /** Whether this build's config has a `memory` section (the memory package). */
  readonly hasMemorySection: boolean;
  /** Agent ids found on disk under agents/ (state without a roster entry). */
  readonly agentDirectories: readonly string[];
}

/** Advice for whole OpenClaw sections Switchboard has no equivalent for. */
const sectionAdvice: Readonly<Record<string, string>> = {
  cron: 'this scheduler setting has no Switchboard equivalent (the jobs are carried by the "cron" part)',
  hooks: 'OpenClaw hook scripts do not run in Switchboard; write a Switchboard plugin with the same hooks',
  skills: 'skill settings are not imported; SKILL.md folders in the workspace stay where they are',
  browser: 'Switchboard has no browser tool; leave it out',
  talk: 'voice (talk) is not part of Switchboard; leave it out',
  ui: 'the Control UI settings do not apply; Switchboard serves WebChat on the gateway port',
  env: 'set these variables in the environment of the Switchboard process (or a .env your service manager loads)',
  diagnostics: 'OpenClaw diagnostics do not apply; use switchboard doctor and status',
  discovery: 'Switchboard does not advertise itself on the network (loopback by default)',
  canvasHost: 'Switchboard has no canvas host; leave it out',
  web: 'the WhatsApp Web settings of old builds: configure channels.whatsapp instead',
  broadcast: 'broadcast groups are not supported; bind each peer to its agent with bindings[]',
  audio: 'audio transcription is not supported; leave it out',
  automations: 'automations (2026.9 cron) are carried by the "cron" part of the import',
  approvals: 'exec approvals do not apply: Switchboard runs only the commands in tools.exec.allow',
  secrets: 'secret providers are not supported: put secrets in the environment and reference them as ${VAR}',
  update: 'OpenClaw self-update settings do not apply',
  wizard: 'OpenClaw onboarding bookkeeping; nothing to do',
  meta: 'OpenClaw bookkeeping; nothing to do',
  commands:
    'chat command settings are not imported: the senders approved by pairing and listed in allowFrom may use commands',
  plugins:
    'OpenClaw plugins do not load in Switchboard; look for a Switchboard plugin or an MCP server that does the same job',
  nodeHost: 'nodes are not supported',
  acp: 'ACP sessions are not supported',
  media: 'media settings are not imported; channels take their own mediaMaxMb',
  gateway: 'this gateway setting has no Switchboard equivalent; leave it out',
  models:
    'this model setting has no Switchboard equivalent; list each model under models.providers.<p>.models',
  agents: 'this agent setting has no Switchboard equivalent yet; leave it out',
  session: 'this session setting has no Switchboard equivalent; leave it out',
  messages: 'this message setting has no Switchboard equivalent; leave it out',
  tools: 'this tool setting has no Switchboard equivalent; use tools.allow / tools.deny and tools.exec.allow',
  logging: 'this logging setting has no Switchboard equivalent; use logging.level and logging.file',
  auth: 'this auth setting has no Switchboard equivalent',
  memory: 'this memory setting has no Switchboard equivalent',
};

const agentKeyAdvice: Readonly<Record<string, string>> = {
  heartbeat: 'this heartbeat setting has no Switchboard equivalent',
  sandbox:
    "Switchboard's sandbox (bubblewrap, not containers) has its own settings: set agents.defaults.sandbox by hand",
  skills:
    'skill settings are not converted: set agents.defaults.skills by hand; skills in the workspace stay where they are',
  subagents: 'subagent settings are not converted: set agents.defaults.subagents by hand',
  identity:
    "put the agent's name and persona in the workspace (IDENTITY.md, SOUL.md); Switchboard reads the workspace",
  agentDir:
    "the agent's state (sessions, credentials) is imported into Switchboard's database; the directory is not used",
  groupChat: 'group chat settings are per channel in Switchboard (channels.<id>.groups, requireMention)',
  models: 'model aliases are not supported; name models as "<provider>/<model>"',
  humanDelay: 'human-like reply delays are not supported',
  contextPruning: 'Switchboard compacts instead of pruning; see agents.defaults.compaction',
  memorySearch: 'memory search settings are not imported for this agent',
};

const thinkingLevels = new Set(['off', 'minimal', 'low', 'medium', 'high', 'xhigh']);
const logLevels: Readonly<Record<string, string>> = {
  trace: 'debug',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'error',
  silent: 'error',
};

function copyIfPresent(
  source: Record<string, unknown>,
  target: Record<string, unknown>,
  keys: readonly string[],
  prefix: string,
  targetPrefix: string,
  mark: (path: string, note: Omit<KeyNote, 'path'>) => void,
): void {
  for (const key of keys) {
    if (source[key] === undefined) continue;
    target[key] = source[key];
    mark(`${prefix}.${key}`, { disposition: 'mapped', target: `${targetPrefix}.${key}` });
  }
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let cursor = target;
  for (const key of path.slice(0, -1)) {
    const next = cursor[key];
    if (isRecord(next)) cursor = next;
    else {
      const created: Record<string, unknown> = {};
      cursor[key] = created;
      cursor = created;
    }
  }
  cursor[path[path.length - 1]!] = value;
}

/** Every leaf key path of a JSON value: objects by key, arrays by index. */
function leafPaths(value: unknown, prefix: string): string[] {
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return [prefix];
    return entries.flatMap(([key, child]) => leafPaths(child, prefix === '' ? key : `${prefix}.${key}`));
  }
  if (Array.isArray(value) && value.some(isRecord))
    return value.flatMap((child, index) => leafPaths(child, `${prefix}[${index}]`));
  return [prefix];
}

function covered(path: string, handled: ReadonlySet<string>): boolean {
  let current = path;
  for (;;) {
    if (handled.has(current)) return true;
    const cut = Math.max(current.lastIndexOf('.'), current.lastIndexOf('['));
    if (cut <= 0) return false;
    current = current.slice(0, cut);
  }
}

function adviceFor(path: string): string {
  const section = path.split(/[.[]/)[0] ?? path;
  const agentKey = /^agents\.(?:defaults|list\[\d+\]|entries\.[^.]+)\.([^.[]+)/.exec(path)?.[1];
  if (agentKey !== undefined && agentKeyAdvice[agentKey] !== undefined) return agentKeyAdvice[agentKey];
  return sectionAdvice[section] ?? 'Switchboard has no such setting; leave it out';
}

/** Converts an OpenClaw config object. Pure: reads only `channels.*.tokenFile` files. */
export function convertOpenClawConfig(source: unknown, options: ConvertConfigOptions): ConvertedConfig {
  const raw = isRecord(source) ? source : {};
  const config: Record<string, unknown> = {};
  const handled = new Set<string>();
  const notes: KeyNote[] = [];
  const mark = (path: string, note: Omit<KeyNote, 'path'>) => {
    handled.add(path);
    notes.push({ path, ...note });
  };

  convertGateway(raw, config, mark);
  convertModels(raw, config, mark, options);
  const { shape, agents } = convertAgents(raw, config, mark, options);
  if (Array.isArray(raw.bindings)) {
    config.bindings = raw.bindings;
    mark('bindings', { disposition: 'mapped', target: 'bindings', message: undefined });
  }
  convertSession(raw, config, mark);
  convertMessages(raw, config, mark);
  convertAuth(raw, config, mark);
  convertChannels(raw, config, mark, options.root);
  convertTools(raw, config, mark);
  convertCron(raw, config, mark);
  convertLogging(raw, config, mark);
  convertMemory(raw, config, mark, options);

  for (const path of leafPaths(raw, '')) {
    if (path === '' || covered(path, handled)) continue;
    notes.push({ path, disposition: 'unsupported', message: adviceFor(path) });
  }
  notes.sort((left, right) => left.path.localeCompare(right.path));
  return { config, notes, shape, agents };
}

type Mark = (path: string, note: Omit<KeyNote, 'path'>) => void;

const heartbeatKeys = Object.keys(heartbeatConfigSchema.shape);
const cronKeys = Object.keys(cronConfigSchema.shape);

/** `heartbeat` (defaults or one agent): OpenClaw's keys the scheduler's heartbeat shares. */
function convertHeartbeat(
  value: unknown,
  path: string,
  target: Record<string, unknown>,
  targetPath: string,
  mark: Mark,
): void {
  if (!isRecord(value)) return;
  const heartbeat: Record<string, unknown> = {};
  copyIfPresent(value, heartbeat, heartbeatKeys, path, targetPath, mark);
  if (Object.keys(heartbeat).length > 0) target.heartbeat = heartbeat;
}

function convertCron(raw: Record<string, unknown>, config: Record<string, unknown>, mark: Mark): void {
  const cron = raw.cron;
  if (!isRecord(cron)) return;
  const target: Record<string, unknown> = {};
  copyIfPresent(cron, target, cronKeys, 'cron', 'cron', mark);
  if (Object.keys(target).length > 0) config.cron = target;
}

function convertGateway(raw: Record<string, unknown>, config: Record<string, unknown>, mark: Mark): void {
  const gateway = raw.gateway;
  if (!isRecord(gateway)) return;
  const target: Record<string, unknown> = {};
  if (typeof gateway.port === 'number') {
    target.port = gateway.port;
    mark('gateway.port', { disposition: 'mapped', target: 'gateway.port' });
  }
  if (typeof gateway.bind === 'string') {
    if (gateway.bind === 'loopback' || gateway.bind === 'lan') {
      target.bind = gateway.bind;
      mark('gateway.bind', { disposition: 'mapped', target: 'gateway.bind' });
    } else if (gateway.bind === 'custom' && typeof gateway.customBindHost === 'string') {
      target.bind = gateway.customBindHost;
      mark('gateway.bind', {
        disposition: 'changed',
        target: 'gateway.bind',
        message: 'Switchboard takes the address itself in gateway.bind',
      });
      mark('gateway.customBindHost', { disposition: 'changed', target: 'gateway.bind' });
    } else {
      target.bind = 'loopback';
      mark('gateway.bind', {
        disposition: 'changed',
        target: 'gateway.bind',
        message: `"${gateway.bind}" has no Switchboard equivalent: the gateway listens on loopback; put a reverse proxy or tunnel in front to reach it from elsewhere`,
      });
    }
  }
  const auth = gateway.auth;
  if (isRecord(auth)) {
    const targetAuth: Record<string, unknown> = {};
    if (auth.mode === 'token' || auth.mode === 'none') {
      targetAuth.mode = auth.mode;
      mark('gateway.auth.mode', { disposition: 'mapped', target: 'gateway.auth.mode' });
    } else if (auth.mode === 'password') {
      targetAuth.mode = 'token';
      mark('gateway.auth.mode', {
        disposition: 'changed',
        target: 'gateway.auth.mode',
        message: 'password mode becomes token mode: clients send the old password as the gateway token',
      });
    }
    if (typeof auth.token === 'string') {
      targetAuth.token = auth.token;
      mark('gateway.auth.token', { disposition: 'mapped', target: 'gateway.auth.token' });
    } else if (typeof auth.password === 'string') {
      targetAuth.token = auth.password;
      mark('gateway.auth.password', {
        disposition: 'changed',
        target: 'gateway.auth.token',
        message: 'the password is now the gateway token',
      });
    }
    if (Object.keys(targetAuth).length > 0) target.auth = { mode: 'token', ...targetAuth };
  }
  if (isRecord(gateway.controlUi) && Array.isArray(gateway.controlUi.allowedOrigins)) {
    target.controlUi = { allowedOrigins: gateway.controlUi.allowedOrigins };
    mark('gateway.controlUi.allowedOrigins', {
      disposition: 'changed',
      target: 'gateway.controlUi.allowedOrigins',
      message: 'the origins allowed to open WebChat, which replaces the Control UI',
    });
  }
  if (isRecord(gateway.reload)) {
    const reload: Record<string, unknown> = {};
    copyIfPresent(gateway.reload, reload, ['debounceMs'], 'gateway.reload', 'gateway.reload', mark);
    if (typeof gateway.reload.mode === 'string') {
      reload.mode = gateway.reload.mode;
      const restarts = gateway.reload.mode === 'hybrid' || gateway.reload.mode === 'restart';
      mark('gateway.reload.mode', {
        disposition: restarts ? 'changed' : 'mapped',
        target: 'gateway.reload.mode',
        ...(restarts
          ? {
              message:
                'Switchboard never restarts itself: changes that need a restart are reported and wait for one',
            }
          : {}),
      });
    }
    if (Object.keys(reload).length > 0) target.reload = reload;
  }
  if (gateway.mode === 'remote')
    mark('gateway.mode', {
      disposition: 'unsupported',
      message:
        'remote mode is not supported: run the Switchboard gateway here, or point the CLI at it with --url',
    });
  if (Object.keys(target).length > 0) config.gateway = target;
}

const providerKeys = ['baseUrl', 'apiKey', 'authToken', 'headers', 'timeoutSeconds'] as const;
const modelKeys = ['id', 'name', 'contextWindow', 'maxTokens', 'reasoning', 'cost'] as const;

function convertModels(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
  options: ConvertConfigOptions,
): void {
  const models = raw.models;
  if (!isRecord(models) || !isRecord(models.providers)) return;
  const providers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(models.providers)) {
    const prefix = `models.providers.${name}`;
    if (!isRecord(value)) continue;
    const api = typeof value.api === 'string' ? value.api : 'anthropic-messages';
    if (!options.modelApis.includes(api)) {
      mark(prefix, {
        disposition: 'unsupported',
        message: `api "${api}" has no provider in this Switchboard build (available: ${options.modelApis.join(', ')}); the provider is left out — models that name it will not resolve`,
      });
      continue;
    }
    const provider: Record<string, unknown> = {};
    if (value.api !== undefined) {
      provider.api = api;
      mark(`${prefix}.api`, { disposition: 'mapped', target: `${prefix}.api` });
    }
    copyIfPresent(value, provider, providerKeys, prefix, prefix, mark);
    if (Array.isArray(value.models)) {
      provider.models = value.models.filter(isRecord).map((model, index) => {
        const converted: Record<string, unknown> = {};
        copyIfPresent(
          model,
          converted,
          modelKeys,
          `${prefix}.models[${index}]`,
          `${prefix}.models[${index}]`,
          mark,
        );
        if (Array.isArray(model.input)) {
          converted.input = model.input.filter((kind) => kind === 'text' || kind === 'image');
          mark(`${prefix}.models[${index}].input`, {
            disposition: 'mapped',
            target: `${prefix}.models[${index}].input`,
          });
        }
        return converted;
      });
    }
    providers[name] = provider;
  }
  config.models = { providers };
}

function convertModelChoice(value: unknown): unknown {
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof value.primary === 'string')
    return {
      primary: value.primary,
      fallbacks: Array.isArray(value.fallbacks)
        ? value.fallbacks.filter((item) => typeof item === 'string')
        : [],
    };
  return undefined;
}

function convertThinking(
  value: unknown,
  path: string,
  target: Record<string, unknown>,
  targetPath: string,
  mark: Mark,
): void {
  if (typeof value !== 'string') return;
  if (thinkingLevels.has(value)) {
    target.thinking = value;
    mark(path, {
      disposition: 'changed',
      target: targetPath,
      message: 'renamed: Switchboard calls the default thinking level "thinking"',
    });
  } else {
    mark(path, {
      disposition: 'unsupported',
      message: `thinking level "${value}" is not one of ${[...thinkingLevels].join(', ')}; set ${targetPath} by hand`,
    });
  }
}

function convertAgents(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
  options: ConvertConfigOptions,
): { shape: ConvertedConfig['shape']; agents: ImportedAgent[] } {
  const agentsSection = isRecord(raw.agents) ? raw.agents : {};
  const defaults = isRecord(agentsSection.defaults) ? agentsSection.defaults : {};
  const targetDefaults: Record<string, unknown> = {};
  const model = convertModelChoice(defaults.model);
  if (model !== undefined) {
    targetDefaults.model = model;
    mark('agents.defaults.model', { disposition: 'mapped', target: 'agents.defaults.model' });
  }
  convertThinking(
    defaults.thinkingDefault,
    'agents.defaults.thinkingDefault',
    targetDefaults,
    'agents.defaults.thinking',
    mark,
  );
  copyIfPresent(
    defaults,
    targetDefaults,
    ['timeoutSeconds', 'maxConcurrent', 'typingIntervalSeconds'],
    'agents.defaults',
    'agents.defaults',
    mark,
  );
  if (typeof defaults.userTimezone === 'string') {
    targetDefaults.timeZone = defaults.userTimezone;
    mark('agents.defaults.userTimezone', {
      disposition: 'changed',
      target: 'agents.defaults.timeZone',
      message: 'renamed',
    });
  }
  if (defaults.blockStreamingDefault !== undefined) {
    const on = defaults.blockStreamingDefault === 'on' || defaults.blockStreamingDefault === true;
    const breakAt = defaults.blockStreamingBreak === 'message_end' ? 'message_end' : 'text_end';
    targetDefaults.blockStreaming = on ? breakAt : 'off';
    mark('agents.defaults.blockStreamingDefault', {
      disposition: 'changed',
      target: 'agents.defaults.blockStreaming',
      message: 'one key in Switchboard: off, text_end or message_end (from blockStreamingBreak)',
    });
    if (defaults.blockStreamingBreak !== undefined)
      mark('agents.defaults.blockStreamingBreak', {
        disposition: 'changed',
        target: 'agents.defaults.blockStreaming',
      });
  }
  convertHeartbeat(
    defaults.heartbeat,
    'agents.defaults.heartbeat',
    targetDefaults,
    'agents.defaults.heartbeat',
    mark,
  );
  if (isRecord(defaults.compaction)) {
    const compaction: Record<string, unknown> = {};
    if (typeof defaults.compaction.reserveTokensFloor === 'number') {
      compaction.reserveTokens = defaults.compaction.reserveTokensFloor;
      mark('agents.defaults.compaction.reserveTokensFloor', {
        disposition: 'changed',
        target: 'agents.defaults.compaction.reserveTokens',
        message: 'Switchboard reserves exactly this many tokens (OpenClaw used it as a floor)',
      });
    }
    if (defaults.compaction.mode !== undefined)
      mark('agents.defaults.compaction.mode', {
        disposition: 'changed',
        target: 'agents.defaults.compaction.enabled',
        message: 'Switchboard has one compaction mode (summarize older turns, keep recent ones); it is on',
      });
    targetDefaults.compaction = compaction;
  }

  const listed: Array<{ id: string; value: Record<string, unknown>; prefix: string }> = [];
  let shape: ConvertedConfig['shape'] = 'none';
  if (Array.isArray(agentsSection.list)) {
    shape = 'classic';
    agentsSection.list.forEach((value, index) => {
      if (isRecord(value) && typeof value.id === 'string')
        listed.push({ id: value.id, value, prefix: `agents.list[${index}]` });
    });
  }
  if (isRecord(agentsSection.entries)) {
    shape = shape === 'classic' ? 'classic' : '2026.9';
    for (const [id, value] of Object.entries(agentsSection.entries)) {
      if (!isRecord(value) || listed.some((agent) => agent.id === id)) continue;
      listed.push({ id, value, prefix: `agents.entries.${id}` });
      if (shape === '2026.9')
        mark(`agents.entries.${id}`, {
          disposition: 'changed',
          target: 'agents.list[]',
          message: 'the keyed 2026.9 shape becomes a list entry with this id',
        });
    }
  }
  const defaultWorkspace =
    typeof defaults.workspace === 'string'
      ? resolveOpenClawPath(options.root, defaults.workspace)
      : join(options.root, 'workspace');
  targetDefaults.workspace = defaultWorkspace;
  if (typeof defaults.workspace === 'string')
    mark('agents.defaults.workspace', {
      disposition: 'mapped',
      target: 'agents.defaults.workspace',
      message: 'kept where it is (as an absolute path)',
    });
  const defaultId = listed.find((agent) => agent.value.default === true)?.id ?? listed[0]?.id ?? 'main';
  const agents: ImportedAgent[] = [];
  const list = listed.map(({ id, value, prefix }) => {
    const entry: Record<string, unknown> = { id };
    if (value.default === true) entry.default = true;
    if (prefix.startsWith('agents.list'))
      mark(`${prefix}.id`, { disposition: 'mapped', target: `${prefix}.id` });
    if (value.default !== undefined)
      mark(`${prefix}.default`, { disposition: 'mapped', target: 'agents.list[].default' });
    if (typeof value.name === 'string') {
      entry.name = value.name;
      mark(`${prefix}.name`, { disposition: 'mapped', target: 'agents.list[].name' });
    }
    const workspace =
      typeof value.workspace === 'string'
        ? resolveOpenClawPath(options.root, value.workspace)
        : id === defaultId
          ? defaultWorkspace
          : join(options.root, `workspace-${id}`);
    entry.workspace = workspace;
    if (value.workspace !== undefined)
      mark(`${prefix}.workspace`, { disposition: 'mapped', target: 'agents.list[].workspace' });
    const agentModel = convertModelChoice(value.model);
    if (agentModel !== undefined) {
      entry.model = agentModel;
      mark(`${prefix}.model`, { disposition: 'mapped', target: 'agents.list[].model' });
    }
    convertThinking(
      value.thinkingDefault,
      `${prefix}.thinkingDefault`,
      entry,
      'agents.list[].thinking',
      mark,
    );
    convertHeartbeat(value.heartbeat, `${prefix}.heartbeat`, entry, 'agents.list[].heartbeat', mark);
    if (isRecord(value.tools)) {
      const tools: Record<string, unknown> = {};
      copyIfPresent(value.tools, tools, ['allow', 'deny'], `${prefix}.tools`, 'agents.list[].tools', mark);
      if (Object.keys(tools).length > 0) entry.tools = tools;
    }
    agents.push({ id, isDefault: id === defaultId, workspace });
    return entry;
  });
  // State of agents that are not in the roster (removed from the config, or a config-less
  // directory) still imports; their sessions need an agent to run under.
  for (const id of options.agentDirectories) {
    if (agents.some((agent) => agent.id === id)) continue;
    if (listed.length === 0 && id === 'main') continue;
    const workspace = join(options.root, `workspace-${id}`);
    list.push({ id, workspace });
    agents.push({ id, isDefault: false, workspace });
  }
  if (listed.length === 0) agents.unshift({ id: 'main', isDefault: true, workspace: defaultWorkspace });
  const targetAgents: Record<string, unknown> = { defaults: targetDefaults };
  if (list.length > 0) targetAgents.list = list;
  config.agents = targetAgents;
  // agents.defaults.memorySearch is converted with memory.search (convertMemory).
  return { shape, agents };
}

function convertSession(raw: Record<string, unknown>, config: Record<string, unknown>, mark: Mark): void {
  const session = isRecord(raw.session) ? raw.session : {};
  const target: Record<string, unknown> = {};
  if (typeof session.dmScope === 'string') {
    target.dmScope = session.dmScope;
    mark('session.dmScope', { disposition: 'mapped', target: 'session.dmScope' });
  } else {
    // Switchboard's default is per-channel-peer; OpenClaw's is main. Writing OpenClaw's
    // default keeps every imported DM conversation under the key it had.
    target.dmScope = 'main';
  }
  copyIfPresent(
    session,
    target,
    ['mainKey', 'identityLinks', 'scope', 'resetByChannel', 'resetTriggers'],
    'session',
    'session',
    mark,
  );
  if (isRecord(session.reset)) {
    const reset: Record<string, unknown> = {};
    copyIfPresent(
      session.reset,
      reset,
      ['mode', 'atHour', 'idleMinutes'],
      'session.reset',
      'session.reset',
      mark,
    );
    target.reset = reset;
  } else if (typeof session.idleMinutes === 'number') {
    target.reset = { mode: 'idle', idleMinutes: session.idleMinutes };
    mark('session.idleMinutes', {
      disposition: 'changed',
      target: 'session.reset',
      message: 'the legacy key becomes reset.mode "idle" with reset.idleMinutes',
    });
  }
  if (isRecord(session.resetByType)) {
    const byType: Record<string, unknown> = {};
    for (const [kind, value] of Object.entries(session.resetByType)) {
      const targetKind = kind === 'dm' ? 'direct' : kind;
      if (!['direct', 'group', 'thread'].includes(targetKind)) continue;
      byType[targetKind] = value;
      mark(`session.resetByType.${kind}`, {
        disposition: kind === 'dm' ? 'changed' : 'mapped',
        target: `session.resetByType.${targetKind}`,
        ...(kind === 'dm' ? { message: 'the legacy "dm" is "direct"' } : {}),
      });
    }
    target.resetByType = byType;
  }
  if (isRecord(session.maintenance)) {
    const maintenance: Record<string, unknown> = {};
    const pruneAfter = session.maintenance.pruneAfter;
    const days =
      typeof pruneAfter === 'string' ? /^(\d+(?:\.\d+)?)d$/.exec(pruneAfter.trim())?.[1] : undefined;
    if (days !== undefined) {
      maintenance.pruneAfterDays = Number(days);
      mark('session.maintenance.pruneAfter', {
        disposition: 'changed',
        target: 'session.maintenance.pruneAfterDays',
        message: 'a number of days instead of a duration string',
      });
    }
    copyIfPresent(
      session.maintenance,
      maintenance,
      ['maxEntries'],
      'session.maintenance',
      'session.maintenance',
      mark,
    );
    target.maintenance = maintenance;
  }
  if (session.store !== undefined)
    mark('session.store', {
      disposition: 'unsupported',
      message:
        "sessions are imported into Switchboard's database (switchboard.db in the state directory); the path is not used",
    });
  config.session = target;
}

function convertMessages(raw: Record<string, unknown>, config: Record<string, unknown>, mark: Mark): void {
  const messages = raw.messages;
  if (!isRecord(messages) || !isRecord(messages.queue)) return;
  const queue: Record<string, unknown> = {};
  copyIfPresent(
    messages.queue,
    queue,
    ['mode', 'debounceMs', 'cap', 'drop', 'byChannel'],
    'messages.queue',
    'messages.queue',
    mark,
  );
  config.messages = { queue };
}

function convertAuth(raw: Record<string, unknown>, config: Record<string, unknown>, mark: Mark): void {
  const auth = raw.auth;
  if (!isRecord(auth)) return;
  const target: Record<string, unknown> = {};
  const dropped = new Set<string>();
  if (isRecord(auth.profiles)) {
    const profiles: Record<string, unknown> = {};
    for (const [id, value] of Object.entries(auth.profiles)) {
      if (!isRecord(value)) continue;
      if (value.mode !== 'api_key' && value.mode !== 'token') {
        dropped.add(id);
        mark(`auth.profiles.${id}`, {
          disposition: 'unsupported',
          message: `mode "${String(value.mode)}" (an OAuth login) is not supported: create an API key for ${String(value.provider)} and add it as an api_key profile`,
        });
        continue;
      }
      const profile: Record<string, unknown> = {};
      copyIfPresent(
        value,
        profile,
        ['provider', 'mode', 'email', 'displayName'],
        `auth.profiles.${id}`,
        `auth.profiles.${id}`,
        mark,
      );
      profiles[id] = profile;
    }
    target.profiles = profiles;
  }
  if (isRecord(auth.order)) {
    const order: Record<string, string[]> = {};
    for (const [provider, ids] of Object.entries(auth.order)) {
      if (!Array.isArray(ids)) continue;
      order[provider] = ids.filter((id): id is string => typeof id === 'string' && !dropped.has(id));
      mark(`auth.order.${provider}`, { disposition: 'mapped', target: `auth.order.${provider}` });
    }
    target.order = order;
  }
  if (isRecord(auth.cooldowns)) {
    target.cooldowns = auth.cooldowns;
    mark('auth.cooldowns', { disposition: 'mapped', target: 'auth.cooldowns' });
  }
  config.auth = target;
}

function convertChannels(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
  root: string,
): void {
  const channels = raw.channels;
  if (!isRecord(channels)) return;
  const target: Record<string, unknown> = {};
  for (const [id, value] of Object.entries(channels)) {
    if (!isRecord(value)) continue;
    const copy = structuredClone(value);
    const inlineTokenFile = (block: Record<string, unknown>, path: string) => {
      if (typeof block.tokenFile !== 'string') return;
      const file = resolveOpenClawPath(root, block.tokenFile);
      if (existsSync(file)) {
        block.botToken = readFileSync(file, 'utf8').trim();
        delete block.tokenFile;
        mark(`${path}.tokenFile`, {
          disposition: 'changed',
          target: `${path}.botToken`,
          message: `the token is read from ${file} now and written into switchboard.json (file mode 0600)`,
        });
      } else {
        delete block.tokenFile;
        mark(`${path}.tokenFile`, {
          disposition: 'unsupported',
          message: `${file} does not exist: set ${path}.botToken (or "\${TELEGRAM_BOT_TOKEN}")`,
        });
      }
    };
    inlineTokenFile(copy, `channels.${id}`);
    if (isRecord(copy.accounts))
      for (const [accountId, account] of Object.entries(copy.accounts))
        if (isRecord(account)) inlineTokenFile(account, `channels.${id}.accounts.${accountId}`);
    target[id] = copy;
    mark(`channels.${id}`, {
      disposition: 'mapped',
      target: `channels.${id}`,
      message: "copied as is; the channel's own schema checks it (see the validation below)",
    });
  }
  config.channels = target;
}

function convertTools(raw: Record<string, unknown>, config: Record<string, unknown>, mark: Mark): void {
  const tools = raw.tools;
  if (!isRecord(tools)) return;
  const target: Record<string, unknown> = {};
  copyIfPresent(tools, target, ['allow', 'deny'], 'tools', 'tools', mark);
  const fetch = isRecord(tools.web) && isRecord(tools.web.fetch) ? tools.web.fetch : undefined;
  if (fetch !== undefined && typeof fetch.enabled === 'boolean') {
    target.webFetch = { enabled: fetch.enabled };
    mark('tools.web.fetch.enabled', {
      disposition: 'changed',
      target: 'tools.webFetch.enabled',
      message: 'Switchboard fetches public addresses only unless tools.webFetch.allowPrivateNetworks is set',
    });
  }
  if (tools.exec !== undefined)
    mark('tools.exec', {
      disposition: 'unsupported',
      message:
        'Switchboard runs no shell: list the commands an agent may run in tools.exec.allow (bare names)',
    });
  config.tools = target;
}

function convertLogging(raw: Record<string, unknown>, config: Record<string, unknown>, mark: Mark): void {
  const logging = raw.logging;
  if (!isRecord(logging)) return;
  const target: Record<string, unknown> = {};
  if (typeof logging.level === 'string' && logLevels[logging.level] !== undefined) {
    target.level = logLevels[logging.level];
    const same = logLevels[logging.level] === logging.level;
    mark('logging.level', {
      disposition: same ? 'mapped' : 'changed',
      target: 'logging.level',
      ...(same ? {} : { message: `"${logging.level}" becomes "${logLevels[logging.level]}"` }),
    });
  }
  copyIfPresent(logging, target, ['file'], 'logging', 'logging', mark);
  config.logging = target;
}

function convertMemory(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
  options: ConvertConfigOptions,
): void {
  const defaults = isRecord(raw.agents) && isRecord(raw.agents.defaults) ? raw.agents.defaults : {};
  const modern = isRecord(raw.memory) ? raw.memory.search : undefined;
  const classic = defaults.memorySearch;
  const [search, path] =
    modern !== undefined ? [modern, 'memory.search'] : [classic, 'agents.defaults.memorySearch'];
  if (search === undefined) return;
  if (modern !== undefined && classic !== undefined)
    mark('agents.defaults.memorySearch', {
      disposition: 'unsupported',
      message: 'both shapes are set; memory.search (the 2026.9 key) wins, as in OpenClaw',
    });
  if (!options.hasMemorySection) {
    mark(path, {
      disposition: 'unsupported',
      message:
        'memory search is not part of this Switchboard build; MEMORY.md and memory/ stay in the workspace',
    });
    return;
  }
  setPath(config, ['memory', 'search'], search);
  mark(path, {
    disposition: path === 'memory.search' ? 'mapped' : 'changed',
    target: 'memory.search',
    ...(path === 'memory.search' ? {} : { message: 'the classic key moved to memory.search (2026.9 shape)' }),
  });
}
