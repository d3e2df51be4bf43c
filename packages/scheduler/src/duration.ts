import { SchedulerError } from './errors.ts';

const unitMs: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Milliseconds of a duration written as a number of milliseconds or as text: `"30m"`, `"1h"`,
 * `"90s"`, `"1h30m"`, `"0"` (OpenClaw's heartbeat `every` spelling). Throws
 * SCHEDULER_INVALID_DURATION naming the text otherwise.
 */
export function parseDurationMs(value: string | number): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return Math.floor(value);
    throw new SchedulerError('SCHEDULER_INVALID_DURATION', `duration ${value} must be a non-negative number`);
  }
  const text = value.trim().toLowerCase();
  if (/^\d+$/.test(text)) return Number(text);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) {
    throw new SchedulerError(
      'SCHEDULER_INVALID_DURATION',
      `duration "${value}" is not like "30m", "1h", "90s", "1h30m" or "0"`,
    );
  }
  let total = 0;
  for (const part of parts) total += Number(part[1]) * (unitMs[part[2]!] ?? 0);
  return Math.round(total);
}
