// The job model (OpenClaw-shaped): what to run, when, where, and where its reply goes.
import { z } from 'zod';
import { SchedulerError } from './errors.ts';

/** When a job runs. */
export type Schedule =
  /** Once, at an ISO time (UTC when it has no offset). */
  | { kind: 'at'; at: string }
  /** Every `everyMs`, counted from `anchorMs` (default: when the job was added). */
  | { kind: 'every'; everyMs: number; anchorMs?: number | undefined }
  /** A 5- or 6-field cron expression evaluated by croner, in `tz` (IANA, default UTC). */
  | { kind: 'cron'; expr: string; tz?: string | undefined };

const scheduleSchema: z.ZodType<Schedule, Schedule> = z.discriminatedUnion('kind', [
  /** Once, at an ISO time (UTC when it has no offset). */
  z.object({ kind: z.literal('at'), at: z.string().min(1) }).strict(),
  /** Every `everyMs`, counted from `anchorMs` (default: when the job was added). */
  z
    .object({
      kind: z.literal('every'),
      everyMs: z.number().int().min(1000),
      anchorMs: z.number().int().nonnegative().optional(),
    })
    .strict(),
  /** A 5- or 6-field cron expression evaluated by croner, in `tz` (IANA, default UTC). */
  z.object({ kind: z.literal('cron'), expr: z.string().min(1), tz: z.string().min(1).optional() }).strict(),
]);

/** What a run does. */
type Payload =
  /** A text entered into the agent's main session as a system event. */
  | { kind: 'systemEvent'; text: string }
  /** A turn in a fresh isolated session `agent:<id>:cron:<jobId>:run:<runId>`. */
  | {
      kind: 'agentTurn';
      message: string;
      model?: string | undefined;
      thinking?: 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | undefined;
      timeoutSeconds?: number | undefined;
    }
  /** The heartbeat of an agent: made by the gateway from config, never by a user. */
  | { kind: 'heartbeat' };

const payloadSchema: z.ZodType<Payload, Payload> = z.discriminatedUnion('kind', [
  /** A text entered into the agent's main session as a system event. */
  z.object({ kind: z.literal('systemEvent'), text: z.string().min(1) }).strict(),
  /** A turn in a fresh isolated session `agent:<id>:cron:<jobId>:run:<runId>`. */
  z
    .object({
      kind: z.literal('agentTurn'),
      message: z.string().min(1),
      model: z.string().min(1).optional(),
      thinking: z.enum(['off', 'minimal', 'low', 'medium', 'high', 'xhigh']).optional(),
      timeoutSeconds: z.number().int().positive().optional(),
    })
    .strict(),
  /** The heartbeat of an agent: made by the gateway from config, never by a user. */
  z.object({ kind: z.literal('heartbeat') }).strict(),
]);

/** Where a run's final reply goes. `channel: "last"` is the main session's last route. */
export interface Delivery {
  mode: 'announce' | 'none';
  channel: string;
  to?: string | undefined;
  accountId?: string | undefined;
  threadId?: string | undefined;
}
type DeliveryInput = Omit<Delivery, 'channel'> & { channel?: string | undefined };

const deliverySchema: z.ZodType<Delivery, DeliveryInput> = z
  .object({
    mode: z.enum(['announce', 'none']),
    channel: z.string().min(1).default('last'),
    to: z.string().min(1).optional(),
    accountId: z.string().min(1).optional(),
    threadId: z.string().min(1).optional(),
  })
  .strict();

/** What happens to runs missed while the gateway was down: `skip` them, or run once now. */
type CatchUp = 'skip' | 'runOnce';
const catchUpSchema = z.enum(['skip', 'runOnce']);

/** A job as a user or the agent writes it (`cron.add`, the `cron` tool), defaults applied. */
export interface JobSpec {
  name: string;
  agentId?: string | undefined;
  enabled: boolean;
  /** Remove the job after its one-shot run (default true for `at` jobs). */
  deleteAfterRun?: boolean | undefined;
  schedule: Schedule;
  /** `main` for a systemEvent, `isolated` for an agentTurn (the default follows the payload). */
  sessionTarget: 'main' | 'isolated';
  /** The session a systemEvent enters (default the agent's main session): the chat a job was made in. */
  sessionKey?: string | undefined;
  payload: Payload;
  delivery?: Delivery | undefined;
  catchUp: CatchUp;
}

/** A job as written, before defaults. */
export interface JobSpecInput {
  name: string;
  agentId?: string | undefined;
  enabled?: boolean | undefined;
  deleteAfterRun?: boolean | undefined;
  schedule: Schedule;
  sessionTarget?: 'main' | 'isolated' | undefined;
  sessionKey?: string | undefined;
  payload: Payload;
  delivery?: DeliveryInput | undefined;
  catchUp?: CatchUp | undefined;
}

const jobSpecObject = z
  .object({
    name: z.string().min(1).max(200),
    agentId: z.string().min(1).optional(),
    enabled: z.boolean().default(true),
    deleteAfterRun: z.boolean().optional(),
    schedule: scheduleSchema,
    sessionTarget: z.enum(['main', 'isolated']).optional(),
    sessionKey: z.string().min(1).optional(),
    payload: payloadSchema,
    delivery: deliverySchema.optional(),
    catchUp: catchUpSchema.default('skip'),
  })
  .strict();

/** Validates a job as written (the `cron` tool's and `cron.add`'s parameters). */
export const jobSpecSchema: z.ZodType<
  Omit<JobSpec, 'sessionTarget'> & Pick<JobSpecInput, 'sessionTarget'>,
  JobSpecInput
> = jobSpecObject;

/** A change to a job: any field of the spec; `delivery: null` removes the delivery. */
export type JobPatch = Partial<Omit<JobSpecInput, 'delivery'>> & {
  delivery?: DeliveryInput | null | undefined;
};

/** Validates a job patch (`cron.update`, the `cron` tool's `update`). */
export const jobPatchSchema: z.ZodType<
  Partial<Omit<JobSpec, 'delivery'>> & { delivery?: Delivery | null | undefined },
  JobPatch
> = jobSpecObject
  .omit({ enabled: true, catchUp: true })
  .partial()
  .extend({
    enabled: z.boolean().optional(),
    catchUp: catchUpSchema.optional(),
    delivery: deliverySchema.nullable().optional(),
  })
  .strict();

/** The live state of a job, kept with it in the store. */
export interface JobState {
  /** When the next run is due; undefined for a disabled or finished job. */
  readonly nextRunAtMs: number | undefined;
  /** The run claimed and not yet finished (a restart resumes it with the same run id). */
  readonly running: ClaimedRun | undefined;
  readonly lastRunAtMs: number | undefined;
  readonly lastStatus: RunStatus | undefined;
  readonly lastError: string | undefined;
  readonly lastDeliveryStatus: DeliveryStatus | undefined;
  /** Failed runs in a row; drives the backoff and the failure alert. */
  readonly consecutiveErrors: number;
  readonly lastAlertAtMs: number | undefined;
}

/** A run claimed in the store before it starts. */
export interface ClaimedRun {
  readonly runId: string;
  /** The due time this run is for (a catch-up run keeps the missed time). */
  readonly scheduledForMs: number;
  readonly startedAtMs: number;
  readonly reason: RunReason;
}

export type RunReason = 'due' | 'catch_up' | 'manual';
export type RunStatus = 'ok' | 'error' | 'skipped';
export type DeliveryStatus = 'delivered' | 'not_delivered' | 'nothing_to_deliver' | 'not_requested';

/** A stored job: its spec, identity, revision (for compare-and-set claims) and state. */
export interface Job extends JobSpec {
  readonly id: string;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  /** Bumped by every write; a claim succeeds only on the revision it read. */
  readonly revision: number;
  readonly state: JobState;
}

function describeIssues(error: z.ZodError, what: string): string {
  return error.issues
    .map((issue) => `${what}${issue.path.length > 0 ? `.${issue.path.join('.')}` : ''}: ${issue.message}`)
    .join('; ');
}

/** The session target a payload implies: system events go to the main session. */
function sessionTargetOf(payload: Payload): 'main' | 'isolated' {
  return payload.kind === 'agentTurn' ? 'isolated' : 'main';
}

function checkTarget(spec: JobSpec): JobSpec {
  if (spec.payload.kind === 'systemEvent' && spec.sessionTarget !== 'main') {
    throw new SchedulerError(
      'SCHEDULER_INVALID_JOB',
      'job.sessionTarget: a systemEvent runs in the main session only',
    );
  }
  if (spec.payload.kind === 'agentTurn' && spec.sessionTarget !== 'isolated') {
    throw new SchedulerError(
      'SCHEDULER_INVALID_JOB',
      'job.sessionTarget: an agentTurn runs in an isolated session (use a systemEvent for the main session)',
    );
  }
  return spec;
}

/**
 * Validates a job as a user or the agent wrote it. Throws SCHEDULER_INVALID_JOB naming every
 * bad key path. `allowHeartbeat` is for the gateway's own heartbeat jobs.
 */
export function parseJobSpec(input: unknown, options: { allowHeartbeat?: boolean } = {}): JobSpec {
  const result = jobSpecSchema.safeParse(input);
  if (!result.success) throw new SchedulerError('SCHEDULER_INVALID_JOB', describeIssues(result.error, 'job'));
  const spec = {
    ...result.data,
    sessionTarget: result.data.sessionTarget ?? sessionTargetOf(result.data.payload),
  };
  if (spec.payload.kind === 'heartbeat' && options.allowHeartbeat !== true) {
    throw new SchedulerError(
      'SCHEDULER_INVALID_JOB',
      'job.payload.kind: heartbeat jobs are made from config only',
    );
  }
  return checkTarget(spec);
}

/** Applies a validated patch to a spec and validates the result. */
export function applyJobPatch(spec: JobSpec, patchInput: unknown): JobSpec {
  const result = jobPatchSchema.safeParse(patchInput);
  if (!result.success)
    throw new SchedulerError('SCHEDULER_INVALID_JOB', describeIssues(result.error, 'patch'));
  const { delivery, ...rest } = result.data;
  const { name, agentId, enabled, deleteAfterRun, schedule, sessionTarget, sessionKey, payload, catchUp } =
    spec;
  const current = {
    name,
    agentId,
    enabled,
    deleteAfterRun,
    schedule,
    sessionTarget,
    sessionKey,
    payload,
    catchUp,
  };
  const merged: Record<string, unknown> = {
    ...current,
    // Spread over `current` (decision 0028): an absent delivery keeps the job's own.
    ...(spec.delivery === undefined ? {} : { delivery: spec.delivery }),
    ...rest,
  };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  if (delivery === null) delete merged.delivery;
  else if (delivery !== undefined) merged.delivery = delivery;
  if (rest.payload !== undefined && rest.sessionTarget === undefined) {
    merged.sessionTarget = sessionTargetOf(rest.payload);
  }
  return parseJobSpec(merged, { allowHeartbeat: spec.payload.kind === 'heartbeat' });
}

/** A fresh job state: nothing run yet. */
export function initialJobState(nextRunAtMs: number | undefined): JobState {
  return {
    nextRunAtMs,
    running: undefined,
    lastRunAtMs: undefined,
    lastStatus: undefined,
    lastError: undefined,
    lastDeliveryStatus: undefined,
    consecutiveErrors: 0,
    lastAlertAtMs: undefined,
  };
}

/** The isolated session key of one run (OpenClaw #116507). */
export function isolatedSessionKey(agentId: string, jobId: string, runId: string): string {
  return `agent:${agentId}:cron:${jobId}:run:${runId}`;
}
