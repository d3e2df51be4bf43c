// The heartbeat of each agent as a scheduler job (`heartbeat-<agentId>`, made from config):
// it reads HEARTBEAT.md and makes no model call when the file has no tasks, outside active
// hours or while the main session is busy. When it runs, it runs light: a fresh heartbeat
// session with the prompt, the file and the main session's last few messages (never the
// whole history), on the optional cheaper model; `HEARTBEAT_OK` / `NO_REPLY` replies are dropped.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { normalizeAgentId, type RoutingConfig, resolveDefaultAgentId } from '@switchboard/routing';
import {
  decideHeartbeat,
  defaultHeartbeatPrompt,
  filterHeartbeatReply,
  type Job,
  parseDurationMs,
  type RunResult,
} from '@switchboard/scheduler';
import type { SessionStore } from '@switchboard/sessions';
import type { GatewayConfig } from '../../config/schema.ts';
import type { HeartbeatConfig } from '../../config/schema-scheduler.ts';

/** The job id of an agent's heartbeat. */
export const heartbeatJobId = (agentId: string): string => `heartbeat-${agentId}`;

/** A busy main session is asked again after this long. */
const heartbeatBusyRetryMs = 60_000;

export interface HeartbeatSettings extends HeartbeatConfig {
  readonly everyMs: number;
}

/** `agents.defaults.heartbeat` overlaid with the agent's own `heartbeat`. */
export function heartbeatSettings(config: GatewayConfig, agentId: string): HeartbeatSettings {
  const own = config.agents.list?.find((agent) => normalizeAgentId(agent.id) === agentId)?.heartbeat ?? {};
  const merged: HeartbeatConfig = { ...config.agents.defaults.heartbeat, ...own };
  return { ...merged, everyMs: parseDurationMs(merged.every ?? '30m') };
}

/** Every configured agent (or the default one). */
export function agentIds(config: GatewayConfig): string[] {
  const listed = config.agents.list?.map((agent) => normalizeAgentId(agent.id)) ?? [];
  return listed.length > 0
    ? [...new Set(listed)]
    : [resolveDefaultAgentId(config as unknown as RoutingConfig)];
}

/** The job spec of an agent's heartbeat. */
export function heartbeatJobSpec(agentId: string, everyMs: number): Record<string, unknown> {
  return {
    name: `heartbeat ${agentId}`,
    agentId,
    schedule: { kind: 'every', everyMs },
    sessionTarget: 'main',
    payload: { kind: 'heartbeat' },
    catchUp: 'skip',
  };
}

/** The file's text, or undefined when it does not exist. */
async function readHeartbeatFile(workspace: string): Promise<string | undefined> {
  try {
    return await readFile(join(workspace, 'HEARTBEAT.md'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: { type?: string; text?: string }) => (block.type === 'text' ? (block.text ?? '') : ''))
    .join('');
}

/** The last `count` user and assistant texts of the main session, as plain lines. */
async function recentTail(store: SessionStore, sessionKey: string, count: number): Promise<string> {
  if (count === 0 || (await store.getSession(sessionKey)) === undefined) return '';
  const context = await store.buildContext(sessionKey);
  const lines: string[] = [];
  for (const message of context.messages) {
    const role = (message as { role?: string }).role;
    if (role !== 'user' && role !== 'assistant') continue;
    const text = textOf((message as { content?: unknown }).content).trim();
    if (text !== '') lines.push(`${role}: ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`);
  }
  return lines.slice(-count).join('\n');
}

export interface HeartbeatPlan {
  /** Undefined when the heartbeat does not run now; the result says why. */
  readonly skip: RunResult | undefined;
  readonly prompt: string;
  readonly settings: HeartbeatSettings;
}

/** Decides whether this heartbeat runs, and builds its light prompt when it does. */
export async function planHeartbeat(options: {
  readonly job: Job;
  readonly config: GatewayConfig;
  readonly store: SessionStore;
  readonly workspace: string;
  readonly mainSessionKey: string;
  readonly busy: boolean;
  readonly nowMs: number;
}): Promise<HeartbeatPlan> {
  const agentId = options.job.agentId ?? 'main';
  const settings = heartbeatSettings(options.config, agentId);
  const content = await readHeartbeatFile(options.workspace);
  const decision = decideHeartbeat({
    nowMs: options.nowMs,
    fileContent: content,
    busy: options.busy,
    activeHours: settings.activeHours,
  });
  if (!decision.run) {
    return {
      skip: {
        status: 'skipped',
        detail: decision.detail,
        ...(decision.reason === 'busy' ? { retryInMs: heartbeatBusyRetryMs } : {}),
      },
      prompt: '',
      settings,
    };
  }
  const tail = await recentTail(options.store, options.mainSessionKey, settings.recentMessages ?? 6);
  const prompt = [
    settings.prompt ?? defaultHeartbeatPrompt,
    `HEARTBEAT.md:\n${(content ?? '').trim()}`,
    ...(tail === '' ? [] : [`Recent messages of the main conversation:\n${tail}`]),
  ].join('\n\n');
  return { skip: undefined, prompt, settings };
}

/** The reply to send, or undefined when it only acknowledges (`HEARTBEAT_OK`, `NO_REPLY`). */
export function heartbeatReply(text: string): string | undefined {
  const filtered = filterHeartbeatReply(text);
  return filtered.drop ? undefined : filtered.text;
}

/** Adds a run's tokens to the agent's heartbeat usage of the day (UTC), for `cron.status`. */
export async function recordHeartbeatUsage(
  store: SessionStore,
  agentId: string,
  nowMs: number,
  outcome: { ran: boolean; input: number; output: number; total: number },
): Promise<void> {
  const day = new Date(nowMs).toISOString().slice(0, 10);
  const key = `${agentId}:${day}`;
  const previous = ((await store.getState(heartbeatUsageNamespace, key))?.value ??
    {}) as Partial<HeartbeatUsageDay>;
  const next: HeartbeatUsageDay = {
    agentId,
    day,
    runs: (previous.runs ?? 0) + (outcome.ran ? 1 : 0),
    skipped: (previous.skipped ?? 0) + (outcome.ran ? 0 : 1),
    inputTokens: (previous.inputTokens ?? 0) + outcome.input,
    outputTokens: (previous.outputTokens ?? 0) + outcome.output,
    totalTokens: (previous.totalTokens ?? 0) + outcome.total,
  };
  // Kept 31 days.
  await store.putState(heartbeatUsageNamespace, key, next, { expiresAt: nowMs + 31 * 86_400_000 });
}

export const heartbeatUsageNamespace = 'heartbeat-usage';

/** One agent's heartbeat on one day (UTC). */
export interface HeartbeatUsageDay {
  readonly agentId: string;
  readonly day: string;
  readonly runs: number;
  readonly skipped: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
}
