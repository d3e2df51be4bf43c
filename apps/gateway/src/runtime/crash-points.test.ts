import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/errors.ts';
import { armCrashPoints } from './crash-points.ts';

describe('crash points (a test-only switch, decision 0007)', () => {
  it('is off without the variable', () => {
    expect(armCrashPoints({})).toBeUndefined();
    expect(armCrashPoints({ SWITCHBOARD_TEST_CRASH_AT: '' })).toBeUndefined();
  });

  it('refuses to start with the variable but without NODE_ENV=test', () => {
    const attempt = () => armCrashPoints({ SWITCHBOARD_TEST_CRASH_AT: 'after-journal' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/needs NODE_ENV=test/);
  });

  it('names the points it knows when given another, and refuses a bad occurrence', () => {
    expect(() => armCrashPoints({ NODE_ENV: 'test', SWITCHBOARD_TEST_CRASH_AT: 'after-lunch' })).toThrow(
      /after-journal, after-turn-persisted/,
    );
    expect(() => armCrashPoints({ NODE_ENV: 'test', SWITCHBOARD_TEST_CRASH_AT: 'after-journal:0' })).toThrow(
      /n ≥ 1/,
    );
  });

  it('says what it armed, for the start-up warning', () => {
    expect(armCrashPoints({ NODE_ENV: 'test', SWITCHBOARD_TEST_CRASH_AT: 'before-journal-closed:3' })).toBe(
      'before-journal-closed (occurrence 3)',
    );
    armCrashPoints({});
  });
});
