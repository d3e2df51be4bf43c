import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { parseDurationMs } from './duration.ts';
import { SchedulerError, schedulerErrorCodes } from './errors.ts';

describe('scheduler error codes', () => {
  it('documents every code the source uses, and uses every documented code', () => {
    const table: ErrorCodeTable = schedulerErrorCodes;
    const used = new Set<string>();
    for (const name of readdirSync(import.meta.dirname)) {
      if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
      const text = readFileSync(join(import.meta.dirname, name), 'utf8');
      for (const match of text.matchAll(/'(SCHEDULER_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    for (const code of used) expect(table, `${code} is used but not documented`).toHaveProperty(code);
    for (const [code, sentence] of Object.entries(table)) {
      expect(used.has(code), `${code} is documented but never used`).toBe(true);
      expect(sentence.length).toBeGreaterThan(20);
    }
  });

  it('is a SwitchboardError', () => {
    const error = new SchedulerError('SCHEDULER_JOB_NOT_FOUND', 'no job with id x');
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.code).toBe('SCHEDULER_JOB_NOT_FOUND');
  });
});

describe('parseDurationMs', () => {
  it('reads OpenClaw-style durations', () => {
    expect(parseDurationMs('30m')).toBe(1_800_000);
    expect(parseDurationMs('1h30m')).toBe(5_400_000);
    expect(parseDurationMs('90s')).toBe(90_000);
    expect(parseDurationMs('0')).toBe(0);
    expect(parseDurationMs('0m')).toBe(0);
    expect(parseDurationMs(1500)).toBe(1500);
  });

  it('names the text it cannot read', () => {
    expect(() => parseDurationMs('half an hour')).toThrow('duration "half an hour" is not like');
    expect(() => parseDurationMs(-1)).toThrow('duration -1 must be a non-negative number');
  });
});
