// Operators on any replica (decision 0021): the `agent` and `chat` events of a run reach the
// WebSocket clients of every replica, a run's end reaches every replica's run registry (so
// `agent.wait`, `agent` and idempotent replays work where the run is not executing), and
// `chat.abort` reaches the replica that holds the session.
//
// Transport: LISTEN/NOTIFY. Events are batched (one NOTIFY per flush, every `flushMs`),
// each NOTIFY under PostgreSQL's 8000-byte limit; an event too large on its own is sent
// with its scalar fields only and `truncated: true` (the full text is in `chat.history`).
// NOTIFY is best effort: a replica whose listener was down misses events (clients see the
// final answer in `chat.history`), and run ends are also found by polling the stored run
// results, so no waiter hangs on a lost notification.
//
// Loaded only when `storage.kind` is `postgres`.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@switchboard/hooks';
import type { NotificationListener, PostgresSessionStore } from '@switchboard/store-postgres';
import type { EventFilter } from '../access/event-audience.ts';
import { type RunOutcome, recordStatusOf } from '../runtime/run/outcome.ts';
import { storedOutcome } from '../runtime/run/stored-outcome.ts';
import type { RunRegistry } from '../runtime/runs.ts';

const eventsChannel = 'switchboard_run_events';
const controlChannel = 'switchboard_run_control';
/** Below PostgreSQL's 8000-byte NOTIFY limit, with room for the envelope. */
const payloadBudgetBytes = 7000;

type RelayedEvent = { readonly event: string; readonly payload: unknown; readonly filter?: EventFilter };

type ControlMessage =
  | {
      readonly type: 'run_end';
      readonly from: string;
      readonly runId: string;
      readonly sessionKey: string;
      readonly agentId: string;
      readonly status: 'ok' | 'error' | 'aborted';
      /** Absent when too large for a NOTIFY: the receiver reads the stored run result. */
      readonly outcome?: RunOutcome;
    }
  | {
      readonly type: 'abort';
      readonly from: string;
      readonly to: string;
      readonly requestId: string;
      readonly sessionKey: string;
      readonly runId?: string;
    }
  | {
      readonly type: 'abort_result';
      readonly from: string;
      readonly to: string;
      readonly requestId: string;
      readonly aborted: boolean;
      readonly runIds: readonly string[];
    };

interface AbortOutcome {
  readonly aborted: boolean;
  readonly runIds: readonly string[];
}

/**
 * The relay seam. Contract: `publish` forwards `agent`/`chat` events of runs executing here
 * to the other replicas (never back to this one); `runs` wraps the local registry so a run
 * that ends here is announced and a run that ends elsewhere is finished here too;
 * `handedOver` marks a run this replica accepted but another replica executes (it is then
 * not "active" here and its end is awaited from the others); `abortRemote` asks the
 * session's lease holder to abort and resolves with its answer (or nothing aborted after
 * `abortTimeoutMs`).
 */
interface RunRelay {
  publish(event: string, payload: unknown, filter?: EventFilter): void;
  runs(local: RunRegistry): RunRegistry;
  handedOver(runId: string): void;
  abortRemote(sessionKey: string, runId: string | undefined): Promise<AbortOutcome>;
  start(parts: {
    readonly deliver: (event: string, payload: unknown, filter?: EventFilter) => void;
    readonly abortHere: (sessionKey: string, runId: string | undefined) => AbortOutcome;
  }): Promise<void>;
  close(): Promise<void>;
}

interface RunRelayOptions {
  readonly store: PostgresSessionStore;
  readonly logger: Logger;
  readonly flushMs?: number;
  readonly pollIntervalMs?: number;
  readonly abortTimeoutMs?: number;
}

/** Keeps an event's scalar fields when the whole does not fit in one NOTIFY. */
function truncated(item: RelayedEvent, size: number): RelayedEvent {
  const payload = item.payload as Record<string, unknown>;
  const scalars = Object.fromEntries(
    Object.entries(payload).filter(([, value]) => typeof value !== 'object' && String(value).length < 200),
  );
  return {
    event: item.event,
    payload: {
      ...scalars,
      truncated: true,
      note: `event of ${size} bytes is too large to relay between replicas; chat.history has the full text`,
    },
    filter: item.filter,
  };
}

export function createRunRelay(options: RunRelayOptions): RunRelay {
  const { store, logger } = options;
  const self = store.ownerId;
  const flushMs = options.flushMs ?? 20;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const abortTimeoutMs = options.abortTimeoutMs ?? 5000;
  let queue: string[] = [];
  let flushing: Promise<void> | undefined;
  let flushTimer: NodeJS.Timeout | undefined;
  let listener: NotificationListener | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let registry: RunRegistry | undefined;
  let deliver: ((event: string, payload: unknown, filter?: EventFilter) => void) | undefined;
  let abortHere: ((sessionKey: string, runId: string | undefined) => AbortOutcome) | undefined;
  /** Runs accepted here and executing on another replica: runId → session. */
  const remote = new Map<string, string>();
  const abortWaiters = new Map<string, (outcome: AbortOutcome) => void>();
  let closed = false;

  function send(channel: string, payload: string): Promise<void> {
    return store.notify(channel, payload).catch((error: unknown) => {
      logger.warn('replicas: a notification to the other replicas failed', { channel, error: String(error) });
    });
  }

  function flush(): void {
    flushTimer = undefined;
    if (flushing !== undefined || queue.length === 0) return;
    // Pack events into NOTIFY payloads under the budget, in order.
    const batches: string[] = [];
    let current: string[] = [];
    let bytes = 0;
    for (const encoded of queue) {
      const size = Buffer.byteLength(encoded) + 1;
      if (current.length > 0 && bytes + size > payloadBudgetBytes) {
        batches.push(`{"from":${JSON.stringify(self)},"events":[${current.join(',')}]}`);
        current = [];
        bytes = 0;
      }
      current.push(encoded);
      bytes += size;
    }
    if (current.length > 0) batches.push(`{"from":${JSON.stringify(self)},"events":[${current.join(',')}]}`);
    queue = [];
    flushing = (async () => {
      for (const batch of batches) await send(eventsChannel, batch);
    })().finally(() => {
      flushing = undefined;
      if (queue.length > 0) scheduleFlush();
    });
  }

  function scheduleFlush(): void {
    if (flushTimer === undefined && !closed) flushTimer = setTimeout(flush, flushMs);
  }

  function finishHere(message: Extract<ControlMessage, { type: 'run_end' }>, outcome: RunOutcome): void {
    const runs = registry;
    if (runs === undefined) return;
    remote.delete(message.runId);
    const existing = runs.get(message.runId);
    if (existing?.outcome !== undefined) return;
    if (existing === undefined) runs.accept(message.runId, message.sessionKey, message.agentId);
    runs.finish(message.runId, outcome);
  }

  /** A run_end whose outcome did not fit: the stored result (protocol runs), or a stand-in saying so. */
  async function finishByReference(message: Extract<ControlMessage, { type: 'run_end' }>): Promise<void> {
    const stored = await store.getState('run-results', message.runId);
    finishHere(
      message,
      (stored === undefined ? undefined : storedOutcome(stored.value, message.runId)) ??
        standInOutcome(message),
    );
  }

  function onEvents(payload: string): void {
    const batch = JSON.parse(payload) as { from: string; events: RelayedEvent[] };
    if (batch.from === self) return;
    for (const item of batch.events) deliver?.(item.event, item.payload, item.filter);
  }

  function onControl(payload: string): void {
    const message = JSON.parse(payload) as ControlMessage;
    if (message.from === self) return;
    if (message.type === 'run_end') {
      if (message.outcome !== undefined) finishHere(message, message.outcome);
      else
        void finishByReference(message).catch((error: unknown) =>
          logger.warn('replicas: reading the result of a run on another replica failed', {
            runId: message.runId,
            error: String(error),
          }),
        );
    } else if (message.type === 'abort' && message.to === self) {
      const outcome = abortHere?.(message.sessionKey, message.runId) ?? { aborted: false, runIds: [] };
      logger.info('replicas: aborting a run at the request of another replica', {
        sessionKey: message.sessionKey,
        aborted: outcome.aborted,
      });
      void send(
        controlChannel,
        JSON.stringify({
          type: 'abort_result',
          from: self,
          to: message.from,
          requestId: message.requestId,
          ...outcome,
        } satisfies ControlMessage),
      );
    } else if (message.type === 'abort_result' && message.to === self) {
      abortWaiters.get(message.requestId)?.({ aborted: message.aborted, runIds: message.runIds });
    }
  }

  /** The fallback for a lost run_end: the stored run results of runs executing elsewhere. */
  async function poll(): Promise<void> {
    for (const [runId, sessionKey] of [...remote]) {
      const stored = await store.getState('run-results', runId);
      if (stored === undefined) continue;
      const outcome = storedOutcome(stored.value, runId);
      if (outcome === undefined) continue;
      const agentId = registry?.get(runId)?.agentId ?? 'main';
      finishHere(
        { type: 'run_end', from: '', runId, sessionKey, agentId, status: recordStatusOf(outcome) },
        outcome,
      );
    }
  }

  return {
    publish(event, payload, filter) {
      if (closed || (event !== 'agent' && event !== 'chat' && event !== 'session.run')) return;
      let encoded = JSON.stringify({ event, payload, filter });
      const size = Buffer.byteLength(encoded);
      if (size > payloadBudgetBytes - 100)
        encoded = JSON.stringify(truncated({ event, payload, filter }, size));
      queue.push(encoded);
      scheduleFlush();
    },

    runs(local) {
      registry = local;
      return {
        ...local,
        accept(runId, sessionKey, agentId) {
          // Accepted to run here (taken over from a replica that is gone): no longer remote.
          remote.delete(runId);
          return local.accept(runId, sessionKey, agentId);
        },
        finish(runId, outcome, details) {
          const record = local.get(runId);
          local.finish(runId, outcome, details);
          if (record === undefined || remote.has(runId)) return;
          const message: ControlMessage = {
            type: 'run_end',
            from: self,
            runId,
            sessionKey: record.sessionKey,
            agentId: record.agentId,
            status: recordStatusOf(outcome),
            outcome,
          };
          let encoded = JSON.stringify(message);
          // Too large for one NOTIFY: the others read the stored result instead.
          if (Buffer.byteLength(encoded) > payloadBudgetBytes)
            encoded = JSON.stringify({ ...message, outcome: undefined });
          void send(controlChannel, encoded);
        },
        activeForSession(sessionKey) {
          return local.activeForSession(sessionKey).filter((record) => !remote.has(record.runId));
        },
      };
    },

    handedOver(runId) {
      const record = registry?.get(runId);
      if (record !== undefined && record.outcome === undefined) remote.set(runId, record.sessionKey);
    },

    async abortRemote(sessionKey, runId) {
      const lease = await store.getSessionLease(sessionKey);
      if (lease === undefined || lease.ownerId === self) return { aborted: false, runIds: [] };
      const requestId = randomUUID();
      return new Promise<AbortOutcome>((resolve) => {
        const timer = setTimeout(() => {
          abortWaiters.delete(requestId);
          logger.warn('replicas: the replica running the session did not answer the abort', {
            sessionKey,
            owner: lease.ownerId,
          });
          resolve({ aborted: false, runIds: [] });
        }, abortTimeoutMs);
        abortWaiters.set(requestId, (outcome) => {
          clearTimeout(timer);
          abortWaiters.delete(requestId);
          resolve(outcome);
        });
        void send(
          controlChannel,
          JSON.stringify({
            type: 'abort',
            from: self,
            to: lease.ownerId,
            requestId,
            sessionKey,
            runId,
          } satisfies ControlMessage),
        );
      });
    },

    async start(parts) {
      deliver = parts.deliver;
      abortHere = parts.abortHere;
      try {
        listener = await store.listen([eventsChannel, controlChannel], (channel, payload) => {
          try {
            if (channel === eventsChannel) onEvents(payload);
            else onControl(payload);
          } catch (error) {
            logger.warn('replicas: an unreadable notification was ignored', {
              channel,
              error: String(error),
            });
          }
        });
      } catch (error) {
        logger.warn("replicas: cannot LISTEN for run events; other replicas' runs are not shown here", {
          error: String(error),
        });
      }
      pollTimer = setInterval(() => {
        if (remote.size > 0)
          void poll().catch((error: unknown) =>
            logger.warn('replicas: polling run results failed', { error: String(error) }),
          );
      }, pollIntervalMs);
      pollTimer.unref();
    },

    async close() {
      closed = true;
      if (pollTimer !== undefined) clearInterval(pollTimer);
      if (flushTimer !== undefined) clearTimeout(flushTimer);
      flush();
      await flushing;
      await listener?.close();
    },
  };
}

/** What a replica records for a run that ended elsewhere when neither the NOTIFY nor the store holds its outcome. */
function standInOutcome(message: { runId: string; status: 'ok' | 'error' | 'aborted' }): RunOutcome {
  switch (message.status) {
    case 'ok':
      return { status: 'ok', runId: message.runId, replies: [], durationMs: 0 };
    case 'aborted':
      return { status: 'aborted', runId: message.runId };
    case 'error':
      return {
        status: 'error',
        runId: message.runId,
        message: 'the run failed on another replica (its result was too large to relay)',
      };
  }
}
