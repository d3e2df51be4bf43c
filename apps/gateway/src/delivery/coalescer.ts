/**
 * Merges small streamed blocks into fewer, larger messages before they are sent.
 *
 * Blocks are joined with the joiner. The buffer is flushed when it reaches `maxChars`, when the
 * next block would push it past `maxChars` (a block that alone reaches `maxChars` goes straight
 * out), when `idleMs` pass without a new block and the buffer holds at least `minChars`, and on
 * an explicit flush. A payload with media, or with a different reply target, flushes the buffer
 * first and is passed on by itself.
 */

import { assertInteger, DeliveryError } from './errors.ts';
import { type DeliveryPayload, type DeliveryTimers, systemTimers } from './types.ts';

export interface BlockCoalescerOptions {
  readonly minChars: number;
  readonly maxChars: number;
  /** 0 to 5000 ms. */
  readonly idleMs: number;
  /** Placed between merged blocks; default a blank line. */
  readonly joiner?: string;
  /** Receives every merged payload, in order. */
  readonly onFlush: (payload: DeliveryPayload) => void;
  readonly timers?: DeliveryTimers;
  /** Monotonic milliseconds; default `performance.now`. */
  readonly now?: () => number;
}

export interface BlockCoalescer {
  enqueue(payload: DeliveryPayload): void;
  /** Sends whatever is buffered now. */
  flush(): void;
  /** Drops the buffer and the idle timer (aborted pipeline or run). Returns the dropped text. */
  clear(): string;
  readonly bufferedText: string;
}

function hasMedia(payload: DeliveryPayload): boolean {
  return payload.mediaUrls !== undefined && payload.mediaUrls.length > 0;
}

export function createBlockCoalescer(options: BlockCoalescerOptions): BlockCoalescer {
  const maxChars = assertInteger(options.maxChars, 'coalesce.maxChars', 1);
  const minChars = assertInteger(options.minChars, 'coalesce.minChars', 0, maxChars);
  const idleMs = assertInteger(options.idleMs, 'coalesce.idleMs', 0, 5000);
  if (typeof options.onFlush !== 'function') {
    throw new DeliveryError('DELIVERY_INVALID_OPTIONS', 'coalesce.onFlush must be a function', {
      details: { path: 'coalesce.onFlush' },
    });
  }
  const joiner = options.joiner ?? '\n\n';
  const timers = options.timers ?? systemTimers;
  const now = options.now ?? (() => performance.now());
  const onFlush = options.onFlush;

  let buffer = '';
  let bufferReplyToId: string | undefined;
  let lastEnqueueAt = 0;
  let timer: unknown;
  let timerArmed = false;

  function disarm(): void {
    if (timerArmed) {
      timers.clearTimeout(timer);
      timerArmed = false;
    }
  }

  function flushNow(): void {
    disarm();
    if (buffer.length === 0) return;
    const text = buffer;
    const replyToId = bufferReplyToId;
    buffer = '';
    bufferReplyToId = undefined;
    onFlush(replyToId === undefined ? { text, kind: 'block' } : { text, kind: 'block', replyToId });
  }

  function onIdle(): void {
    timerArmed = false;
    if (buffer.length === 0) return;
    const elapsed = now() - lastEnqueueAt;
    if (elapsed < idleMs) {
      arm(idleMs - elapsed);
      return;
    }
    // Below minChars the buffer keeps waiting for more text (or a forced flush).
    if (buffer.length >= minChars) flushNow();
  }

  function arm(ms: number): void {
    if (timerArmed) return;
    timerArmed = true;
    timer = timers.setTimeout(onIdle, ms);
  }

  return {
    enqueue(payload: DeliveryPayload): void {
      if (buffer.length > 0 && (hasMedia(payload) || payload.replyToId !== bufferReplyToId)) flushNow();
      if (hasMedia(payload)) {
        onFlush(payload);
        return;
      }
      const text = payload.text;
      if (text.length === 0) return;
      if (buffer.length > 0 && buffer.length + joiner.length + text.length > maxChars) flushNow();
      if (buffer.length === 0 && text.length >= maxChars) {
        onFlush(payload);
        return;
      }
      buffer = buffer.length === 0 ? text : buffer + joiner + text;
      bufferReplyToId = payload.replyToId;
      if (buffer.length >= maxChars) {
        flushNow();
        return;
      }
      lastEnqueueAt = now();
      arm(idleMs);
    },
    flush: flushNow,
    clear(): string {
      disarm();
      const dropped = buffer;
      buffer = '';
      bufferReplyToId = undefined;
      return dropped;
    },
    get bufferedText(): string {
      return buffer;
    },
  };
}
