// The bookkeeping every section converter shares: copying keys as they are (with a note
// each), and, after the conversion, a note for every leaf key nobody handled, with advice
// for what to do instead.
import { isRecord } from '../openclaw-source.ts';
import type { KeyNote, Mark } from './types.ts';

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

/** Copies `keys` of `source` that are set into `target`, each noted as mapped. */
export function copyIfPresent(
  source: Record<string, unknown>,
  target: Record<string, unknown>,
  keys: readonly string[],
  prefix: string,
  targetPrefix: string,
  mark: Mark,
): void {
  for (const key of keys) {
    if (source[key] === undefined) continue;
    target[key] = source[key];
    mark(`${prefix}.${key}`, { disposition: 'mapped', target: `${targetPrefix}.${key}` });
  }
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

/** Whether `path` or a parent of it was handled. */
function covered(path: string, handled: ReadonlySet<string>): boolean {
  let current = path;
  for (;;) {
    if (handled.has(current)) return true;
    const cut = Math.max(current.lastIndexOf('.'), current.lastIndexOf('['));
    if (cut <= 0) return false;
    current = current.slice(0, cut);
  }
}

/** What to do instead, for a key no converter handled. */
function adviceFor(path: string): string {
  const section = path.split(/[.[]/)[0] ?? path;
  const agentKey = /^agents\.(?:defaults|list\[\d+\]|entries\.[^.]+)\.([^.[]+)/.exec(path)?.[1];
  if (agentKey !== undefined && agentKeyAdvice[agentKey] !== undefined) return agentKeyAdvice[agentKey];
  return sectionAdvice[section] ?? 'Switchboard has no such setting; leave it out';
}

/** A note for every leaf key of `raw` no converter handled. */
export function unhandledNotes(raw: Record<string, unknown>, handled: ReadonlySet<string>): KeyNote[] {
  const notes: KeyNote[] = [];
  for (const path of leafPaths(raw, '')) {
    if (path === '' || covered(path, handled)) continue;
    notes.push({ path, disposition: 'unsupported', message: adviceFor(path) });
  }
  return notes;
}
