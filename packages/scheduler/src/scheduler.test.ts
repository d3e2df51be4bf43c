import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteSessionStore, type SqliteSessionStore } from '@switchboard/sessions';
import { createManualTimers, type ManualTimers } from '@switchboard/sessions/internal';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SchedulerEvent } from './events.ts';
import { createScheduler, type RunContext, type RunResult, type Scheduler } from './scheduler.ts';
import { createStateSchedulerStore } from './state-store.ts';
import type { SchedulerStore } from './store.ts';

const start = Date.parse('2026-06-01T08:00:00Z');
const minute = 60_000;

let directory: string;
let sessions: SqliteSessionStore;
let store: SchedulerStore;
let timers: ManualTimers;
const schedulers: Scheduler[] = [];

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'scheduler-'));
  timers = createManualTimers(start);
  sessions = await createSqliteSessionStore({
    stateDirectory: directory,
    durability: 'normal',
    now: () => timers.now(),
    lock: { heartbeatMs: 0 },
  });
  store = createStateSchedulerStore(sessions);
});

afterEach(async () => {
  for (const scheduler of schedulers.splice(0)) await scheduler.stop();
  await sessions.close();
  rmSync(directory, { recursive: true, force: true });
});

interface Harness {
  scheduler: Scheduler;
  calls: RunContext[];
  events: SchedulerEvent[];
}

function harness(
  behaviour: (context: RunContext) => Promise<RunResult> = async () => ({
    status: 'ok',
    deliveryStatus: 'delivered',
  }),
  options: { store?: SchedulerStore; missedGraceMs?: number } = {},
): Harness {
  const calls: RunContext[] = [];
  const events: SchedulerEvent[] = [];
  const scheduler = createScheduler({
    store: options.store ?? store,
    timers,
    missedGraceMs: options.missedGraceMs,
    onEvent: (event) => events.push(event),
    execute: (context) => {
      calls.push(context);
      return behaviour(context);
    },
  });
  schedulers.push(scheduler);
  return { scheduler, calls, events };
}

const finished = (events: SchedulerEvent[]) => events.filter((event) => event.type === 'run_finished');

const everyMinute = {
  name: 'check mail',
  schedule: { kind: 'every', everyMs: minute },
  payload: { kind: 'agentTurn', message: 'check the mail' },
};

describe('the scheduler', () => {
  it('fires an `every` job once per period and keeps its history', async () => {
    const { scheduler, calls, events } = harness();
    await scheduler.start();
    const job = await scheduler.add(everyMinute);
    expect(job.state.nextRunAtMs).toBe(start + minute);
    timers.advance(minute - 1);
    expect(calls).toHaveLength(0);
    timers.advance(1);
    await vi.waitFor(() => expect(finished(events)).toHaveLength(1));
    timers.advance(minute);
    await vi.waitFor(() => expect(finished(events)).toHaveLength(2));
    expect(calls.map((call) => call.run.scheduledForMs)).toEqual([start + minute, start + 2 * minute]);
    expect(new Set(calls.map((call) => call.run.runId)).size).toBe(2);
    const runs = await scheduler.runs(job.id);
    expect(runs.map((run) => [run.status, run.deliveryStatus])).toEqual([
      ['ok', 'delivered'],
      ['ok', 'delivered'],
    ]);
    expect(runs[0]!.scheduledForMs).toBe(start + 2 * minute);
    expect((await scheduler.get(job.id))!.state.nextRunAtMs).toBe(start + 3 * minute);
  });

  it('keeps one timer for a thousand jobs, armed for the earliest', async () => {
    const { scheduler } = harness();
    await scheduler.start();
    for (let index = 0; index < 1000; index += 1) {
      await scheduler.add({
        ...everyMinute,
        name: `job ${index}`,
        schedule: { kind: 'every', everyMs: (index + 2) * minute },
      });
    }
    expect(timers.pending()).toBe(1);
    expect(scheduler.status()).toMatchObject({
      jobs: 1000,
      scheduled: 1000,
      nextWakeAtMs: start + 2 * minute,
      wakeups: 0,
    });
  });

  it('runs an `at` job once and removes it (deleteAfterRun defaults to true)', async () => {
    const { scheduler, calls, events } = harness();
    await scheduler.start();
    const job = await scheduler.add({
      name: 'reminder',
      schedule: { kind: 'at', at: new Date(start + 5 * minute).toISOString() },
      payload: { kind: 'systemEvent', text: 'Call the dentist' },
    });
    expect(job.sessionTarget).toBe('main');
    timers.advance(10 * minute);
    await vi.waitFor(() => expect(events.some((event) => event.type === 'job_removed')).toBe(true));
    expect(calls).toHaveLength(1);
    expect(await scheduler.list()).toEqual([]);
    timers.advance(60 * minute);
    expect(calls).toHaveLength(1);
  });

  it('claims a due run once when two schedulers share the store', async () => {
    const first = harness();
    const second = harness();
    await first.scheduler.start();
    await first.scheduler.add(everyMinute);
    await second.scheduler.start();
    timers.advance(minute);
    await vi.waitFor(() => expect(finished(first.events).length + finished(second.events).length).toBe(1));
    // Let any late claim attempt finish before counting.
    await sessions.listState('scheduler-jobs');
    expect(first.calls.length + second.calls.length).toBe(1);
  });

  it('resumes a run claimed before a crash with the same run id, and runs it only once', async () => {
    const crashed = harness(() => new Promise<RunResult>(() => undefined));
    await crashed.scheduler.start();
    const job = await crashed.scheduler.add(everyMinute);
    timers.advance(minute);
    await vi.waitFor(() => expect(crashed.calls).toHaveLength(1));
    const claimedRunId = crashed.calls[0]!.run.runId;
    expect((await store.getJob(job.id))!.state.running?.runId).toBe(claimedRunId);
    schedulers.splice(schedulers.indexOf(crashed.scheduler), 1); // the process died: no stop()

    const restarted = harness();
    await restarted.scheduler.start();
    await vi.waitFor(() => expect(finished(restarted.events)).toHaveLength(1));
    expect(restarted.calls).toHaveLength(1);
    expect(restarted.calls[0]!.resumed).toBe(true);
    expect(restarted.calls[0]!.run.runId).toBe(claimedRunId);
    const runs = await restarted.scheduler.runs(job.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ runId: claimedRunId, status: 'ok' });
    // The schedule carries on from the next period.
    timers.advance(minute);
    await vi.waitFor(() => expect(restarted.calls).toHaveLength(2));
    expect(restarted.calls[1]!.resumed).toBe(false);
  });

  it('leaves a run interrupted by stop() claimed, and the next start resumes it', async () => {
    const first = harness(
      ({ signal }) =>
        new Promise<RunResult>((resolve) => {
          signal.addEventListener('abort', () => resolve({ status: 'error', error: 'shutting down' }));
        }),
    );
    await first.scheduler.start();
    const job = await first.scheduler.add(everyMinute);
    timers.advance(minute);
    await vi.waitFor(() => expect(first.calls).toHaveLength(1));
    await first.scheduler.stop();
    expect(finished(first.events)).toHaveLength(0);
    expect((await store.getJob(job.id))!.state.running?.runId).toBe(first.calls[0]!.run.runId);
    const second = harness();
    await second.scheduler.start();
    await vi.waitFor(() => expect(finished(second.events)).toHaveLength(1));
    expect(second.calls[0]).toMatchObject({ resumed: true, run: { runId: first.calls[0]!.run.runId } });
    expect((await store.getJob(job.id))!.state.consecutiveErrors).toBe(0);
  });

  it('skips runs missed while the gateway was down by default, and says so', async () => {
    const before = harness();
    await before.scheduler.start();
    const job = await before.scheduler.add(everyMinute);
    await before.scheduler.stop();
    timers.advance(30 * minute); // the gateway is down
    const after = harness();
    await after.scheduler.start();
    expect(after.calls).toHaveLength(0);
    expect(after.events).toContainEqual({
      type: 'run_missed',
      jobId: job.id,
      scheduledForMs: start + minute,
      nextRunAtMs: start + 31 * minute,
    });
    const runs = await after.scheduler.runs(job.id);
    expect(runs[0]).toMatchObject({ status: 'skipped', detail: expect.stringContaining('catchUp: skip') });
    timers.advance(minute);
    await vi.waitFor(() => expect(after.calls).toHaveLength(1));
    expect(after.calls[0]!.run.scheduledForMs).toBe(start + 31 * minute);
  });

  it('runs once for all missed runs with catchUp: runOnce', async () => {
    const before = harness();
    await before.scheduler.start();
    const job = await before.scheduler.add({ ...everyMinute, catchUp: 'runOnce' });
    await before.scheduler.stop();
    timers.advance(30 * minute);
    const after = harness();
    await after.scheduler.start();
    await vi.waitFor(() => expect(finished(after.events)).toHaveLength(1));
    expect(after.calls).toHaveLength(1);
    expect(after.calls[0]!.run).toMatchObject({ reason: 'catch_up', scheduledForMs: start + minute });
    expect((await after.scheduler.get(job.id))!.state.nextRunAtMs).toBe(start + 31 * minute);
  });

  it('runs a job due less than the grace period ago normally after a quick restart', async () => {
    const before = harness();
    await before.scheduler.start();
    await before.scheduler.add(everyMinute);
    await before.scheduler.stop();
    timers.advance(minute + 10_000);
    const after = harness();
    await after.scheduler.start();
    timers.advance(0); // the timer is armed with no delay
    await vi.waitFor(() => expect(after.calls).toHaveLength(1));
    expect(after.calls[0]!.run.reason).toBe('due');
  });

  it('backs off a failing job and alerts after two failures in a row, once per cooldown', async () => {
    const { scheduler, calls, events } = harness(async () => ({
      status: 'error',
      error: 'model unavailable',
    }));
    await scheduler.start();
    const job = await scheduler.add(everyMinute);
    timers.advance(minute);
    await vi.waitFor(() => expect(finished(events)).toHaveLength(1));
    let state = (await scheduler.get(job.id))!.state;
    expect(state).toMatchObject({
      consecutiveErrors: 1,
      lastStatus: 'error',
      lastError: 'model unavailable',
    });
    // 30 s backoff is shorter than the period: the next run keeps its time.
    expect(state.nextRunAtMs).toBe(start + 2 * minute);
    timers.advance(minute);
    await vi.waitFor(() => expect(finished(events)).toHaveLength(2));
    state = (await scheduler.get(job.id))!.state;
    expect(state.consecutiveErrors).toBe(2);
    expect(events.filter((event) => event.type === 'failure_alert')).toHaveLength(1);
    // The second failure waits 1 min; the third 5 min, beyond the 1 min period.
    timers.advance(minute);
    await vi.waitFor(() => expect(finished(events)).toHaveLength(3));
    state = (await scheduler.get(job.id))!.state;
    expect(state.consecutiveErrors).toBe(3);
    expect(state.nextRunAtMs).toBe(start + 3 * minute + 5 * minute);
    expect(events.filter((event) => event.type === 'failure_alert')).toHaveLength(1);
    timers.advance(4 * minute);
    expect(calls).toHaveLength(3);
  });

  it('resets the error count after a success', async () => {
    let fail = true;
    const { scheduler, events } = harness(async () =>
      fail ? { status: 'error', error: 'boom' } : { status: 'ok' },
    );
    await scheduler.start();
    const job = await scheduler.add(everyMinute);
    timers.advance(minute);
    await vi.waitFor(() => expect(finished(events)).toHaveLength(1));
    fail = false;
    timers.advance(minute);
    await vi.waitFor(() => expect(finished(events)).toHaveLength(2));
    expect((await scheduler.get(job.id))!.state).toMatchObject({ consecutiveErrors: 0, lastStatus: 'ok' });
  });

  it('defers a run when the executor says so, without counting it as a run', async () => {
    let busy = true;
    const { scheduler, calls, events } = harness(async () =>
      busy ? { status: 'skipped', detail: 'busy', retryInMs: 10_000 } : { status: 'ok' },
    );
    await scheduler.start();
    const job = await scheduler.add(everyMinute);
    timers.advance(minute);
    await vi.waitFor(() => expect(finished(events)).toHaveLength(1));
    expect((await scheduler.get(job.id))!.state.nextRunAtMs).toBe(start + minute + 10_000);
    busy = false;
    timers.advance(10_000);
    await vi.waitFor(() => expect(finished(events)).toHaveLength(2));
    expect(calls).toHaveLength(2);
    expect((await scheduler.get(job.id))!.state.nextRunAtMs).toBe(start + 2 * minute);
  });

  it('runs a job on demand without moving its schedule, and refuses a second run meanwhile', async () => {
    let release: () => void = () => undefined;
    const { scheduler } = harness(
      () =>
        new Promise<RunResult>((resolve) => {
          release = () => resolve({ status: 'ok', detail: 'done' });
        }),
    );
    await scheduler.start();
    const job = await scheduler.add(everyMinute);
    const running = scheduler.run(job.id);
    await vi.waitFor(async () => expect((await scheduler.get(job.id))!.state.running).toBeDefined());
    await expect(scheduler.run(job.id)).rejects.toMatchObject({ code: 'SCHEDULER_JOB_RUNNING' });
    release();
    const entry = await running;
    expect(entry).toMatchObject({ reason: 'manual', status: 'ok', detail: 'done' });
    expect((await scheduler.get(job.id))!.state.nextRunAtMs).toBe(start + minute);
  });

  it('updates, disables and removes jobs, re-arming the timer', async () => {
    const { scheduler, calls } = harness();
    await scheduler.start();
    const job = await scheduler.add(everyMinute);
    const slower = await scheduler.update(job.id, { schedule: { kind: 'every', everyMs: 10 * minute } });
    expect(slower.state.nextRunAtMs).toBe(start + 10 * minute);
    const disabled = await scheduler.update(job.id, { enabled: false });
    expect(disabled.state.nextRunAtMs).toBeUndefined();
    timers.advance(20 * minute);
    expect(calls).toHaveLength(0);
    expect(timers.pending()).toBe(0);
    await scheduler.update(job.id, { enabled: true });
    expect(timers.pending()).toBe(1);
    expect(await scheduler.remove(job.id)).toBe(true);
    expect(timers.pending()).toBe(0);
    await expect(scheduler.update(job.id, { enabled: true })).rejects.toMatchObject({
      code: 'SCHEDULER_JOB_NOT_FOUND',
    });
  });

  it('refuses bad jobs with the key path', async () => {
    const { scheduler } = harness();
    await scheduler.start();
    await expect(scheduler.add({ ...everyMinute, schedule: { kind: 'every', everyMs: 10 } })).rejects.toThrow(
      /job\.schedule\.everyMs/,
    );
    await expect(
      scheduler.add({
        ...everyMinute,
        payload: { kind: 'systemEvent', text: 'x' },
        sessionTarget: 'isolated',
      }),
    ).rejects.toThrow(/job\.sessionTarget: a systemEvent runs in the main session only/);
    await expect(scheduler.add({ ...everyMinute, payload: { kind: 'heartbeat' } })).rejects.toMatchObject({
      code: 'SCHEDULER_INVALID_JOB',
    });
    await expect(
      scheduler.add({ ...everyMinute, schedule: { kind: 'at', at: new Date(start - minute).toISOString() } }),
    ).rejects.toMatchObject({ code: 'SCHEDULER_INVALID_SCHEDULE' });
    await expect(scheduler.update('nope', {})).rejects.toMatchObject({ code: 'SCHEDULER_JOB_NOT_FOUND' });
  });
});
