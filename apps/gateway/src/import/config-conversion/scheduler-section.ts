// The scheduler's keys: `cron` (the scheduler settings; the jobs are the "cron" import part)
// and an agent's `heartbeat`, copied where OpenClaw's keys and the scheduler's are the same.
import { cronConfigSchema, heartbeatConfigSchema } from '../../config/schema-scheduler.ts';
import { isRecord } from '../openclaw-source.ts';
import { copyIfPresent } from './key-notes.ts';
import type { Mark } from './types.ts';

const heartbeatKeys = Object.keys(heartbeatConfigSchema.shape);
const cronKeys = Object.keys(cronConfigSchema.shape);

/** `heartbeat` (defaults or one agent): OpenClaw's keys the scheduler's heartbeat shares. */
export function convertHeartbeat(
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

/** Converts `cron` into `config.cron`. */
export function convertCron(raw: Record<string, unknown>, config: Record<string, unknown>, mark: Mark): void {
  const cron = raw.cron;
  if (!isRecord(cron)) return;
  const target: Record<string, unknown> = {};
  copyIfPresent(cron, target, cronKeys, 'cron', 'cron', mark);
  if (Object.keys(target).length > 0) config.cron = target;
}
