// Cron jobs: ~/.openclaw/cron/jobs.json in 2026.6, the cron_jobs table of the shared database
// in 2026.9. Both hold OpenClaw's job model, which @switchboard/scheduler shares: each job is
// converted to a scheduler Job (same id, schedule, payload, delivery and next run time) and
// checked by the scheduler's own schema; what does not fit is reported with why.
import { existsSync } from 'node:fs';
import { type Job, jobSpecSchema } from '@switchboard/scheduler';
import {
  isRecord,
  type OpenClawLayout,
  openReadOnlyDatabase,
  readJsonFile,
  tableExists,
} from './openclaw-source.ts';

interface OpenClawCronJob {
  readonly id: string;
  readonly name: string;
  readonly enabled: boolean;
  readonly agentId: string | undefined;
  /** The job as OpenClaw stored it (schedule, payload, delivery, state). */
  readonly job: Readonly<Record<string, unknown>>;
  readonly source: string;
}

export async function readCronJobs(
  layout: OpenClawLayout,
): Promise<{ jobs: OpenClawCronJob[]; problems: string[] }> {
  const jobs: OpenClawCronJob[] = [];
  const problems: string[] = [];
  const add = (value: unknown, source: string, state?: unknown) => {
    if (!isRecord(value) || typeof value.id !== 'string') return;
    if (jobs.some((job) => job.id === value.id)) return;
    jobs.push({
      id: value.id,
      name: typeof value.name === 'string' ? value.name : value.id,
      enabled: value.enabled !== false,
      agentId: typeof value.agentId === 'string' ? value.agentId : undefined,
      job: isRecord(state) && value.state === undefined ? { ...value, state } : value,
      source,
    });
  };
  if (existsSync(layout.stateDatabasePath)) {
    const opened = await openReadOnlyDatabase(layout.stateDatabasePath);
    const database = opened.database;
    try {
      if (tableExists(database, 'cron_jobs')) {
        for (const row of database
          .prepare('SELECT job_id, job_json, state_json FROM cron_jobs ORDER BY sort_order, job_id')
          .all()) {
          try {
            add(
              JSON.parse(String(row.job_json)),
              `${layout.stateDatabasePath} (cron_jobs)`,
              JSON.parse(String(row.state_json)),
            );
          } catch {
            problems.push(
              `${layout.stateDatabasePath}: cron job ${String(row.job_id)} has unreadable JSON; not kept`,
            );
          }
        }
      }
    } finally {
      opened.close();
    }
  }
  if (existsSync(layout.cronJobsPath)) {
    const value = readJsonFile(layout.cronJobsPath);
    const list = Array.isArray(value)
      ? value
      : isRecord(value) && Array.isArray(value.jobs)
        ? value.jobs
        : [];
    for (const job of list) add(job, layout.cronJobsPath);
  }
  return { jobs, problems };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number'
      ? String(value)
      : undefined;
}

function scheduleOf(value: unknown): { schedule?: unknown; notes: string[] } {
  if (!isRecord(value)) return { notes: [] };
  if (value.kind === 'at') {
    const at = typeof value.atMs === 'number' ? new Date(value.atMs).toISOString() : value.at;
    return { schedule: { kind: 'at', at }, notes: [] };
  }
  if (value.kind === 'every')
    return {
      schedule: {
        kind: 'every',
        everyMs: value.everyMs,
        ...(typeof value.anchorMs === 'number' ? { anchorMs: value.anchorMs } : {}),
      },
      notes: [],
    };
  if (value.kind === 'cron')
    return {
      schedule: { kind: 'cron', expr: value.expr, ...(typeof value.tz === 'string' ? { tz: value.tz } : {}) },
      notes: value.staggerMs === undefined ? [] : ['staggerMs is not supported: it runs on the minute'],
    };
  return { schedule: value, notes: [] };
}

const runStatuses = new Set(['ok', 'error', 'skipped']);

/** OpenClaw's job as a scheduler Job, or why it cannot be one. */
export function toSchedulerJob(
  source: OpenClawCronJob,
  now: number,
): { job: Job; notes: string[] } | { job: undefined; reason: string } {
  const job = source.job;
  const notes: string[] = [];
  const target = job.sessionTarget;
  if (target !== undefined && target !== 'main' && target !== 'isolated')
    return {
      job: undefined,
      reason: `sessionTarget "${String(target)}" (2026.9) is not supported: add it again with the cron tool from the chat it belongs to`,
    };
  const payload = isRecord(job.payload) ? job.payload : {};
  const { schedule, notes: scheduleNotes } = scheduleOf(job.schedule);
  notes.push(...scheduleNotes);
  const delivery = isRecord(job.delivery) ? job.delivery : undefined;
  let convertedDelivery: Record<string, unknown> | undefined;
  if (delivery !== undefined) {
    if (delivery.mode === 'announce' || delivery.mode === 'none') {
      convertedDelivery = { mode: delivery.mode };
      for (const key of ['channel', 'to', 'accountId', 'threadId'] as const) {
        const value = text(delivery[key]);
        if (value !== undefined) convertedDelivery[key] = value;
      }
    } else
      notes.push(`delivery mode "${String(delivery.mode)}" is not supported: the reply is not delivered`);
  }
  const input = {
    name: source.name,
    agentId: source.agentId,
    enabled: source.enabled,
    ...(typeof job.deleteAfterRun === 'boolean' ? { deleteAfterRun: job.deleteAfterRun } : {}),
    schedule,
    sessionTarget: target,
    ...(typeof job.sessionKey === 'string' ? { sessionKey: job.sessionKey } : {}),
    payload:
      payload.kind === 'agentTurn'
        ? {
            kind: 'agentTurn',
            message: payload.message,
            ...(typeof payload.model === 'string' ? { model: payload.model } : {}),
            ...(typeof payload.thinking === 'string' ? { thinking: payload.thinking } : {}),
            ...(typeof payload.timeoutSeconds === 'number' ? { timeoutSeconds: payload.timeoutSeconds } : {}),
          }
        : payload.kind === 'systemEvent'
          ? { kind: 'systemEvent', text: payload.text }
          : payload,
    delivery: convertedDelivery,
  };
  const parsed = jobSpecSchema.safeParse(input);
  if (!parsed.success)
    return {
      job: undefined,
      reason: `the scheduler refuses it: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'job'}: ${issue.message}`).join('; ')}`,
    };
  const spec = parsed.data;
  const state = isRecord(job.state) ? job.state : {};
  const nextRunAtMs = typeof state.nextRunAtMs === 'number' ? state.nextRunAtMs : undefined;
  if (spec.enabled && nextRunAtMs === undefined)
    notes.push('OpenClaw recorded no next run: it stays idle until it is changed (switchboard cron)');
  return {
    job: {
      ...spec,
      sessionTarget: spec.sessionTarget ?? (spec.payload.kind === 'agentTurn' ? 'isolated' : 'main'),
      ...(spec.deleteAfterRun === undefined && spec.schedule.kind === 'at' ? { deleteAfterRun: true } : {}),
      id: source.id,
      createdAtMs: typeof job.createdAtMs === 'number' ? job.createdAtMs : now,
      updatedAtMs: typeof job.updatedAtMs === 'number' ? job.updatedAtMs : now,
      revision: 0,
      state: {
        nextRunAtMs,
        running: undefined,
        lastRunAtMs: typeof state.lastRunAtMs === 'number' ? state.lastRunAtMs : undefined,
        lastStatus: runStatuses.has(state.lastStatus as string)
          ? (state.lastStatus as 'ok' | 'error' | 'skipped')
          : undefined,
        lastError: typeof state.lastError === 'string' ? state.lastError : undefined,
        lastDeliveryStatus: undefined,
        consecutiveErrors: typeof state.consecutiveErrors === 'number' ? state.consecutiveErrors : 0,
        lastAlertAtMs: undefined,
      },
    },
    notes,
  };
}
