import { describe, expect, it } from 'vitest';
import {
  applyResetPolicy,
  evaluateSessionFreshness,
  matchResetTrigger,
  type ResolvedResetPolicy,
  resolveResetPolicy,
  type SessionResetConfig,
  SessionsError,
} from '../src/index.ts';
import { nextDailyBoundary } from '../src/reset-policy.ts';
import { createClock, openStore } from './helpers.ts';

const at = (iso: string): number => Date.parse(iso);
const daily = (atHour = 4, idleMinutes?: number): ResolvedResetPolicy => ({
  mode: 'daily',
  atHour,
  idleMinutes,
});

describe('resolving the policy of a session', () => {
  const config: SessionResetConfig = {
    reset: { mode: 'daily', atHour: 5, idleMinutes: 120 },
    resetByType: { direct: { mode: 'idle', idleMinutes: 30 }, group: { atHour: 6 }, thread: { mode: 'off' } },
    resetByChannel: { discord: { idleMinutes: 15 }, slack: { mode: 'daily', atHour: 2 } },
  };

  it('defaults to a daily reset at 04:00 with no idle reset', () => {
    expect(resolveResetPolicy({})).toEqual({ mode: 'daily', atHour: 4, idleMinutes: undefined });
    expect(resolveResetPolicy({ reset: { mode: 'idle' } })).toEqual({
      mode: 'idle',
      atHour: 4,
      idleMinutes: 60,
    });
  });

  it('layers global, then chat type (thread before group), then channel, field by field', () => {
    expect(resolveResetPolicy(config, { chatType: 'direct', channel: 'telegram' })).toEqual({
      mode: 'idle',
      atHour: 5,
      idleMinutes: 30,
    });
    expect(resolveResetPolicy(config, { chatType: 'group', channel: 'telegram' })).toEqual({
      mode: 'daily',
      atHour: 6,
      idleMinutes: 120,
    });
    expect(resolveResetPolicy(config, { chatType: 'channel', isThread: true })).toEqual({
      mode: 'off',
      atHour: 5,
      idleMinutes: undefined,
    });
    expect(resolveResetPolicy(config, { chatType: 'direct', channel: 'Discord' })).toEqual({
      mode: 'idle',
      atHour: 5,
      idleMinutes: 15,
    });
    expect(resolveResetPolicy(config, { chatType: 'direct', channel: 'slack' })).toEqual({
      mode: 'daily',
      atHour: 2,
      idleMinutes: 30,
    });
  });

  it('rejects out-of-range settings naming the key path', () => {
    const cases: Array<[SessionResetConfig, string]> = [
      [{ reset: { atHour: 24 } }, 'session.reset.atHour'],
      [{ resetByType: { group: { idleMinutes: 0 } } }, 'session.resetByType.group.idleMinutes'],
      [{ resetByChannel: { discord: { mode: 'weekly' as never } } }, 'session.resetByChannel.discord.mode'],
      [{ resetTriggers: ['/new', ' '] }, 'session.resetTriggers[1]'],
    ];
    for (const [bad, path] of cases) {
      expect(() => resolveResetPolicy(bad)).toThrowError(
        expect.objectContaining({ code: 'SESSIONS_INVALID_CONFIG', message: expect.stringContaining(path) }),
      );
    }
  });
});

describe('freshness', () => {
  it('daily: stale once the first boundary after the session started has passed', () => {
    const session = { sessionStartedAt: at('2026-03-10T03:59:00Z') };
    const options = { timeZone: 'UTC' };
    expect(
      evaluateSessionFreshness(session, daily(), { ...options, now: at('2026-03-10T03:59:59Z') }),
    ).toEqual({
      fresh: true,
      dailyResetAt: at('2026-03-10T04:00:00Z'),
      idleExpiresAt: undefined,
    });
    expect(
      evaluateSessionFreshness(session, daily(), { ...options, now: at('2026-03-10T04:00:00Z') }),
    ).toEqual({
      fresh: false,
      reason: 'daily',
      expiredAt: at('2026-03-10T04:00:00Z'),
    });
    // Started just after the boundary: fresh until the next day's boundary.
    const later = { sessionStartedAt: at('2026-03-10T04:00:01Z') };
    expect(
      evaluateSessionFreshness(later, daily(), { ...options, now: at('2026-03-11T03:59:59Z') }).fresh,
    ).toBe(true);
    expect(
      evaluateSessionFreshness(later, daily(), { ...options, now: at('2026-03-11T04:00:00Z') }).fresh,
    ).toBe(false);
  });

  it('daily: the hour is wall-clock time in the gateway time zone, across daylight-saving changes', () => {
    // Berlin switches to summer time on 2026-03-29: 04:00 local is 02:00 UTC that day, 03:00 UTC the day before.
    expect(nextDailyBoundary(at('2026-03-27T12:00:00Z'), 4, 'Europe/Berlin')).toBe(
      at('2026-03-28T03:00:00Z'),
    );
    expect(nextDailyBoundary(at('2026-03-28T12:00:00Z'), 4, 'Europe/Berlin')).toBe(
      at('2026-03-29T02:00:00Z'),
    );
    expect(nextDailyBoundary(at('2026-01-15T08:59:59Z'), 4, 'America/New_York')).toBe(
      at('2026-01-15T09:00:00Z'),
    );
    expect(nextDailyBoundary(at('2026-01-15T09:00:00Z'), 4, 'America/New_York')).toBe(
      at('2026-01-16T09:00:00Z'),
    );
    expect(nextDailyBoundary(at('2026-06-30T23:30:00Z'), 0, 'Asia/Kolkata')).toBe(at('2026-07-01T18:30:00Z'));
    expect(() => nextDailyBoundary(0, 4, 'Mars/Olympus_Mons')).toThrowError(SessionsError);
  });

  it('daily: answers asked turn after turn (from the kept boundary) match the wall clock, in both directions of time', () => {
    // Every 37 minutes across Berlin's spring change, forwards and then backwards in time: the
    // kept boundary serves the instants before it, a new one is computed after it (or before
    // the instant it was computed for).
    const hourOf = (time: number) =>
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(time);
    const start = at('2026-03-27T00:00:00Z');
    const times = Array.from({ length: 4 * 39 }, (_, index) => start + index * 37 * 60_000);
    for (const time of [...times, ...times.reverse()]) {
      const boundary = nextDailyBoundary(time, 4, 'Europe/Berlin');
      expect(boundary).toBeGreaterThan(time);
      expect(hourOf(boundary)).toBe('04:00');
      // No boundary in between: the day before the answer is not after the instant asked.
      expect(boundary - 25 * 3_600_000).toBeLessThanOrEqual(time);
    }
  });

  it('idle: measured from the last real interaction, else from the start', () => {
    const policy: ResolvedResetPolicy = { mode: 'idle', atHour: 4, idleMinutes: 30 };
    const started = at('2026-03-10T10:00:00Z');
    expect(
      evaluateSessionFreshness({ sessionStartedAt: started }, policy, { now: started + 30 * 60_000 - 1 })
        .fresh,
    ).toBe(true);
    expect(
      evaluateSessionFreshness({ sessionStartedAt: started }, policy, { now: started + 30 * 60_000 }),
    ).toEqual({
      fresh: false,
      reason: 'idle',
      expiredAt: started + 30 * 60_000,
    });
    const active = { sessionStartedAt: started, lastInteractionAt: started + 20 * 60_000 };
    expect(evaluateSessionFreshness(active, policy, { now: started + 45 * 60_000 }).fresh).toBe(true);
  });

  it('daily with idle minutes: whichever expires first; off: never', () => {
    const session = {
      sessionStartedAt: at('2026-03-10T01:00:00Z'),
      lastInteractionAt: at('2026-03-10T03:00:00Z'),
    };
    const options = { timeZone: 'UTC', now: at('2026-03-10T05:00:00Z') };
    expect(evaluateSessionFreshness(session, daily(4, 30), options)).toEqual({
      fresh: false,
      reason: 'idle',
      expiredAt: at('2026-03-10T03:30:00Z'),
    });
    expect(evaluateSessionFreshness(session, daily(4, 120), options)).toEqual({
      fresh: false,
      reason: 'daily',
      expiredAt: at('2026-03-10T04:00:00Z'),
    });
    expect(
      evaluateSessionFreshness(session, { mode: 'off', atHour: 4, idleMinutes: undefined }, options).fresh,
    ).toBe(true);
  });
});

describe('reset triggers', () => {
  it('matches /new and /reset at the start, whole word, any case, with a Telegram bot suffix', () => {
    expect(matchResetTrigger('/new')).toEqual({ trigger: '/new', reason: 'new', remainder: '' });
    expect(matchResetTrigger('  /NEW claude-opus-4-1 ')).toEqual({
      trigger: '/new',
      reason: 'new',
      remainder: 'claude-opus-4-1',
    });
    expect(matchResetTrigger('/reset@my_bot please')).toEqual({
      trigger: '/reset',
      reason: 'reset',
      remainder: 'please',
    });
    expect(matchResetTrigger('/newt')).toBeUndefined();
    expect(matchResetTrigger('say /new')).toBeUndefined();
    expect(matchResetTrigger('/fresh start', ['/fresh'])).toEqual({
      trigger: '/fresh',
      reason: 'reset',
      remainder: 'start',
    });
    expect(matchResetTrigger('/new', ['/fresh'])).toBeUndefined();
  });
});

describe('applying the policy to the store', () => {
  it('resets a stale session once, even when two callers race', async () => {
    const clock = createClock(at('2026-03-10T03:00:00Z'));
    const store = await openStore({ now: clock.now });
    const { entry } = await store.ensureSession('agent:main:main', { agentId: 'main' });
    const policy = daily(4);
    const fresh = await applyResetPolicy(store, 'agent:main:main', policy, {
      now: clock.now(),
      timeZone: 'UTC',
    });
    expect(fresh).toEqual({ reset: false, entry });
    clock.advance(2 * 3_600_000);
    const [first, second] = await Promise.all([
      applyResetPolicy(store, 'agent:main:main', policy, { now: clock.now(), timeZone: 'UTC' }),
      applyResetPolicy(store, 'agent:main:main', policy, { now: clock.now(), timeZone: 'UTC' }),
    ]);
    const resets = [first, second].filter((result) => result.reset);
    expect(resets).toHaveLength(1);
    expect(resets[0]).toMatchObject({ reason: 'daily', previousSessionId: entry.sessionId });
    expect(first.entry.sessionId).toBe(second.entry.sessionId);
    expect((await store.getTranscript(entry.sessionId))?.archiveReason).toBe('daily');
    // The new session id started now, so it is fresh again.
    const again = await applyResetPolicy(store, 'agent:main:main', policy, {
      now: clock.now(),
      timeZone: 'UTC',
    });
    expect(again.reset).toBe(false);
    await expect(
      applyResetPolicy(store, 'agent:main:none', policy, { now: clock.now() }),
    ).rejects.toMatchObject({ code: 'SESSIONS_NOT_FOUND' });
  });
});
