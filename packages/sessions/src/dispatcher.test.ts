import { describe, expect, it } from 'vitest';
import {
  createSessionDispatcher,
  type DispatcherEvent,
  type RunBatch,
  resolveQueueSettings,
  type SessionDispatcherOptions,
} from './dispatcher.ts';
import { SessionsError } from './errors.ts';
import { createManualTimers } from './timers.ts';

/** Lets settled promises run their handlers (no timers involved). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface ControlledRun {
  readonly batch: RunBatch<string>;
  readonly signal: AbortSignal;
  finish(): void;
  fail(error: unknown): void;
}

/** A dispatcher whose runs end only when the test says so. */
function controlled(options: Partial<SessionDispatcherOptions<string>> = {}) {
  const runs: ControlledRun[] = [];
  const events: Array<DispatcherEvent<string>> = [];
  const timers = createManualTimers();
  const dispatcher = createSessionDispatcher<string>({
    timers,
    runBatch: (batch, signal) =>
      new Promise<void>((resolve, reject) => {
        runs.push({ batch, signal, finish: resolve, fail: reject });
      }),
    onEvent: (event) => events.push(event),
    ...options,
  });
  const message = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    text: `text of ${id}`,
    payload: id,
    ...extra,
  });
  const ids = (run: ControlledRun | undefined) => run?.batch.messages.map((queued) => queued.id);
  return { dispatcher, runs, events, timers, message, ids };
}

describe('lanes', () => {
  it('runs 1,000 concurrent messages into one session one at a time, in arrival order', async () => {
    const order: number[] = [];
    let active = 0;
    let maxActive = 0;
    const dispatcher = createSessionDispatcher<number>({
      defaults: { mode: 'followup', debounceMs: 0, cap: 1000 },
      runBatch: async (batch) => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await settle();
        for (const queued of batch.messages) order.push(queued.payload);
        active -= 1;
      },
    });
    const results = Array.from({ length: 1000 }, (_, index) =>
      dispatcher.enqueue('agent:main:main', { id: `m-${index}`, text: `message ${index}`, payload: index }),
    );
    expect(results[0]).toMatchObject({ status: 'started' });
    expect(results[999]).toEqual({ status: 'queued', position: 999, reason: 'busy' });
    await dispatcher.whenIdle();
    expect(maxActive).toBe(1);
    expect(order).toEqual(Array.from({ length: 1000 }, (_, index) => index));
  });

  it('collect mode batches the same 1,000 messages without reordering or losing any', async () => {
    const batches: number[][] = [];
    const dispatcher = createSessionDispatcher<number>({
      defaults: { mode: 'collect', debounceMs: 0, cap: 1000 },
      runBatch: async (batch) => {
        await settle();
        batches.push(batch.messages.map((queued) => queued.payload));
      },
    });
    for (let index = 0; index < 1000; index += 1) {
      dispatcher.enqueue('agent:main:main', { id: `m-${index}`, text: `message ${index}`, payload: index });
    }
    await dispatcher.whenIdle();
    expect(batches.flat()).toEqual(Array.from({ length: 1000 }, (_, index) => index));
    expect(batches).toHaveLength(2);
  });

  it('holds the global cap across sessions, one run per session, each session in order', async () => {
    let running = 0;
    let maxRunning = 0;
    const perSession = new Map<string, number>();
    const seen = new Map<string, number[]>();
    let ticks = 0;
    const dispatcher = createSessionDispatcher<number>({
      maxConcurrentRuns: 4,
      defaults: { mode: 'followup', debounceMs: 0, cap: 100 },
      runBatch: async (batch) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        perSession.set(batch.sessionKey, (perSession.get(batch.sessionKey) ?? 0) + 1);
        expect(perSession.get(batch.sessionKey)).toBe(1);
        for (let tick = 0; tick < 1 + (ticks++ % 4); tick += 1) await settle();
        seen.set(batch.sessionKey, [
          ...(seen.get(batch.sessionKey) ?? []),
          ...batch.messages.map((queued) => queued.payload),
        ]);
        perSession.set(batch.sessionKey, 0);
        running -= 1;
      },
    });
    for (let round = 0; round < 10; round += 1) {
      for (let session = 0; session < 40; session += 1) {
        dispatcher.enqueue(`agent:main:s-${session}`, {
          id: `${session}-${round}`,
          text: 'x',
          payload: round,
        });
      }
    }
    expect(dispatcher.stats()).toMatchObject({
      runningRuns: 4,
      waitingRuns: 36,
      queuedMessages: 360,
      busySessions: 40,
    });
    await dispatcher.whenIdle();
    expect(maxRunning).toBe(4);
    expect(seen.size).toBe(40);
    for (const payloads of seen.values()) expect(payloads).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(dispatcher.stats()).toEqual({
      runningRuns: 0,
      waitingRuns: 0,
      queuedMessages: 0,
      busySessions: 0,
    });
  });

  it('a run waiting for a global slot holds nothing: other lanes and aborts are unaffected', async () => {
    const { dispatcher, runs, events, message, ids } = controlled({
      maxConcurrentRuns: 1,
      laneLimits: { cron: 1 },
      defaults: { debounceMs: 0 },
    });
    dispatcher.enqueue('a', message('a1'));
    const waiting = dispatcher.enqueue('b', message('b1'));
    expect(waiting.status).toBe('started');
    expect(dispatcher.status('b')).toEqual({
      active: { runId: 'run-2', phase: 'waiting' },
      queued: 0,
      overflowDropped: 0,
    });
    expect(events.some((event) => event.type === 'run_waiting' && event.sessionKey === 'b')).toBe(true);
    // Another global lane has its own slots.
    dispatcher.enqueue('c', message('c1', { lane: 'cron' }));
    expect(runs.map(ids)).toEqual([['a1'], ['c1']]);
    // Aborting the waiting run removes it without ever running it.
    expect(dispatcher.abort('b')).toEqual({ aborted: true, runId: 'run-2', cleared: 0 });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'run_end', runId: 'run-2', outcome: 'aborted' }),
    );
    dispatcher.enqueue('d', message('d1'));
    runs[0]!.finish();
    await settle();
    expect(runs.map(ids)).toEqual([['a1'], ['c1'], ['d1']]);
    runs[1]!.finish();
    runs[2]!.finish();
    await dispatcher.whenIdle();
  });

  it('a failing run is reported and the next message still runs', async () => {
    const { dispatcher, runs, events, message, ids } = controlled({
      defaults: { mode: 'followup', debounceMs: 0 },
    });
    dispatcher.enqueue('s', message('m1'));
    dispatcher.enqueue('s', message('m2'));
    runs[0]!.fail(new Error('model exploded'));
    await settle();
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'run_end',
        outcome: 'error',
        error: expect.objectContaining({ message: 'model exploded' }),
      }),
    );
    expect(ids(runs[1])).toEqual(['m2']);
    runs[1]!.finish();
    await dispatcher.whenIdle();
  });
});

describe('queue modes', () => {
  it('collect: waits for the debounce after the last message, then runs one batched turn', async () => {
    const { dispatcher, runs, timers, message, ids } = controlled();
    expect(dispatcher.enqueue('s', message('m1'))).toEqual({ status: 'started', runId: 'run-1' });
    expect(runs[0]!.batch).toMatchObject({ kind: 'immediate', prompt: 'text of m1' });
    dispatcher.enqueue('s', message('m2'));
    timers.advance(100);
    dispatcher.enqueue('s', message('m3', { text: 'second\nline' }));
    timers.advance(100);
    dispatcher.enqueue('s', message('m4'));
    timers.advance(100);
    runs[0]!.finish();
    await settle();
    // The last message came at t=200: the turn starts at t=1200, not 1000 after the run ended.
    timers.advance(899);
    expect(runs).toHaveLength(1);
    timers.advance(1);
    expect(runs).toHaveLength(2);
    expect(ids(runs[1])).toEqual(['m2', 'm3', 'm4']);
    expect(runs[1]!.batch.kind).toBe('collect');
    expect(runs[1]!.batch.prompt).toBe(
      [
        '[Queued messages while agent was busy]',
        '---\nQueued #1\ntext of m2',
        '---\nQueued #2\nsecond\nline',
        '---\nQueued #3\ntext of m4',
      ].join('\n\n'),
    );
    runs[1]!.finish();
    await dispatcher.whenIdle();
  });

  it('collect: a message arriving during the debounce extends it; different routes are not merged', async () => {
    const { dispatcher, runs, timers, message, ids } = controlled();
    dispatcher.enqueue('s', message('m1'));
    dispatcher.enqueue('s', message('m2', { routeKey: 'telegram:42' }));
    runs[0]!.finish();
    await settle();
    timers.advance(900);
    dispatcher.enqueue('s', message('m3', { routeKey: 'telegram:42' }));
    dispatcher.enqueue('s', message('m4', { routeKey: 'discord:7' }));
    timers.advance(999);
    expect(runs).toHaveLength(1);
    timers.advance(1);
    expect(ids(runs[1])).toEqual(['m2', 'm3']);
    runs[1]!.finish();
    await settle();
    expect(ids(runs[2])).toEqual(['m4']);
    expect(runs[2]!.batch.prompt).toBe('text of m4');
    runs[2]!.finish();
    await dispatcher.whenIdle();
  });

  it('followup: one queued message per turn, each after the debounce', async () => {
    const { dispatcher, runs, timers, message, ids } = controlled({ defaults: { mode: 'followup' } });
    dispatcher.enqueue('s', message('m1'));
    dispatcher.enqueue('s', message('m2'));
    dispatcher.enqueue('s', message('m3'));
    runs[0]!.finish();
    await settle();
    timers.advance(1000);
    expect(ids(runs[1])).toEqual(['m2']);
    expect(runs[1]!.batch.kind).toBe('followup');
    runs[1]!.finish();
    await settle();
    // The last enqueue was long ago: no further wait.
    expect(ids(runs[2])).toEqual(['m3']);
    runs[2]!.finish();
    await dispatcher.whenIdle();
  });

  it('steer: injects into a streaming run; falls back to a follow-up when the run cannot take it', async () => {
    let accepting = true;
    const steered: string[] = [];
    const { dispatcher, runs, events, timers, message, ids } = controlled({
      defaults: { mode: 'steer' },
      trySteer: (run, queued) => {
        expect(run.phase).toBe('running');
        if (!accepting) return false;
        steered.push(`${run.runId}:${queued.id}`);
        return true;
      },
    });
    dispatcher.enqueue('s', message('m1'));
    expect(dispatcher.enqueue('s', message('m2'))).toEqual({ status: 'steered', runId: 'run-1' });
    expect(steered).toEqual(['run-1:m2']);
    expect(events).toContainEqual(expect.objectContaining({ type: 'steered', runId: 'run-1' }));
    accepting = false; // e.g. the run is compacting
    expect(dispatcher.enqueue('s', message('m3'))).toEqual({
      status: 'queued',
      position: 1,
      reason: 'steer-fallback',
    });
    runs[0]!.finish();
    await settle();
    timers.advance(1000);
    expect(ids(runs[1])).toEqual(['m3']);
    expect(runs[1]!.batch.kind).toBe('followup');
    runs[1]!.finish();
    await dispatcher.whenIdle();
  });

  it('steer: a run still waiting for a global slot is not streaming, so the message queues', async () => {
    let asked = 0;
    const { dispatcher, runs, message } = controlled({
      maxConcurrentRuns: 1,
      defaults: { mode: 'steer' },
      trySteer: () => {
        asked += 1;
        return true;
      },
    });
    dispatcher.enqueue('a', message('a1'));
    dispatcher.enqueue('b', message('b1'));
    expect(dispatcher.enqueue('b', message('b2'))).toMatchObject({
      status: 'queued',
      reason: 'steer-fallback',
    });
    expect(asked).toBe(0);
    runs[0]!.finish();
    await settle();
    runs[1]!.finish();
    await settle();
  });

  it('interrupt: clears the queue, aborts the active run, then runs the new message', async () => {
    const { dispatcher, runs, events, timers, message, ids } = controlled();
    dispatcher.enqueue('s', message('m1'));
    dispatcher.enqueue('s', message('m2'));
    dispatcher.enqueue('s', message('m3'));
    const result = dispatcher.enqueue('s', message('m4', { mode: 'interrupt' }));
    expect(result).toEqual({ status: 'interrupting', abortedRunId: 'run-1', cleared: 2 });
    expect(runs[0]!.signal.aborted).toBe(true);
    expect((runs[0]!.signal.reason as Error).name).toBe('AbortError');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'dropped',
        reason: 'cleared',
        messages: [expect.objectContaining({ id: 'm2' }), expect.objectContaining({ id: 'm3' })],
      }),
    );
    // The new message waits until the aborted run has really ended; it gets no debounce.
    timers.advance(5000);
    expect(runs).toHaveLength(1);
    timers.advance(5000);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'interrupt_stalled', runId: 'run-1', waitedMs: 10_000 }),
    );
    runs[0]!.finish();
    await settle();
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'run_end', runId: 'run-1', outcome: 'aborted' }),
    );
    expect(ids(runs[1])).toEqual(['m4']);
    expect(runs[1]!.batch.kind).toBe('interrupt');
    // Interrupt into an idle session just runs.
    runs[1]!.finish();
    await settle();
    expect(dispatcher.enqueue('s', message('m5', { mode: 'interrupt' }))).toMatchObject({
      status: 'started',
    });
    runs[2]!.finish();
    await dispatcher.whenIdle();
  });

  it('drops heartbeats while busy and duplicates of a queued message', async () => {
    const { dispatcher, runs, events, message } = controlled();
    dispatcher.enqueue('s', message('m1'));
    expect(dispatcher.enqueue('s', message('heartbeat', { dropIfBusy: true }))).toEqual({
      status: 'dropped',
      reason: 'busy',
    });
    dispatcher.enqueue('s', message('m2'));
    expect(dispatcher.enqueue('s', message('m2'))).toEqual({ status: 'dropped', reason: 'duplicate' });
    expect(dispatcher.enqueue('s', message('m1'))).toEqual({ status: 'dropped', reason: 'duplicate' });
    expect(
      events
        .filter((event) => event.type === 'dropped')
        .map((event) => event.type === 'dropped' && event.reason),
    ).toEqual(['busy', 'duplicate', 'duplicate']);
    expect(dispatcher.status('s').queued).toBe(1);
    runs[0]!.finish();
    await dispatcher.close();
  });
});

describe('the per-session cap', () => {
  it('drop new: the incoming message is refused', () => {
    const { dispatcher, events, message } = controlled({ defaults: { cap: 2, drop: 'new' } });
    dispatcher.enqueue('s', message('m0'));
    dispatcher.enqueue('s', message('m1'));
    dispatcher.enqueue('s', message('m2'));
    expect(dispatcher.enqueue('s', message('m3'))).toEqual({ status: 'dropped', reason: 'cap' });
    expect(events.at(-1)).toMatchObject({ type: 'dropped', reason: 'cap-new', messages: [{ id: 'm3' }] });
    expect(dispatcher.status('s').queued).toBe(2);
  });

  it('drop old: the oldest queued messages make room', async () => {
    const { dispatcher, runs, events, timers, message, ids } = controlled({
      defaults: { cap: 2, drop: 'old' },
    });
    dispatcher.enqueue('s', message('m0'));
    for (const id of ['m1', 'm2', 'm3', 'm4']) dispatcher.enqueue('s', message(id));
    const dropped = events.filter((event) => event.type === 'dropped');
    expect(
      dropped.map(
        (event) => event.type === 'dropped' && [event.reason, event.messages.map((queued) => queued.id)],
      ),
    ).toEqual([
      ['cap-old', ['m1']],
      ['cap-old', ['m2']],
    ]);
    runs[0]!.finish();
    await settle();
    timers.advance(1000);
    expect(ids(runs[1])).toEqual(['m3', 'm4']);
    expect(runs[1]!.batch.overflow).toBeUndefined();
    runs[1]!.finish();
    await dispatcher.whenIdle();
  });

  it('summarize: takes the oldest out of the queue and carries a one-line summary of each into the next turn, which answers them', async () => {
    const { dispatcher, runs, events, timers, message } = controlled({
      defaults: { cap: 2, drop: 'summarize' },
    });
    dispatcher.enqueue('s', message('m0'));
    dispatcher.enqueue('s', message('m1', { text: '  first   dropped\n\tmessage  ' }));
    dispatcher.enqueue('s', message('m2', { text: `long ${'x'.repeat(300)}` }));
    dispatcher.enqueue('s', message('m3'));
    dispatcher.enqueue('s', message('m4'));
    expect(dispatcher.status('s')).toMatchObject({ queued: 2, overflowDropped: 2 });
    // Summarized messages are not dropped: nothing reports them as such.
    expect(events.filter((event) => event.type === 'dropped')).toEqual([]);
    expect(
      events.flatMap((event) =>
        event.type === 'summarized' ? event.messages.map((queued) => queued.id) : [],
      ),
    ).toEqual(['m1', 'm2']);
    expect(dispatcher.stats().queuedMessages).toBe(4);
    runs[0]!.finish();
    await settle();
    timers.advance(1000);
    const batch = runs[1]!.batch;
    expect(batch.messages.map((queued) => queued.id)).toEqual(['m3', 'm4']);
    expect(batch.summarized.map((queued) => queued.id)).toEqual(['m1', 'm2']);
    expect(batch.overflow).toEqual({
      dropped: 2,
      lines: ['first dropped message', `long ${'x'.repeat(154)}…`],
      messageIds: ['m1', 'm2'],
    });
    expect(batch.overflow!.lines[1]).toHaveLength(160);
    expect(batch.prompt).toBe(
      [
        '[Queued messages while agent was busy]',
        `[Queue overflow] Dropped 2 message(s) due to cap.\nSummary:\n- first dropped message\n- long ${'x'.repeat(154)}…`,
        '---\nQueued #1\ntext of m3',
        '---\nQueued #2\ntext of m4',
      ].join('\n\n'),
    );
    runs[1]!.finish();
    await dispatcher.whenIdle();
  });

  it('summarize in followup mode: the summary rides on the next message instead of taking its turn', async () => {
    const { dispatcher, runs, timers, message, ids } = controlled({
      defaults: { mode: 'followup', cap: 1, drop: 'summarize' },
    });
    dispatcher.enqueue('s', message('m0'));
    dispatcher.enqueue('s', message('m1'));
    dispatcher.enqueue('s', message('m2'));
    dispatcher.enqueue('s', message('m3'));
    runs[0]!.finish();
    await settle();
    timers.advance(1000);
    expect(ids(runs[1])).toEqual(['m3']);
    expect(runs[1]!.batch.prompt).toBe(
      '[Queue overflow] Dropped 2 message(s) due to cap.\nSummary:\n- text of m2\n\ntext of m3',
    );
    // At most `cap` summary lines are kept, the newest; the turn answers every summarized message.
    expect(runs[1]!.batch.overflow?.lines).toEqual(['text of m2']);
    expect(runs[1]!.batch.overflow?.messageIds).toEqual(['m1', 'm2']);
    expect(runs[1]!.batch.summarized.map((queued) => queued.id)).toEqual(['m1', 'm2']);
    runs[1]!.finish();
    await dispatcher.whenIdle();
  });

  it('summarize never carries one conversation into another: each route key gets its own summary', async () => {
    const { dispatcher, runs, timers, message, events } = controlled({
      defaults: { cap: 2, drop: 'summarize' },
    });
    dispatcher.enqueue('s', message('a0', { routeKey: 'alice' }));
    dispatcher.enqueue('s', message('a1', { routeKey: 'alice' }));
    dispatcher.enqueue('s', message('b1', { routeKey: 'bob' }));
    dispatcher.enqueue('s', message('b2', { routeKey: 'bob' }));
    dispatcher.enqueue('s', message('c1', { routeKey: 'carol' }));
    // a1 and b1 were summarized; the queue holds b2 and c1.
    expect(dispatcher.status('s')).toMatchObject({ queued: 2, overflowDropped: 2 });
    runs[0]!.finish();
    await settle();
    timers.advance(1000);
    // Alice has nothing left in the queue: her summarized message gets a turn of its own.
    const aliceTurn = runs[1]!.batch;
    expect(aliceTurn.messages.map((queued) => queued.id)).toEqual(['a1']);
    expect(aliceTurn.prompt).toBe(
      '[Queue overflow] Dropped 1 message(s) due to cap.\nSummary:\n- text of a1',
    );
    runs[1]!.finish();
    await settle();
    timers.advance(1000);
    // Bob's summary rides with Bob's queued message only.
    const bobTurn = runs[2]!.batch;
    expect(bobTurn.messages.map((queued) => queued.id)).toEqual(['b2']);
    expect(bobTurn.summarized.map((queued) => queued.id)).toEqual(['b1']);
    expect(bobTurn.prompt).not.toContain('a1');
    runs[2]!.finish();
    await settle();
    timers.advance(1000);
    const carolTurn = runs[3]!.batch;
    expect(carolTurn.messages.map((queued) => queued.id)).toEqual(['c1']);
    expect(carolTurn.summarized).toEqual([]);
    expect(carolTurn.prompt).toBe('text of c1');
    runs[3]!.finish();
    await dispatcher.whenIdle();
    expect(events.filter((event) => event.type === 'dropped')).toEqual([]);
  });

  it('clearing the queue reports summarized messages as cleared too', async () => {
    const { dispatcher, message, events, runs } = controlled({ defaults: { cap: 1, drop: 'summarize' } });
    dispatcher.enqueue('s', message('m0'));
    dispatcher.enqueue('s', message('m1'));
    dispatcher.enqueue('s', message('m2'));
    expect(dispatcher.abort('s')).toMatchObject({ aborted: true, cleared: 2 });
    const cleared = events.filter((event) => event.type === 'dropped' && event.reason === 'cleared');
    expect(
      cleared.flatMap((event) => (event.type === 'dropped' ? event.messages.map((m) => m.id) : [])),
    ).toEqual(['m1', 'm2']);
    runs[0]!.finish();
    await dispatcher.whenIdle();
  });
});

describe('control', () => {
  it('abort (/stop) aborts the active run and clears the queue', async () => {
    const { dispatcher, runs, message } = controlled();
    dispatcher.enqueue('s', message('m1'));
    dispatcher.enqueue('s', message('m2'));
    expect(dispatcher.abort('s')).toEqual({ aborted: true, runId: 'run-1', cleared: 1 });
    expect(runs[0]!.signal.aborted).toBe(true);
    runs[0]!.finish();
    await dispatcher.whenIdle();
    expect(runs).toHaveLength(1);
    expect(dispatcher.abort('unknown')).toEqual({ aborted: false, runId: undefined, cleared: 0 });
  });

  it('close returns every message that never ran and waits for running ones', async () => {
    const { dispatcher, runs, message } = controlled({ maxConcurrentRuns: 1 });
    dispatcher.enqueue('a', message('a1'));
    dispatcher.enqueue('a', message('a2'));
    dispatcher.enqueue('b', message('b1'));
    let closed = false;
    const closing = dispatcher.close().then((pending) => {
      closed = true;
      return pending;
    });
    await settle();
    expect(closed).toBe(false);
    runs[0]!.finish();
    const pending = await closing;
    expect(pending.map((queued) => queued.id)).toEqual(['a2', 'b1']);
    expect(runs).toHaveLength(1);
    expect(() => dispatcher.enqueue('a', message('late'))).toThrowError(
      expect.objectContaining({ code: 'SESSIONS_DISPATCHER_CLOSED' }),
    );
  });

  it('close with abort stops running turns', async () => {
    const { dispatcher, runs, message } = controlled();
    dispatcher.enqueue('a', message('a1'));
    const closing = dispatcher.close({ abort: true });
    expect(runs[0]!.signal.aborted).toBe(true);
    runs[0]!.finish();
    expect(await closing).toEqual([]);
  });

  it('resolves settings most specific first and validates them', () => {
    expect(
      resolveQueueSettings({ mode: 'steer' }, { mode: 'followup', cap: 5 }, undefined, { debounceMs: 300 }),
    ).toEqual({
      mode: 'steer',
      cap: 5,
      debounceMs: 300,
      drop: 'summarize',
    });
    expect(resolveQueueSettings()).toEqual({ mode: 'collect', debounceMs: 1000, cap: 20, drop: 'summarize' });
    const { dispatcher, message } = controlled();
    expect(() => dispatcher.enqueue('s', message('m', { cap: 0 }))).toThrowError(
      /message m\.cap must be an integer ≥ 1/,
    );
    expect(() => dispatcher.enqueue('s', message('m', { mode: 'queue' }))).toThrowError(SessionsError);
    expect(() => dispatcher.enqueue('', message('m'))).toThrowError(/sessionKey/);
    expect(() => createSessionDispatcher({ runBatch: () => {}, maxConcurrentRuns: 0 })).toThrowError(
      /maxConcurrentRuns/,
    );
  });
});
