// Config of schedules (`cron`) and of the heartbeat (`agents.defaults.heartbeat`, and
// `agents.list[].heartbeat` per agent): @switchboard/scheduler, decision 0019.
import { z } from 'zod';

const durationSchema = z.union([
  z.number().int().nonnegative(),
  z.string().regex(/^(\d+|(\d+(\.\d+)?(ms|s|m|h|d))+)$/i, 'expected a duration like "30m", "1h", "90s" or 0'),
]);

const clockTimeSchema = z.string().regex(/^([01]?\d|2[0-4]):[0-5]\d$/, 'expected a time like "08:00"');

/** `agents.defaults.heartbeat` / `agents.list[].heartbeat`: an agent's periodic check of HEARTBEAT.md. */
export const heartbeatConfigSchema = z.strictObject({
  /** How often; "0" (or 0) turns the heartbeat off. Default "30m". */
  every: durationSchema.optional(),
  /** The heartbeat's instruction to the agent (default: OpenClaw's, ending "reply HEARTBEAT_OK"). */
  prompt: z.string().min(1).optional(),
  /** Where a heartbeat reply goes: the main session's last chat (`last`), nowhere (`none`) or a channel id. */
  target: z.string().min(1).optional(),
  /** The chat id on `target`'s channel (needed when `target` is a channel id). */
  to: z.string().min(1).optional(),
  accountId: z.string().min(1).optional(),
  /** Only run in this daily window (local time of `timezone`, default the host's). */
  activeHours: z
    .strictObject({ start: clockTimeSchema, end: clockTimeSchema, timezone: z.string().min(1).optional() })
    .optional(),
  /** A cheaper model for heartbeats (`provider/model`). */
  model: z.string().min(1).optional(),
  /** How many recent messages of the main session the heartbeat sees (its light context). Default 6. */
  recentMessages: z.number().int().min(0).max(50).optional(),
});

export type HeartbeatConfig = z.infer<typeof heartbeatConfigSchema>;

/** `cron`: scheduled jobs (added with the `cron` tool, `switchboard cron add` or `cron.add`). */
export const cronConfigSchema = z.strictObject({
  /** Jobs run only when true (default). False keeps them stored and idle; heartbeats stop too. */
  enabled: z.boolean().default(true),
  /** Failed runs in a row before an operator alert (log line, `cron` event, and a message to the job's target). Default 2. */
  failureAlertAfter: z.number().int().positive().default(2),
  /** Runs kept per job in the history. Default 50. */
  historyLimit: z.number().int().min(20).max(1000).default(50),
  /** A due time at most this old when the gateway starts counts as on time, not missed. Default 60. */
  missedGraceSeconds: z.number().int().nonnegative().default(60),
});
