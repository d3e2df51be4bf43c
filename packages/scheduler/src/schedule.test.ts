import { describe, expect, it } from 'vitest';
import type { SchedulerError } from './errors.ts';
import { nextRunAfter, validateSchedule } from './schedule.ts';

const at = (iso: string) => Date.parse(iso);

describe('nextRunAfter', () => {
  it('runs an `at` schedule once, and reads a time without an offset as UTC', () => {
    const schedule = { kind: 'at' as const, at: '2026-05-01T09:00:00' };
    expect(nextRunAfter(schedule, at('2026-04-30T00:00:00Z'), 0)).toBe(at('2026-05-01T09:00:00Z'));
    expect(nextRunAfter(schedule, at('2026-05-01T09:00:00Z'), 0)).toBeUndefined();
    const zoned = { kind: 'at' as const, at: '2026-05-01T09:00:00+02:00' };
    expect(nextRunAfter(zoned, 0, 0)).toBe(at('2026-05-01T07:00:00Z'));
  });

  it('counts an `every` schedule from its anchor, strictly after the given time', () => {
    const schedule = { kind: 'every' as const, everyMs: 60_000 };
    expect(nextRunAfter(schedule, 1_000, 1_000)).toBe(61_000);
    expect(nextRunAfter(schedule, 61_000, 1_000)).toBe(121_000);
    expect(nextRunAfter(schedule, 150_000, 1_000)).toBe(181_000);
    expect(nextRunAfter({ ...schedule, anchorMs: 500_000 }, 0, 1_000)).toBe(500_000);
  });

  it('evaluates 5-field cron in a time zone', () => {
    const schedule = { kind: 'cron' as const, expr: '0 9 * * *', tz: 'America/New_York' };
    // 9:00 in New York in January is 14:00 UTC (EST, UTC-5).
    expect(nextRunAfter(schedule, at('2026-01-10T15:00:00Z'), 0)).toBe(at('2026-01-11T14:00:00Z'));
    // In July it is 13:00 UTC (EDT, UTC-4).
    expect(nextRunAfter(schedule, at('2026-07-10T15:00:00Z'), 0)).toBe(at('2026-07-11T13:00:00Z'));
  });

  it('accepts 6-field cron (seconds) and defaults to UTC', () => {
    const schedule = { kind: 'cron' as const, expr: '30 * * * * *' };
    expect(nextRunAfter(schedule, at('2026-01-01T00:00:00Z'), 0)).toBe(at('2026-01-01T00:00:30Z'));
  });

  it('crosses a DST change the way croner does: a skipped local time runs at the shift, once', () => {
    const schedule = { kind: 'cron' as const, expr: '30 2 * * *', tz: 'Europe/Berlin' };
    // 2026-03-29: clocks jump from 02:00 to 03:00 in Berlin; 02:30 does not exist.
    const first = nextRunAfter(schedule, at('2026-03-28T12:00:00Z'), 0)!;
    expect(first).toBe(at('2026-03-29T01:00:00Z'));
    // The day after, 02:30 CEST is 00:30 UTC: 23.5 hours later, not 24.
    const second = nextRunAfter(schedule, first, 0)!;
    expect(second).toBe(at('2026-03-30T00:30:00Z'));
    // Autumn: 02:30 happens twice on 2026-10-25; the job runs once that day.
    const autumn = { kind: 'cron' as const, expr: '30 2 * * *', tz: 'Europe/Berlin' };
    const october = nextRunAfter(autumn, at('2026-10-24T12:00:00Z'), 0)!;
    const after = nextRunAfter(autumn, october, 0)!;
    expect(new Date(after).toISOString().slice(0, 10)).toBe('2026-10-26');
  });
});

describe('validateSchedule', () => {
  it.each([
    [{ kind: 'cron' as const, expr: 'every day' }, /cron "every day"/],
    [{ kind: 'cron' as const, expr: '0 9 * * *', tz: 'Mars/Olympus' }, /in Mars\/Olympus/],
    [{ kind: 'cron' as const, expr: '0 0 9 * * * 2030' }, /cron "0 0 9 \* \* \* 2030"/],
    [{ kind: 'at' as const, at: 'tomorrow at 9' }, /at "tomorrow at 9" is not an ISO time/],
  ])('refuses %j with a message naming it', (schedule, message) => {
    expect(() => validateSchedule(schedule)).toThrow(message);
    try {
      validateSchedule(schedule);
    } catch (error) {
      expect((error as SchedulerError).code).toBe('SCHEDULER_INVALID_SCHEDULE');
    }
  });
});
