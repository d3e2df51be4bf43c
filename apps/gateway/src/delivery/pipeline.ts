/**
 * The serial delivery pipeline of one reply target: one queue, one send at a time, strict order.
 *
 * - Each send gets a timeout (15 s by default). On timeout the send's signal aborts, the
 *   pipeline marks itself aborted and skips every remaining block, so a late block can never
 *   overtake an earlier one. Final payloads are still sent after an abort.
 * - Any other send error is reported and the chain continues.
 * - An identical payload (trimmed text, media, reply target) that is in flight or was sent is
 *   dropped. Successfully streamed block content is recorded so final replies can be compared.
 * - Optional human delay: a random pause before each block except the first, never before finals.
 */

import { sleepOn } from '@switchboard/hooks';
import { assertInteger, DeliveryError } from './errors.ts';
import {
  type DeliveryEventListener,
  type DeliveryPayload,
  type DeliverySend,
  type DeliverySendResult,
  type DeliveryTimers,
  type SuppressionReason,
  systemTimers,
} from './types.ts';

/** Default per-send timeout. */
export const DEFAULT_SEND_TIMEOUT_MS = 15_000;

export interface HumanDelay {
  readonly minMs: number;
  readonly maxMs: number;
}

export interface DeliveryPipelineOptions {
  readonly send: DeliverySend;
  /** Default 15,000 ms. */
  readonly sendTimeoutMs?: number;
  readonly humanDelay?: HumanDelay;
  readonly timers?: DeliveryTimers;
  /** Uniform in [0, 1); default from `crypto.getRandomValues`. */
  readonly random?: () => number;
  readonly onEvent?: DeliveryEventListener;
}

export interface DeliveryPipelineStats {
  readonly blocksSent: number;
  readonly finalsSent: number;
  readonly sentChars: number;
  readonly failed: number;
  readonly cancelled: number;
  readonly timedOut: number;
}

export interface DeliveryPipeline {
  /** Queues a payload. Returns false when it was dropped (duplicate, or a block after an abort). */
  enqueue(payload: DeliveryPayload): boolean;
  /** Resolves when everything queued so far has been sent, skipped or has failed. */
  idle(): Promise<void>;
  /** True after a send timed out. */
  readonly aborted: boolean;
  /** True once at least one block was delivered. */
  readonly didStream: boolean;
  /** The texts of the blocks delivered so far, in order. */
  readonly streamedTexts: readonly string[];
  /** True when a block with the same content (trimmed text and media) was delivered. */
  wasStreamed(payload: DeliveryPayload): boolean;
  readonly stats: DeliveryPipelineStats;
}

const timedOut: unique symbol = Symbol('timed out');

function defaultRandom(): number {
  const words = new Uint32Array(1);
  crypto.getRandomValues(words);
  return (words[0] ?? 0) / 0x1_0000_0000;
}

function isCancellation(value: unknown): value is DeliverySendResult {
  return typeof value === 'object' && value !== null && (value as { cancelled?: unknown }).cancelled === true;
}

function contentKey(payload: DeliveryPayload): string {
  const media = payload.mediaUrls === undefined ? '' : payload.mediaUrls.join('\u0001');
  return `${media}\u0000${payload.text.trim()}`;
}

function payloadKey(payload: DeliveryPayload): string {
  return `${payload.replyToId ?? ''}\u0000${contentKey(payload)}`;
}

export function createDeliveryPipeline(options: DeliveryPipelineOptions): DeliveryPipeline {
  if (typeof options.send !== 'function') {
    throw new DeliveryError('DELIVERY_INVALID_OPTIONS', 'pipeline.send must be a function', {
      details: { path: 'send' },
    });
  }
  const send = options.send;
  const sendTimeoutMs = assertInteger(options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS, 'sendTimeoutMs', 1);
  const humanDelay = options.humanDelay;
  if (humanDelay !== undefined) {
    const minMs = assertInteger(humanDelay.minMs, 'humanDelay.minMs', 0);
    assertInteger(humanDelay.maxMs, 'humanDelay.maxMs', minMs);
  }
  const timers = options.timers ?? systemTimers;
  const random = options.random ?? defaultRandom;
  const onEvent = options.onEvent;

  const queue: DeliveryPayload[] = [];
  const activeKeys = new Set<string>();
  const streamedContent = new Set<string>();
  const streamedTexts: string[] = [];
  let running = false;
  let aborted = false;
  let sendIndex = 0;
  let blocksStarted = 0;
  let waiters: Array<() => void> = [];
  const stats = { blocksSent: 0, finalsSent: 0, sentChars: 0, failed: 0, cancelled: 0, timedOut: 0 };

  function emit(event: Parameters<DeliveryEventListener>[0]): void {
    if (onEvent === undefined) return;
    try {
      onEvent(event);
    } catch {
      // A listener's failure must never break delivery.
    }
  }

  function suppress(payload: DeliveryPayload, reason: SuppressionReason): void {
    emit({ type: 'suppressed', reason, kind: payload.kind, text: payload.text });
  }

  const sleep = sleepOn(timers);

  async function sendOne(payload: DeliveryPayload, key: string): Promise<void> {
    const index = sendIndex++;
    const controller = new AbortController();
    let timer: unknown;
    const timeout = new Promise<typeof timedOut>((resolve) => {
      timer = timers.setTimeout(() => resolve(timedOut), sendTimeoutMs);
    });
    let result: unknown;
    try {
      const attempt = (async () => send(payload, { signal: controller.signal, index }))();
      result = await Promise.race([attempt, timeout]);
      if (result === timedOut) attempt.catch(() => undefined);
    } catch (cause) {
      timers.clearTimeout(timer);
      activeKeys.delete(key);
      stats.failed++;
      const message = cause instanceof Error ? cause.message : String(cause);
      emit({
        type: 'failed',
        payload,
        index,
        error: new DeliveryError(
          'DELIVERY_SEND_FAILED',
          `Send #${index} (${payload.kind}) failed: ${message}`,
          {
            cause,
            details: { index, kind: payload.kind },
          },
        ),
      });
      return;
    }
    timers.clearTimeout(timer);
    if (result === timedOut) {
      controller.abort();
      aborted = true;
      activeKeys.delete(key);
      stats.timedOut++;
      emit({
        type: 'timed_out',
        payload,
        index,
        error: new DeliveryError(
          'DELIVERY_SEND_TIMEOUT',
          `Send #${index} (${payload.kind}) did not finish within ${sendTimeoutMs} ms; remaining blocks are skipped`,
          { details: { index, kind: payload.kind, timeoutMs: sendTimeoutMs } },
        ),
      });
      return;
    }
    if (isCancellation(result)) {
      stats.cancelled++;
      emit({ type: 'cancelled', payload, index, reason: result.reason });
      return;
    }
    stats.sentChars += payload.text.length;
    if (payload.kind === 'block') {
      stats.blocksSent++;
      streamedContent.add(contentKey(payload));
      streamedTexts.push(payload.text);
    } else {
      stats.finalsSent++;
    }
    emit({ type: 'sent', payload, index });
  }

  async function run(): Promise<void> {
    running = true;
    try {
      for (let payload = queue.shift(); payload !== undefined; payload = queue.shift()) {
        const key = payloadKey(payload);
        if (payload.kind === 'block') {
          if (aborted) {
            activeKeys.delete(key);
            suppress(payload, 'pipeline-aborted');
            continue;
          }
          if (humanDelay !== undefined && blocksStarted > 0) {
            const span = humanDelay.maxMs - humanDelay.minMs;
            await sleep(humanDelay.minMs + Math.floor(random() * (span + 1)));
            if (aborted) {
              activeKeys.delete(key);
              suppress(payload, 'pipeline-aborted');
              continue;
            }
          }
          blocksStarted++;
        }
        await sendOne(payload, key);
      }
    } finally {
      running = false;
      const resolved = waiters;
      waiters = [];
      for (const resolve of resolved) resolve();
    }
  }

  return {
    enqueue(payload: DeliveryPayload): boolean {
      if (payload.kind === 'block' && aborted) {
        suppress(payload, 'pipeline-aborted');
        return false;
      }
      const key = payloadKey(payload);
      if (activeKeys.has(key)) {
        suppress(payload, 'duplicate');
        return false;
      }
      activeKeys.add(key);
      queue.push(payload);
      if (!running) {
        // Start on a microtask so the caller (an agent event handler) never runs a send inline.
        running = true;
        queueMicrotask(() => void run());
      }
      return true;
    },
    idle(): Promise<void> {
      if (!running && queue.length === 0) return Promise.resolve();
      return new Promise((resolve) => {
        waiters.push(resolve);
      });
    },
    get aborted(): boolean {
      return aborted;
    },
    get didStream(): boolean {
      return stats.blocksSent > 0;
    },
    get streamedTexts(): readonly string[] {
      return streamedTexts;
    },
    wasStreamed(payload: DeliveryPayload): boolean {
      return streamedContent.has(contentKey(payload));
    },
    get stats(): DeliveryPipelineStats {
      return { ...stats };
    },
  };
}
