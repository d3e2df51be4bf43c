// Per-session serialization across gateway replicas on one PostgreSQL (decision 0021).
//
// A session's turns run on the replica holding its lease (store-postgres session-leases).
// Every message still enters through the replica that received it and is journaled there;
// inbound's `enqueue` then asks `admit`: when this replica holds (or takes) the lease, the
// message goes into the local dispatcher — after any older messages of the session that
// other replicas handed over, so the session keeps its order and its queue modes (collect,
// steer, followup, interrupt all act in one dispatcher). When a live other replica holds it,
// the journal record is handed to that replica (with the turn input it will run) and that
// replica is woken with NOTIFY. A poll (every `pollIntervalMs`) catches missed wake-ups and
// takes over the unfinished records of replicas that are gone. A lease is released when the
// last record this replica holds for the session is closed.
//
// Loaded only when `storage.kind` is `postgres`.
import type { Logger } from '@switchboard/hooks';
import type { InboundRecord, InboundRef } from '@switchboard/sessions';
import {
  type NotificationListener,
  type PostgresSessionStore,
  workChannel,
} from '@switchboard/store-postgres';
import { GatewayError } from '../gateway-error.ts';
import type { RpcJournalPayload } from '../runtime/inbound-input.ts';
import type { InboundJournal } from '../runtime/journal.ts';
import type { RunRegistry } from '../runtime/runs.ts';
import { refKey, type TurnInput } from '../runtime/turn-input.ts';

/** The journal payload of a channel message handed to another replica: the routed turn input. */
interface HandedOverPayload {
  readonly kind: 'turn';
  readonly input: TurnInput;
}

/** What the coordinator needs from this replica's runtime (given once, by `start`). */
interface LocalRuntime {
  /** Puts an input into this replica's dispatcher (the caller holds the session's lease). */
  enqueueHere(input: TurnInput): void;
  /** Resumes journal records through the inbound path (routing, directives, admission). */
  recover(records: readonly InboundRecord[]): Promise<number>;
  readonly runs: RunRegistry;
}

/**
 * The seam inbound and the gateway use. Contract: `admit` eventually enqueues `input` in
 * exactly one replica's dispatcher (this one or the lease owner's), after every older
 * message of its session this replica was handed; `journal` must be the only journal the
 * runtime uses (it tracks which records this replica holds); `start` before the first
 * `admit`; `close` stops the poll and the listener (leases go with the instance lock).
 */
interface SessionCoordinator {
  journal(base: InboundJournal): InboundJournal;
  start(local: LocalRuntime, alreadyListed: readonly InboundRecord[]): Promise<void>;
  /** Resolves once admitted (enqueued here or handed over); never rejects (a failure is left to the poll). */
  admit(input: TurnInput): Promise<void>;
  /**
   * Takes over and admits, now, the unfinished records this replica may take (a gone
   * replica's); resolves once a poll that started after the call has admitted them. Called
   * before a taken-over channel account starts, so its older messages are admitted before
   * the new ones it will receive (decision 0021).
   */
  catchUp(): Promise<void>;
  close(): Promise<void>;
}

interface SessionCoordinatorOptions {
  readonly store: PostgresSessionStore;
  readonly logger: Logger;
  /** Called when a message is handed to the replica that holds its session (it runs there). */
  readonly onHandedOver?: (input: TurnInput) => void;
  /** How often unfinished records are looked for without a wake-up. Default 1000 ms. */
  readonly pollIntervalMs?: number;
}

export function createSessionCoordinator(options: SessionCoordinatorOptions): SessionCoordinator {
  const { store, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  /** Records this replica handles now (journaled here, admitted here or adopted): ref → session. */
  const held = new Map<string, string | undefined>();
  /** Received here, admission not yet run (keeps later hand-overs of the session behind them). */
  const awaitingAdmission = new Set<string>();
  /** Taken-over channel messages being routed again here; later records of their session wait. */
  const routeAgainPending = new Set<string>();
  const chains = new Map<string, Promise<void>>();
  let local: LocalRuntime | undefined;
  let listener: NotificationListener | undefined;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let pollAgain = false;
  /** `catchUp` callers waiting for the next poll to finish. */
  const waiters: (() => void)[] = [];
  let closed = false;
  let closing: Promise<void> | undefined;

  /** Runs `work` after the session's earlier admissions on this replica. */
  function inSession(sessionKey: string, work: () => Promise<void>): Promise<void> {
    const previous = chains.get(sessionKey) ?? Promise.resolve();
    const next = previous.then(work, work);
    chains.set(sessionKey, next);
    // Cleanup on both outcomes; the caller handles `next`'s rejection (a derived promise left
    // rejected would end the process as an unhandled rejection).
    const forget = () => {
      if (chains.get(sessionKey) === next) chains.delete(sessionKey);
    };
    next.then(forget, forget);
    return next;
  }

  function sessionsHeld(sessionKey: string): boolean {
    for (const session of held.values()) if (session === sessionKey) return true;
    return false;
  }

  /**
   * Turns the session's unfinished records the lease gives this replica into local work, in
   * the order they were received. `admitted` (the input being admitted now) is enqueued at
   * its place. A record received here whose own admission has not run yet stops the walk:
   * what follows it waits for that admission, which walks the list again.
   */
  function adopt(records: readonly InboundRecord[], admitted?: TurnInput): void {
    const runtime = local!;
    const routeAgain: InboundRecord[] = [];
    const admittedKey = admitted === undefined ? undefined : refKey(admitted.ref);
    let placed = admitted === undefined;
    let stopped = false;
    for (const record of records) {
      const key = refKey(record);
      if (key === admittedKey) {
        logger.debug('replicas: running a message here', { ref: key });
        runtime.enqueueHere(admitted!);
        placed = true;
        continue;
      }
      if (awaitingAdmission.has(key)) {
        stopped = routeAgainPending.has(key);
        break;
      }
      if (held.has(key)) continue;
      held.set(key, record.sessionKey);
      const payload = record.payload as RpcJournalPayload | HandedOverPayload | { kind?: string } | undefined;
      if (payload?.kind === 'rpc' || payload?.kind === 'turn') {
        const input = (payload as RpcJournalPayload | HandedOverPayload).input;
        if (input.origin === 'rpc')
          runtime.runs.accept(input.runId ?? record.messageId, input.sessionKey, input.agentId);
        // Recovered: a turn of a gone owner may have answered it already (the runner checks).
        logger.debug('replicas: running a message handed over or taken over', { ref: key });
        runtime.enqueueHere({ ...input, recovered: true });
      } else {
        // A channel message its gone owner had admitted itself (its payload is the platform
        // message, not the routed input): it is routed again, and the session's later records
        // wait behind it — its admission walks the list again — so they do not overtake it.
        awaitingAdmission.add(key);
        routeAgainPending.add(key);
        routeAgain.push(record);
        stopped = true;
        break;
      }
    }
    if (!placed && stopped) {
      // An older message of the session is being routed again: this one waits for the walk
      // its admission starts (or the next poll), instead of overtaking it.
      held.delete(admittedKey!);
      logger.debug('replicas: a message waits behind an older one routed again', { ref: admittedKey });
    } else if (!placed) {
      logger.debug('replicas: running a message here', { ref: admittedKey });
      runtime.enqueueHere(admitted!);
    }
    if (routeAgain.length > 0) void runtime.recover(routeAgain);
  }

  function handOverPayload(input: TurnInput): HandedOverPayload | undefined {
    // A protocol message's journal payload already is its turn input; a channel message's is
    // the raw platform message, which the owner would route again: give it the routed input.
    return input.origin === 'rpc' ? undefined : { kind: 'turn', input: { ...input, recovered: undefined } };
  }

  async function release(sessionKey: string): Promise<void> {
    if (sessionsHeld(sessionKey)) return;
    const released = await store.releaseSession(sessionKey);
    if (!released) wake();
  }

  function wake(): void {
    if (closed) return;
    if (polling !== undefined) {
      pollAgain = true;
      return;
    }
    const resolving = waiters.splice(0);
    polling = poll()
      .catch((error: unknown) =>
        logger.warn('replicas: polling for session work failed', { error: String(error) }),
      )
      .finally(() => {
        for (const resolve of resolving) resolve();
        polling = undefined;
        if (pollAgain) {
          pollAgain = false;
          wake();
        }
      });
  }

  async function poll(): Promise<void> {
    if (local === undefined) return;
    // This replica's records it does not hold yet (handed over, or taken from a gone replica).
    const records = await store.listUnfinishedInbound({ limit: 500 });
    const bySession = new Map<string, InboundRecord[]>();
    const unrouted: InboundRecord[] = [];
    for (const record of records) {
      if (held.has(refKey(record))) continue;
      if (record.sessionKey === undefined) unrouted.push(record);
      else bySession.set(record.sessionKey, [...(bySession.get(record.sessionKey) ?? []), record]);
    }
    for (const record of unrouted) held.set(refKey(record), undefined);
    // Routed and admitted in receipt order; the poll ends once they are admitted.
    const recovering = unrouted.length > 0 ? local.recover(unrouted) : undefined;
    await Promise.all(
      [...bySession].map(([sessionKey, waiting]) =>
        inSession(sessionKey, async () => {
          const fresh = waiting.filter((record) => !held.has(refKey(record)));
          if (fresh.length === 0) return;
          const admission = await store.admitToSession(
            sessionKey,
            fresh.map((record) => ({ ref: record })),
          );
          if (admission.owner === 'self') adopt(admission.pending);
        }),
      ),
    );
    await recovering;
    // Leases this replica holds for sessions it has nothing for (a release that failed).
    const leases = await store.listSessionLeases();
    for (const lease of leases) {
      if (lease.ownerId === store.ownerId && !sessionsHeld(lease.sessionKey) && !chains.has(lease.sessionKey))
        void inSession(lease.sessionKey, () => release(lease.sessionKey));
    }
  }

  return {
    journal(base) {
      const forget = (refs: readonly InboundRef[]): void => {
        const sessions = new Set<string>();
        for (const ref of refs) {
          const key = refKey(ref);
          const session = held.get(key);
          held.delete(key);
          awaitingAdmission.delete(key);
          routeAgainPending.delete(key);
          if (session !== undefined) sessions.add(session);
        }
        for (const session of sessions) {
          void inSession(session, () => release(session)).catch((error: unknown) =>
            logger.warn('replicas: releasing a session lease failed', {
              sessionKey: session,
              error: String(error),
            }),
          );
        }
      };
      return {
        ...base,
        async received(input) {
          // Held before the record exists, so a concurrent poll never adopts it too.
          const key = refKey(input);
          const fresh = !held.has(key);
          if (fresh) {
            held.set(key, input.sessionKey);
            awaitingAdmission.add(key);
          }
          try {
            const journaled = await base.received(input);
            if (journaled.duplicate && fresh) {
              held.delete(key);
              awaitingAdmission.delete(key);
            }
            if (
              journaled.duplicate &&
              fresh &&
              journaled.record.state === 'received' &&
              journaled.record.sessionKey === undefined
            ) {
              // A channel message another replica journaled and has not admitted yet (it may be
              // paused or gone): answering "duplicate" would let the sender's next message of
              // the conversation overtake it. The platform delivers it again (a webhook's 5xx,
              // a poller's offset) until that replica admits it or its work is taken over.
              throw new GatewayError(
                'CONFLICT',
                `the message ${key} was received by another replica that has not queued it yet; retry shortly`,
                { retryable: true },
              );
            }
            return journaled;
          } catch (error) {
            if (fresh) {
              held.delete(key);
              awaitingAdmission.delete(key);
            }
            throw error;
          }
        },
        async replied(refs, replyOptions) {
          await base.replied(refs, replyOptions);
          forget(refs);
        },
        async failed(refs, reason) {
          await base.failed(refs, reason);
          forget(refs);
        },
      };
    },

    async start(runtime, alreadyListed) {
      local = runtime;
      // What the start-up listing took is resumed once the gateway is up (recovery admits each
      // one). Until then a poll must not run a newer record of the same session ahead of them:
      // they count as awaiting admission, which stops the walk in `adopt` (decision 0021).
      for (const record of alreadyListed) {
        const key = refKey(record);
        held.set(key, record.sessionKey);
        awaitingAdmission.add(key);
      }
      try {
        listener = await store.listen([workChannel], (_channel, payload) => {
          if (payload.startsWith(`${store.ownerId} `)) wake();
        });
      } catch (error) {
        logger.warn('replicas: cannot LISTEN for session work; polling only', { error: String(error) });
      }
      timer = setInterval(wake, pollIntervalMs);
      timer.unref();
    },

    admit(input) {
      const runtime = local;
      if (runtime === undefined) throw new Error('replicas: admit before start');
      const key = refKey(input.ref);
      held.set(key, input.sessionKey);
      return inSession(input.sessionKey, async () => {
        const payload = handOverPayload(input);
        const admission = await store
          .admitToSession(input.sessionKey, [{ ref: input.ref, payload }])
          .finally(() => {
            awaitingAdmission.delete(key);
            routeAgainPending.delete(key);
          });
        if (admission.owner === 'other') {
          held.delete(key);
          options.onHandedOver?.(input);
          logger.debug('replicas: session runs on another replica; message handed over', {
            sessionKey: input.sessionKey,
            ref: key,
            owner: admission.ownerId,
          });
          return;
        }
        adopt(admission.pending, input);
      }).catch((error: unknown) => {
        // Left in the journal: the poll admits it again.
        held.delete(key);
        logger.warn('replicas: admitting a message failed; the poll retries it', {
          ref: key,
          error: String(error),
        });
      });
    },

    catchUp() {
      if (closed || local === undefined) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        wake();
      });
    },

    close() {
      closing ??= (async () => {
        closed = true;
        for (const resolve of waiters.splice(0)) resolve();
        if (timer !== undefined) clearInterval(timer);
        await polling;
        await listener?.close();
      })();
      return closing;
    },
  };
}
