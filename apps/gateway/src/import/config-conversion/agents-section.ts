// OpenClaw's `agents` section (classic `agents.list[]` or keyed 2026.9 `agents.entries`):
// the defaults (model, thinking, timeouts, block streaming, heartbeat, compaction,
// workspace) and each agent, plus agents found only on disk; workspaces stay where they are.
import { join } from 'node:path';
import { isRecord, resolveOpenClawPath } from '../openclaw-source.ts';
import { copyIfPresent } from './key-notes.ts';
import { convertHeartbeat } from './scheduler-section.ts';
import type { ConvertConfigOptions, ConvertedConfig, ImportedAgent, Mark } from './types.ts';

const thinkingLevels = new Set(['off', 'minimal', 'low', 'medium', 'high', 'xhigh']);

/** A model choice: `"<provider>/<model>"`, or `{ primary, fallbacks }`. */
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

/** `thinkingDefault` becomes `thinking` when it is a level Switchboard knows. */
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

/** Converts `agents` into `config.agents`; returns the roster shape and the imported agents. */
export function convertAgents(
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
