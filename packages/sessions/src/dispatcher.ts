/**
 * Lanes and queue modes: decides when each inbound message runs.
 *
 * - One run per session at a time (the session lane); a run then waits for a slot in its
 *   global lane (`main` by default, capped by `maxConcurrentRuns`). A run waiting for a
 *   global slot holds nothing another session needs: slots are only taken to run.
 * - While a session is busy (a run is active, or messages are waiting for their debounce)
 *   new messages follow their queue mode: `collect`, `followup`, `steer`, `interrupt`
 *   (see the README's table), bounded by a per-session cap with a drop policy.
 *
 * The dispatcher knows nothing about agents: the gateway passes `runBatch` (run one turn;
 * honour the AbortSignal) and `trySteer` (inject into the active run if it is streaming and
 * not compacting). Nothing here is persisted: the inbound journal is the durable record.
 */
import { SessionsError } from './errors.ts';
import {
  formatCollectPrompt,
  formatOverflowSummary,
  type OverflowSummary,
  summarizeLine,
} from './queue-format.ts';
import { systemTimers, type Timers } from './timers.ts';
import type { QueueDropPolicy, QueueMode } from './types.ts';

/** Queue behaviour for one message. */
export interface QueueSettings {
  readonly mode: QueueMode;
  /** Quiet time after the last enqueue before a queued turn starts. */
  readonly debounceMs: number;
  /** At most this many messages wait per session. */
  readonly cap: number;
  readonly drop: QueueDropPolicy;
}

/** OpenClaw's defaults: collect, 1 s debounce, cap 20, summarize. */
export const defaultQueueSettings: QueueSettings = Object.freeze({
  mode: 'collect',
  debounceMs: 1000,
  cap: 20,
  drop: 'summarize',
});

/**
 * Merges settings layers, the first defined value winning: pass them most specific first
 * (inline directive, session override, channel, global).
 */
export function resolveQueueSettings(
  ...layers: ReadonlyArray<Partial<QueueSettings> | undefined>
): QueueSettings {
  const pick = <K extends keyof QueueSettings>(name: K): QueueSettings[K] => {
    for (const layer of layers) {
      const value = layer?.[name];
      if (value !== undefined) return value as QueueSettings[K];
    }
    return defaultQueueSettings[name];
  };
  return { mode: pick('mode'), debounceMs: pick('debounceMs'), cap: pick('cap'), drop: pick('drop') };
}

/** A message handed to the dispatcher. */
export interface DispatchMessage<Payload> {
  /** Unique per message (e.g. the journal key); a repeat while queued is dropped as a duplicate. */
  readonly id: string;
  /** The text used in collected turns and overflow summaries. */
  readonly text: string;
  readonly payload: Payload;
  /** Messages with different route keys are never collected into one turn. */
  readonly routeKey?: string;
  /** The global lane (default `main`). */
  readonly lane?: string;
  /** Drop instead of queueing when the session is busy (heartbeats). */
  readonly dropIfBusy?: boolean;
  readonly mode?: QueueMode;
  readonly debounceMs?: number;
  readonly cap?: number;
  readonly drop?: QueueDropPolicy;
}

/** A message as the dispatcher holds it. */
export interface QueuedMessage<Payload> {
  readonly id: string;
  readonly text: string;
  readonly payload: Payload;
  readonly routeKey: string | undefined;
  readonly lane: string;
  readonly mode: QueueMode;
  readonly enqueuedAt: number;
  /** Arrival order across the dispatcher (1, 2, 3, …). */
  readonly arrival: number;
}

/**
 * How a batch came about: `immediate` (the session was idle), `collect` (several queued
 * messages in one turn), `followup` (one queued message), `interrupt` (after aborting a run).
 */
export type BatchKind = 'immediate' | 'collect' | 'followup' | 'interrupt';

/** One turn to run. */
export interface RunBatch<Payload> {
  readonly runId: string;
  readonly sessionKey: string;
  readonly kind: BatchKind;
  readonly lane: string;
  /** The messages this turn answers, in arrival order. */
  readonly messages: readonly QueuedMessage<Payload>[];
  /**
   * Messages of the same conversation (route key) that the `summarize` policy took out of the
   * queue and that ride in this turn as summary lines: this turn answers them too. Never
   * messages of another route key, so no text crosses from one sender to another.
   */
  readonly summarized: readonly QueuedMessage<Payload>[];
  /** The user text for the model: a single message's text, or the collected/overflow shape. */
  readonly prompt: string;
  readonly overflow: OverflowSummary | undefined;
}

/** What `trySteer` sees of the active run. */
export interface ActiveRun<Payload> {
  readonly runId: string;
  readonly sessionKey: string;
  readonly batch: RunBatch<Payload>;
  readonly phase: 'waiting' | 'running';
  readonly signal: AbortSignal;
}

export type DropReason = 'cap-new' | 'cap-old' | 'busy' | 'duplicate' | 'cleared';

export type DispatcherEvent<Payload> =
  | {
      readonly type: 'run_waiting';
      readonly sessionKey: string;
      readonly runId: string;
      readonly lane: string;
    }
  | {
      readonly type: 'run_start';
      readonly sessionKey: string;
      readonly runId: string;
      readonly batch: RunBatch<Payload>;
      readonly waitedMs: number;
    }
  | {
      readonly type: 'run_end';
      readonly sessionKey: string;
      readonly runId: string;
      readonly outcome: 'ok' | 'error' | 'aborted';
      readonly error: unknown;
      readonly durationMs: number;
    }
  | {
      readonly type: 'steered';
      readonly sessionKey: string;
      readonly runId: string;
      readonly message: QueuedMessage<Payload>;
    }
  | {
      readonly type: 'dropped';
      readonly sessionKey: string;
      readonly reason: DropReason;
      readonly messages: readonly QueuedMessage<Payload>[];
    }
  /**
   * The `summarize` policy took these messages out of a full queue; they are not lost: they
   * ride as summary lines in the next turn of their own conversation (`RunBatch.summarized`).
   */
  | {
      readonly type: 'summarized';
      readonly sessionKey: string;
      readonly messages: readonly QueuedMessage<Payload>[];
    }
  | {
      readonly type: 'interrupt_stalled';
      readonly sessionKey: string;
      readonly runId: string;
      readonly waitedMs: number;
    };

/** What happened to an enqueued message. */
export type EnqueueResult =
  | { readonly status: 'started'; readonly runId: string }
  | { readonly status: 'queued'; readonly position: number; readonly reason: 'busy' | 'steer-fallback' }
  | { readonly status: 'steered'; readonly runId: string }
  | { readonly status: 'interrupting'; readonly abortedRunId: string; readonly cleared: number }
  | { readonly status: 'dropped'; readonly reason: 'cap' | 'busy' | 'duplicate' };

export interface SessionDispatcherOptions<Payload> {
  /** Runs one turn. Must stop promptly when `signal` aborts. */
  runBatch(batch: RunBatch<Payload>, signal: AbortSignal): Promise<void> | void;
  /** Injects a message into the active run; false when it is not streaming or is compacting. */
  trySteer?(run: ActiveRun<Payload>, message: QueuedMessage<Payload>): boolean;
  /** Concurrent runs in the `main` lane. Default 4. */
  readonly maxConcurrentRuns?: number;
  /** Limits of other global lanes (e.g. `{ cron: 1, subagent: 8 }`); unlisted lanes get 1. */
  readonly laneLimits?: Readonly<Record<string, number>>;
  readonly defaults?: Partial<QueueSettings>;
  readonly timers?: Timers;
  readonly createRunId?: () => string;
  /** After aborting a run for `interrupt`, report `interrupt_stalled` if it has not ended by then. Default 10 000 ms. */
  readonly interruptGraceMs?: number;
  onEvent?(event: DispatcherEvent<Payload>): void;
}

export interface SessionLaneStatus {
  readonly active: { readonly runId: string; readonly phase: 'waiting' | 'running' } | undefined;
  readonly queued: number;
  /** Messages taken out of the queue by `summarize` and not yet answered in a turn. */
  readonly overflowDropped: number;
}

export interface DispatcherStats {
  readonly runningRuns: number;
  readonly waitingRuns: number;
  readonly queuedMessages: number;
  readonly busySessions: number;
}

export interface AbortSessionResult {
  readonly aborted: boolean;
  readonly runId: string | undefined;
  /** Queued messages that were cleared. */
  readonly cleared: number;
}

export interface SessionDispatcher<Payload> {
  enqueue(sessionKey: string, message: DispatchMessage<Payload>): EnqueueResult;
  /** `/stop`: aborts the active run and (by default) clears the session's queue. */
  abort(sessionKey: string, options?: { readonly clearQueue?: boolean }): AbortSessionResult;
  status(sessionKey: string): SessionLaneStatus;
  stats(): DispatcherStats;
  /** Resolves once nothing is running, waiting or queued. */
  whenIdle(): Promise<void>;
  /**
   * Stops accepting messages and resolves, once running runs have ended, with every message
   * that never ran (leave them in the journal to resume after restart).
   */
  close(options?: { readonly abort?: boolean }): Promise<QueuedMessage<Payload>[]>;
}

interface GlobalLane<Payload> {
  readonly name: string;
  readonly limit: number;
  running: number;
  readonly waiting: RunState<Payload>[];
}

interface RunState<Payload> {
  readonly runId: string;
  readonly batch: RunBatch<Payload>;
  readonly controller: AbortController;
  readonly lane: SessionLane<Payload>;
  readonly global: GlobalLane<Payload>;
  phase: 'waiting' | 'running';
  readonly createdAt: number;
  startedAt: number;
  aborted: boolean;
  stallTimer: unknown;
  readonly settled: Promise<void>;
  settle(): void;
}

interface PendingOverflow<Payload> {
  readonly lines: string[];
  readonly messages: QueuedMessage<Payload>[];
}

const routeOf = (message: { readonly routeKey: string | undefined }): string => message.routeKey ?? '';

interface SessionLane<Payload> {
  readonly key: string;
  active: RunState<Payload> | undefined;
  readonly queue: QueuedMessage<Payload>[];
  /** Summarized messages waiting for a turn, per route key (one conversation never sees another's). */
  readonly overflow: Map<string, PendingOverflow<Payload>>;
  lastEnqueueAt: number;
  debounceMs: number;
  timer: unknown;
  interruptPending: boolean;
}

function checkSettings(settings: QueueSettings, path: string): void {
  if (!['collect', 'steer', 'followup', 'interrupt'].includes(settings.mode)) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `${path}.mode must be collect, steer, followup or interrupt; got ${JSON.stringify(settings.mode)}.`,
    );
  }
  if (!['old', 'new', 'summarize'].includes(settings.drop)) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `${path}.drop must be old, new or summarize; got ${JSON.stringify(settings.drop)}.`,
    );
  }
  if (!Number.isInteger(settings.cap) || settings.cap < 1) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `${path}.cap must be an integer ≥ 1; got ${JSON.stringify(settings.cap)}.`,
    );
  }
  if (
    typeof settings.debounceMs !== 'number' ||
    !Number.isFinite(settings.debounceMs) ||
    settings.debounceMs < 0
  ) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `${path}.debounceMs must be a number ≥ 0; got ${JSON.stringify(settings.debounceMs)}.`,
    );
  }
}

function abortReason(message: string): Error {
  return new DOMException(message, 'AbortError');
}

/** Creates the dispatcher; see the module comment and the README. */
export function createSessionDispatcher<Payload>(
  options: SessionDispatcherOptions<Payload>,
): SessionDispatcher<Payload> {
  const timers = options.timers ?? systemTimers;
  const defaults = resolveQueueSettings(options.defaults);
  checkSettings(defaults, 'options.defaults');
  const mainLimit = options.maxConcurrentRuns ?? 4;
  if (!Number.isInteger(mainLimit) || mainLimit < 1) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `options.maxConcurrentRuns must be an integer ≥ 1; got ${JSON.stringify(mainLimit)}.`,
    );
  }
  const interruptGraceMs = options.interruptGraceMs ?? 10_000;
  let runCounter = 0;
  const createRunId = options.createRunId ?? (() => `run-${++runCounter}`);
  const lanes = new Map<string, SessionLane<Payload>>();
  const globals = new Map<string, GlobalLane<Payload>>();
  const idleWaiters: Array<() => void> = [];
  let arrivals = 0;
  let closed = false;

  function emit(event: DispatcherEvent<Payload>): void {
    if (options.onEvent === undefined) return;
    try {
      options.onEvent(event);
    } catch (error) {
      process.emitWarning(
        `SessionDispatcher onEvent listener threw on ${event.type}: ${String(error)}`,
        'SwitchboardWarning',
      );
    }
  }

  function globalLane(name: string): GlobalLane<Payload> {
    let lane = globals.get(name);
    if (lane === undefined) {
      const limit = name === 'main' ? mainLimit : (options.laneLimits?.[name] ?? 1);
      lane = { name, limit: Math.max(1, Math.floor(limit)), running: 0, waiting: [] };
      globals.set(name, lane);
    }
    return lane;
  }

  function sessionLane(key: string): SessionLane<Payload> {
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = {
        key,
        active: undefined,
        queue: [],
        overflow: new Map(),
        lastEnqueueAt: 0,
        debounceMs: defaults.debounceMs,
        timer: undefined,
        interruptPending: false,
      };
      lanes.set(key, lane);
    }
    return lane;
  }

  function overflowCount(lane: SessionLane<Payload> | undefined): number {
    let count = 0;
    if (lane !== undefined) for (const pending of lane.overflow.values()) count += pending.messages.length;
    return count;
  }

  function isIdle(): boolean {
    for (const lane of lanes.values()) {
      if (lane.active !== undefined || lane.queue.length > 0 || lane.overflow.size > 0) return false;
    }
    return true;
  }

  function releaseIdleWaiters(): void {
    if (idleWaiters.length === 0 || !isIdle()) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  }

  function forgetIfIdle(lane: SessionLane<Payload>): void {
    if (
      lane.active === undefined &&
      lane.queue.length === 0 &&
      lane.overflow.size === 0 &&
      lane.timer === undefined
    ) {
      lane.interruptPending = false;
      lanes.delete(lane.key);
    }
  }

  function startBatch(
    lane: SessionLane<Payload>,
    kind: BatchKind,
    messages: QueuedMessage<Payload>[],
    summarized: QueuedMessage<Payload>[],
    overflow: OverflowSummary | undefined,
    prompt: string,
  ): RunState<Payload> {
    const runId = createRunId();
    const first = messages[0]!;
    const batch: RunBatch<Payload> = {
      runId,
      sessionKey: lane.key,
      kind,
      lane: first.lane,
      messages,
      summarized,
      prompt,
      overflow,
    };
    let settle: () => void = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const run: RunState<Payload> = {
      runId,
      batch,
      controller: new AbortController(),
      lane,
      global: globalLane(first.lane),
      phase: 'waiting',
      createdAt: timers.now(),
      startedAt: 0,
      aborted: false,
      stallTimer: undefined,
      settled,
      settle,
    };
    lane.active = run;
    if (run.global.running < run.global.limit) begin(run);
    else {
      run.global.waiting.push(run);
      emit({ type: 'run_waiting', sessionKey: lane.key, runId, lane: run.global.name });
    }
    return run;
  }

  function begin(run: RunState<Payload>): void {
    run.global.running += 1;
    run.phase = 'running';
    run.startedAt = timers.now();
    emit({
      type: 'run_start',
      sessionKey: run.lane.key,
      runId: run.runId,
      batch: run.batch,
      waitedMs: run.startedAt - run.createdAt,
    });
    let outcome: Promise<void>;
    try {
      outcome = Promise.resolve(options.runBatch(run.batch, run.controller.signal));
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome.then(
      () => finish(run, run.aborted ? 'aborted' : 'ok', undefined),
      (error: unknown) => finish(run, run.aborted ? 'aborted' : 'error', error),
    );
  }

  function pump(global: GlobalLane<Payload>): void {
    while (global.running < global.limit && global.waiting.length > 0) {
      begin(global.waiting.shift()!);
    }
  }

  function finish(run: RunState<Payload>, outcome: 'ok' | 'error' | 'aborted', error: unknown): void {
    if (run.stallTimer !== undefined) timers.clearTimeout(run.stallTimer);
    if (run.phase === 'running') {
      run.global.running -= 1;
      pump(run.global);
    }
    if (run.lane.active === run) run.lane.active = undefined;
    emit({
      type: 'run_end',
      sessionKey: run.lane.key,
      runId: run.runId,
      outcome,
      error,
      durationMs: run.phase === 'running' ? timers.now() - run.startedAt : 0,
    });
    run.settle();
    scheduleDrain(run.lane);
    releaseIdleWaiters();
  }

  function abortRun(run: RunState<Payload>, message: string): void {
    if (run.aborted) return;
    run.aborted = true;
    run.controller.abort(abortReason(message));
    if (run.phase === 'waiting') {
      const index = run.global.waiting.indexOf(run);
      if (index >= 0) run.global.waiting.splice(index, 1);
      emit({ type: 'dropped', sessionKey: run.lane.key, reason: 'cleared', messages: run.batch.messages });
      finish(run, 'aborted', undefined);
      return;
    }
    run.stallTimer = timers.setTimeout(() => {
      run.stallTimer = undefined;
      emit({
        type: 'interrupt_stalled',
        sessionKey: run.lane.key,
        runId: run.runId,
        waitedMs: interruptGraceMs,
      });
    }, interruptGraceMs);
  }

  function scheduleDrain(lane: SessionLane<Payload>): void {
    if (lane.timer !== undefined) {
      timers.clearTimeout(lane.timer);
      lane.timer = undefined;
    }
    if (closed || lane.active !== undefined) return;
    if (lane.queue.length === 0 && lane.overflow.size === 0) {
      forgetIfIdle(lane);
      return;
    }
    if (lane.interruptPending) {
      startNext(lane);
      return;
    }
    const delay = lane.lastEnqueueAt + lane.debounceMs - timers.now();
    if (delay <= 0) {
      startNext(lane);
      return;
    }
    lane.timer = timers.setTimeout(() => {
      lane.timer = undefined;
      scheduleDrain(lane);
    }, delay);
  }

  /** The summary of one route key's overflow, taken out of the lane. */
  function takeOverflow(
    lane: SessionLane<Payload>,
    routeKey: string,
  ): { summary: OverflowSummary; messages: QueuedMessage<Payload>[] } | undefined {
    const pending = lane.overflow.get(routeKey);
    if (pending === undefined) return undefined;
    lane.overflow.delete(routeKey);
    return {
      summary: {
        dropped: pending.messages.length,
        lines: [...pending.lines],
        messageIds: pending.messages.map((message) => message.id),
      },
      messages: pending.messages,
    };
  }

  function startNext(lane: SessionLane<Payload>): void {
    const head = lane.queue[0];
    if (!lane.interruptPending) {
      // Summarized messages whose conversation has nothing left in the queue get a turn of
      // their own (the summary is the prompt), before anything newer.
      for (const routeKey of lane.overflow.keys()) {
        if (lane.queue.some((message) => routeOf(message) === routeKey)) continue;
        const orphan = takeOverflow(lane, routeKey)!;
        startBatch(
          lane,
          'collect',
          orphan.messages,
          [],
          orphan.summary,
          formatOverflowSummary(orphan.summary),
        );
        return;
      }
    }
    if (head === undefined) return;
    let kind: BatchKind;
    let taken: QueuedMessage<Payload>[];
    if (lane.interruptPending) {
      lane.interruptPending = false;
      kind = 'interrupt';
      taken = lane.queue.splice(0, 1);
    } else if (head.mode === 'collect') {
      let count = 0;
      while (count < lane.queue.length) {
        const candidate = lane.queue[count]!;
        if (
          candidate.mode !== 'collect' ||
          candidate.routeKey !== head.routeKey ||
          candidate.lane !== head.lane
        )
          break;
        count += 1;
      }
      kind = 'collect';
      taken = lane.queue.splice(0, count);
    } else {
      kind = 'followup';
      taken = lane.queue.splice(0, 1);
    }
    const overflow = takeOverflow(lane, routeOf(head));
    let prompt: string;
    if (kind === 'collect' && (taken.length > 1 || overflow !== undefined)) {
      prompt = formatCollectPrompt(
        taken.map((message) => message.text),
        overflow?.summary,
      );
    } else {
      const text = taken[0]!.text;
      prompt = overflow === undefined ? text : `${formatOverflowSummary(overflow.summary)}\n\n${text}`;
    }
    startBatch(lane, kind, taken, overflow?.messages ?? [], overflow?.summary, prompt);
  }

  function addToQueue(
    lane: SessionLane<Payload>,
    message: QueuedMessage<Payload>,
    settings: QueueSettings,
    reason: 'busy' | 'steer-fallback',
  ): EnqueueResult {
    if (lane.queue.length >= settings.cap) {
      const protectedHead = lane.interruptPending ? 1 : 0;
      const excess = lane.queue.length - settings.cap + 1;
      const removable = lane.queue.length - protectedHead;
      if (settings.drop === 'new' || removable < excess) {
        emit({ type: 'dropped', sessionKey: lane.key, reason: 'cap-new', messages: [message] });
        return { status: 'dropped', reason: 'cap' };
      }
      const removed = lane.queue.splice(protectedHead, excess);
      if (settings.drop === 'summarize') {
        for (const item of removed) {
          let pending = lane.overflow.get(routeOf(item));
          if (pending === undefined) {
            pending = { lines: [], messages: [] };
            lane.overflow.set(routeOf(item), pending);
          }
          pending.lines.push(summarizeLine(item.text));
          pending.messages.push(item);
          if (pending.lines.length > settings.cap)
            pending.lines.splice(0, pending.lines.length - settings.cap);
        }
        emit({ type: 'summarized', sessionKey: lane.key, messages: removed });
      } else {
        emit({ type: 'dropped', sessionKey: lane.key, reason: 'cap-old', messages: removed });
      }
    }
    lane.queue.push(message);
    return { status: 'queued', position: lane.queue.length, reason };
  }

  function clearQueue(lane: SessionLane<Payload>): number {
    const cleared = [
      ...[...lane.overflow.values()].flatMap((pending) => pending.messages),
      ...lane.queue.splice(0),
    ];
    lane.overflow.clear();
    lane.interruptPending = false;
    if (cleared.length > 0)
      emit({ type: 'dropped', sessionKey: lane.key, reason: 'cleared', messages: cleared });
    return cleared.length;
  }

  return {
    enqueue(sessionKey: string, input: DispatchMessage<Payload>): EnqueueResult {
      if (closed) {
        throw new SessionsError(
          'SESSIONS_DISPATCHER_CLOSED',
          `The dispatcher is closed; message ${String(input?.id)} for ${sessionKey} was not accepted.`,
        );
      }
      if (typeof sessionKey !== 'string' || sessionKey === '') {
        throw new SessionsError(
          'SESSIONS_INVALID_ARGUMENT',
          `sessionKey must be a non-empty string; got ${JSON.stringify(sessionKey)}.`,
        );
      }
      if (typeof input?.id !== 'string' || input.id === '') {
        throw new SessionsError('SESSIONS_INVALID_ARGUMENT', 'message.id must be a non-empty string.');
      }
      if (typeof input.text !== 'string') {
        throw new SessionsError('SESSIONS_INVALID_ARGUMENT', `message.text of ${input.id} must be a string.`);
      }
      const settings = resolveQueueSettings(input, defaults);
      checkSettings(settings, `message ${input.id}`);
      const lane = sessionLane(sessionKey);
      const message: QueuedMessage<Payload> = {
        id: input.id,
        text: input.text,
        payload: input.payload,
        routeKey: input.routeKey,
        lane: input.lane ?? 'main',
        mode: settings.mode,
        enqueuedAt: timers.now(),
        arrival: ++arrivals,
      };
      const busy = lane.active !== undefined || lane.queue.length > 0;
      if (!busy) {
        const run = startBatch(lane, 'immediate', [message], [], undefined, message.text);
        return { status: 'started', runId: run.runId };
      }
      if (input.dropIfBusy === true) {
        emit({ type: 'dropped', sessionKey, reason: 'busy', messages: [message] });
        return { status: 'dropped', reason: 'busy' };
      }
      if (
        lane.queue.some((queued) => queued.id === message.id) ||
        lane.active?.batch.messages.some((running) => running.id === message.id) === true ||
        lane.active?.batch.summarized.some((running) => running.id === message.id) === true ||
        [...lane.overflow.values()].some((pending) => pending.messages.some((held) => held.id === message.id))
      ) {
        emit({ type: 'dropped', sessionKey, reason: 'duplicate', messages: [message] });
        return { status: 'dropped', reason: 'duplicate' };
      }
      if (settings.mode === 'interrupt') {
        const cleared = clearQueue(lane);
        lane.queue.push(message);
        lane.interruptPending = true;
        lane.lastEnqueueAt = message.enqueuedAt;
        const active = lane.active;
        if (active !== undefined) abortRun(active, `Interrupted by message ${message.id}`);
        else scheduleDrain(lane);
        // An idle lane, or an aborted run that was only waiting for a slot, lets the message start at once.
        const current = lane.active as RunState<Payload> | undefined;
        if (active !== undefined && current === active) {
          return { status: 'interrupting', abortedRunId: active.runId, cleared };
        }
        return current === undefined
          ? { status: 'queued', position: lane.queue.length, reason: 'busy' }
          : { status: 'started', runId: current.runId };
      }
      let result: EnqueueResult;
      if (settings.mode === 'steer') {
        const active = lane.active;
        if (
          active !== undefined &&
          active.phase === 'running' &&
          !active.aborted &&
          options.trySteer !== undefined
        ) {
          const view: ActiveRun<Payload> = {
            runId: active.runId,
            sessionKey,
            batch: active.batch,
            phase: active.phase,
            signal: active.controller.signal,
          };
          if (options.trySteer(view, message)) {
            emit({ type: 'steered', sessionKey, runId: active.runId, message });
            return { status: 'steered', runId: active.runId };
          }
        }
        result = addToQueue(lane, { ...message, mode: 'followup' }, settings, 'steer-fallback');
      } else {
        result = addToQueue(lane, message, settings, 'busy');
      }
      if (result.status === 'queued') {
        lane.lastEnqueueAt = message.enqueuedAt;
        lane.debounceMs = settings.debounceMs;
        if (lane.active === undefined) scheduleDrain(lane);
      }
      return result;
    },

    abort(sessionKey: string, abortOptions = {}): AbortSessionResult {
      const lane = lanes.get(sessionKey);
      if (lane === undefined) return { aborted: false, runId: undefined, cleared: 0 };
      const cleared = abortOptions.clearQueue === false ? 0 : clearQueue(lane);
      const active = lane.active;
      if (active !== undefined) abortRun(active, 'Aborted by /stop');
      if (lane.active === undefined) scheduleDrain(lane);
      return { aborted: active !== undefined, runId: active?.runId, cleared };
    },

    status(sessionKey: string): SessionLaneStatus {
      const lane = lanes.get(sessionKey);
      return {
        active:
          lane?.active === undefined ? undefined : { runId: lane.active.runId, phase: lane.active.phase },
        queued: lane?.queue.length ?? 0,
        overflowDropped: overflowCount(lane),
      };
    },

    stats(): DispatcherStats {
      let runningRuns = 0;
      let waitingRuns = 0;
      for (const global of globals.values()) {
        runningRuns += global.running;
        waitingRuns += global.waiting.length;
      }
      let queuedMessages = 0;
      let busySessions = 0;
      for (const lane of lanes.values()) {
        const summarized = overflowCount(lane);
        queuedMessages += lane.queue.length + summarized;
        if (lane.active !== undefined || lane.queue.length > 0 || summarized > 0) busySessions += 1;
      }
      return { runningRuns, waitingRuns, queuedMessages, busySessions };
    },

    whenIdle(): Promise<void> {
      if (isIdle()) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },

    async close(closeOptions = {}): Promise<QueuedMessage<Payload>[]> {
      closed = true;
      const pending: QueuedMessage<Payload>[] = [];
      const running: Promise<void>[] = [];
      for (const lane of lanes.values()) {
        if (lane.timer !== undefined) {
          timers.clearTimeout(lane.timer);
          lane.timer = undefined;
        }
        const active = lane.active;
        if (active !== undefined && active.phase === 'waiting') {
          const index = active.global.waiting.indexOf(active);
          if (index >= 0) active.global.waiting.splice(index, 1);
          pending.push(...active.batch.messages);
          lane.active = undefined;
          active.settle();
        } else if (active !== undefined) {
          if (closeOptions.abort === true) abortRun(active, 'The gateway is shutting down');
          running.push(active.settled);
        }
        pending.push(...lane.queue.splice(0));
        for (const overflow of lane.overflow.values()) pending.push(...overflow.messages);
        lane.overflow.clear();
      }
      await Promise.all(running);
      lanes.clear();
      releaseIdleWaiters();
      pending.sort((left, right) => left.arrival - right.arrival);
      return pending;
    },
  };
}
