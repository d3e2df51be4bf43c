/**
 * The reply stream: everything between an agent run's events and the channel send.
 *
 *   text deltas → tag stripper (<think>, <final>) → silent gate (NO_REPLY) → block chunker
 *     → per-message repeat filter → messaging-tool dedupe → coalescer → channel-limit chunking
 *     → serial pipeline (timeout, dedupe) → injected send
 *
 * and, at run end, the final-payload rules. One reply stream serves one run for one reply
 * target. Feed it with plain events (the gateway adapts the agent loop's events), await
 * `onRunEnd()` for the summary.
 */

import { type BlockChunker, createBlockChunker } from './block-chunker.ts';
import { chunkText } from './chunk-text.ts';
import { type BlockCoalescer, createBlockCoalescer } from './coalescer.ts';
import { resolveDeliveryConfig } from './config.ts';
import { DeliveryError } from './errors.ts';
import { createMessagingToolTracker } from './messaging-dedupe.ts';
import { createDeliveryPipeline, type DeliveryPipelineStats } from './pipeline.ts';
import {
  defaultToolErrorNotice,
  type ReplyStream,
  type ReplyStreamOptions,
  type ReplySummary,
  type RunEndInput,
  type ToolFailure,
} from './reply-stream-types.ts';
import { createSilentGate, DEFAULT_SILENT_TOKENS } from './silent-token.ts';
import { createTagStripper, stripDowngradedToolCallText } from './tag-stripper.ts';
import {
  type DeliveryEvent,
  type DeliveryEventListener,
  type DeliveryPayload,
  type SuppressionReason,
  suppressionReasons,
  systemTimers,
} from './types.ts';

export type { ReplyStream, ReplyStreamOptions, ReplySummary } from './reply-stream-types.ts';

interface FinalCandidate {
  readonly text: string;
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function createReplyStream(options: ReplyStreamOptions): ReplyStream {
  if (typeof options !== 'object' || options === null || typeof options.send !== 'function') {
    throw new DeliveryError('DELIVERY_INVALID_OPTIONS', 'createReplyStream needs options.send (a function)', {
      details: { path: 'send' },
    });
  }
  const config = resolveDeliveryConfig(options.channel, options.streaming);
  const streaming = config.mode !== 'off';
  const expectSilence = options.expectSilence === true;
  const replyToId = options.replyToId;
  const origin = options.origin;
  const timers = options.timers ?? systemTimers;
  const userListener = options.onEvent;
  const fallback = options.toolErrorFallback ?? true;

  const suppressed = Object.fromEntries(suppressionReasons.map((reason) => [reason, 0])) as Record<
    SuppressionReason,
    number
  >;
  const listener: DeliveryEventListener = (event: DeliveryEvent): void => {
    if (event.type === 'suppressed') suppressed[event.reason]++;
    if (userListener === undefined) return;
    try {
      userListener(event);
    } catch {
      // A listener's failure must never break delivery.
    }
  };
  const suppress = (reason: SuppressionReason, kind: 'block' | 'final', text: string): void => {
    listener({ type: 'suppressed', reason, kind, text });
  };

  const pipeline = createDeliveryPipeline({
    send: options.send,
    sendTimeoutMs: options.sendTimeoutMs,
    humanDelay: config.humanDelay,
    timers,
    random: options.random,
    onEvent: listener,
  });
  const chunkOptions = {
    limit: config.textLimit,
    mode: config.chunkMode,
    maxLines: config.maxLinesPerMessage,
  };

  function deliver(payload: DeliveryPayload): void {
    const text = payload.text;
    const fits =
      text.length <= config.textLimit &&
      (config.maxLinesPerMessage === undefined ||
        text.split('\n', config.maxLinesPerMessage + 1).length <= config.maxLinesPerMessage);
    if (fits) {
      pipeline.enqueue(payload);
      return;
    }
    for (const piece of chunkText(text, chunkOptions)) pipeline.enqueue({ ...payload, text: piece });
  }

  const coalescer: BlockCoalescer | undefined =
    streaming && config.coalesce !== undefined
      ? createBlockCoalescer({
          ...config.coalesce,
          onFlush: deliver,
          timers,
          now: options.now,
        })
      : undefined;
  const chunker: BlockChunker | undefined = streaming
    ? createBlockChunker({
        minChars: config.chunk.minChars,
        maxChars: config.chunk.maxChars,
        breakPreference: config.chunk.breakPreference,
        flushOnParagraph: config.chunk.flushOnParagraph,
      })
    : undefined;
  const stripper = createTagStripper({ enforceFinal: options.enforceFinalTag === true });
  const gate = createSilentGate({ tokens: options.silentTokens ?? DEFAULT_SILENT_TOKENS });
  const messaging = createMessagingToolTracker();

  // Per assistant message.
  let messageOpen = false;
  let received = '';
  let blockStart = 0;
  let visible = '';
  let lastBlockKey = '';
  let blockKeys = new Set<string>();
  // Per run.
  let finals: FinalCandidate[] = [];
  let silentMessages = 0;
  let toolFailure: ToolFailure | undefined;
  let summaryPromise: Promise<ReplySummary> | undefined;
  let runAborted = false;

  function emitBlock(chunk: string): void {
    const text = stripDowngradedToolCallText(chunk);
    if (text.trim().length === 0) return;
    if (expectSilence) {
      suppress('expected-silence', 'block', text);
      return;
    }
    const key = text.trim();
    if (key === lastBlockKey || blockKeys.has(key)) {
      suppress('repeated', 'block', text);
      return;
    }
    lastBlockKey = key;
    blockKeys.add(key);
    if (messaging.matchesCommittedText(text)) {
      suppress('messaging-tool-text', 'block', text);
      return;
    }
    const payload: DeliveryPayload =
      replyToId === undefined ? { text, kind: 'block' } : { text, kind: 'block', replyToId };
    if (coalescer === undefined) deliver(payload);
    else coalescer.enqueue(payload);
  }

  function accept(text: string): void {
    if (text.length === 0) return;
    visible += text;
    if (chunker === undefined) return;
    chunker.append(text);
    if (config.mode === 'text_end') {
      const chunks = chunker.drain();
      for (let index = 0; index < chunks.length; index++) emitBlock(chunks[index] as string);
    }
  }

  function ingest(raw: string): void {
    if (raw.length === 0) return;
    received += raw;
    const shown = stripper.push(raw);
    if (shown.length > 0) accept(gate.push(shown));
  }

  /** End of a text block: release held partial tags and tokens, then (optionally) force the chunker. */
  function settleText(forceChunker: boolean): void {
    const rest = stripper.flush();
    if (rest.length > 0) accept(gate.push(rest));
    accept(gate.end());
    if (forceChunker && chunker !== undefined) {
      for (const chunk of chunker.drain({ force: true })) emitBlock(chunk);
    }
  }

  function startMessage(): void {
    if (messageOpen) endMessage(undefined);
    messageOpen = true;
    received = '';
    blockStart = 0;
    visible = '';
    lastBlockKey = '';
    blockKeys = new Set();
    stripper.reset();
    gate.reset();
  }

  function ensureMessage(): boolean {
    if (summaryPromise !== undefined) return false;
    if (!messageOpen) startMessage();
    return true;
  }

  /** Appends only the unseen part of a text block's full content (monotonic output). */
  function ingestContent(content: string): void {
    const current = received.slice(blockStart);
    if (current.length === 0 && content.length > 0 && received.includes(content)) return; // a repeated end
    if (content.startsWith(current)) ingest(content.slice(current.length));
    else if (current.startsWith(content)) return;
    else if (received.startsWith(content) || received.endsWith(content)) return;
    else if (content.startsWith(received)) ingest(content.slice(received.length));
    else ingest(content);
  }

  function endMessage(finalText: string | undefined): void {
    if (finalText !== undefined && finalText.length > 0) {
      // Nothing streamed (provider skipped deltas): the full text goes out once. Otherwise use
      // only a pure extension; a differing final text would duplicate what was streamed.
      if (received.length === 0) ingest(finalText);
      else if (finalText.startsWith(received)) ingest(finalText.slice(received.length));
    }
    settleText(true);
    if (gate.state === 'silent' && visible.trim().length === 0) {
      silentMessages++;
      suppress('silent', streaming ? 'block' : 'final', '');
    }
    if (visible.trim().length > 0) finals.push({ text: visible });
    messageOpen = false;
  }

  function finalPayload(text: string): DeliveryPayload {
    return replyToId === undefined ? { text, kind: 'final' } : { text, kind: 'final', replyToId };
  }

  function fullyStreamed(text: string): boolean {
    const streamed = collapseWhitespace(pipeline.streamedTexts.join(' '));
    return streamed.includes(collapseWhitespace(text));
  }

  function sendFinals(): void {
    let candidates = finals;
    if (streaming) {
      if (!pipeline.aborted) {
        for (const candidate of candidates) suppress('already-streamed', 'final', candidate.text);
        return;
      }
      candidates = candidates.filter((candidate) => {
        const streamed = fullyStreamed(candidate.text);
        if (streamed) suppress('already-streamed', 'final', candidate.text);
        return !streamed;
      });
    }
    for (const candidate of candidates) {
      const text = stripDowngradedToolCallText(candidate.text);
      if (text.trim().length === 0) continue;
      if (expectSilence) {
        suppress('expected-silence', 'final', text);
        continue;
      }
      const reason = messaging.finalSuppression(text, origin);
      if (reason !== undefined) {
        suppress(reason, 'final', text);
        continue;
      }
      deliver(finalPayload(text));
    }
  }

  function sendToolErrorFallback(): void {
    if (fallback === false || toolFailure === undefined) return;
    if (silentMessages > 0 || expectSilence || messaging.deliveredSomething) return;
    const stats = pipeline.stats;
    if (stats.blocksSent + stats.finalsSent + stats.cancelled > 0) return;
    const notice = fallback === true ? defaultToolErrorNotice(toolFailure) : fallback(toolFailure);
    if (notice !== undefined && notice.trim().length > 0) deliver(finalPayload(notice));
  }

  function summarize(stats: DeliveryPipelineStats): ReplySummary {
    const sent = stats.blocksSent + stats.finalsSent;
    return {
      sent,
      blocksSent: stats.blocksSent,
      finalsSent: stats.finalsSent,
      sentChars: stats.sentChars,
      silent: sent === 0 && (silentMessages > 0 || expectSilence),
      pipelineAborted: pipeline.aborted,
      runAborted,
      failed: stats.failed,
      cancelled: stats.cancelled,
      timedOut: stats.timedOut,
      suppressed: { ...suppressed },
    };
  }

  async function finish(outcome: RunEndInput): Promise<ReplySummary> {
    if (outcome.aborted === true) {
      runAborted = true;
      const dropped = [chunker?.bufferedText ?? '', coalescer?.clear() ?? ''].join('').trim();
      chunker?.reset();
      if (dropped.length > 0) suppress('run-aborted', 'block', dropped);
      messageOpen = false;
      await pipeline.idle();
      return summarize(pipeline.stats);
    }
    if (messageOpen) endMessage(undefined);
    coalescer?.flush();
    await pipeline.idle();
    sendFinals();
    sendToolErrorFallback();
    await pipeline.idle();
    return summarize(pipeline.stats);
  }

  const stream: ReplyStream = {
    onMessageStart(): void {
      if (summaryPromise !== undefined) return;
      startMessage();
    },
    onTextStart(content?: string): void {
      if (!ensureMessage()) return;
      blockStart = received.length;
      if (content !== undefined && content.length > 0) ingestContent(content);
    },
    onTextDelta(delta: string): void {
      if (!ensureMessage()) return;
      ingest(delta);
    },
    onTextEnd(content?: string): void {
      if (summaryPromise !== undefined) return;
      if (!messageOpen) {
        // A late or repeated end after the message ended: only text never seen would count.
        return;
      }
      if (content !== undefined && content.length > 0) ingestContent(content);
      blockStart = received.length;
      settleText(config.mode === 'text_end');
    },
    onToolStart() {
      if (summaryPromise !== undefined) return Promise.resolve();
      if (messageOpen) settleText(streaming);
      coalescer?.flush();
      return pipeline.idle();
    },
    onMessageToolSend(send) {
      messaging.recordPending(send.toolCallId, send);
    },
    onToolEnd(result) {
      messaging.resolve(result.toolCallId, !result.isError);
      if (result.isError) {
        toolFailure = {
          toolCallId: result.toolCallId,
          toolName: result.toolName,
          errorMessage: result.errorMessage,
        };
      }
    },
    onMessageEnd(finalText?: string): void {
      if (summaryPromise !== undefined) return;
      if (!messageOpen) {
        // Late or repeated message_end: state is reset only on message_start, never here.
        if (received.length === 0 && finalText !== undefined && finalText.trim().length > 0) {
          startMessage();
          endMessage(finalText);
        }
        return;
      }
      endMessage(finalText);
    },
    onRunEnd(outcome: RunEndInput = {}): Promise<ReplySummary> {
      summaryPromise ??= finish(outcome);
      return summaryPromise;
    },
    dispatch(event) {
      switch (event.type) {
        case 'message_start':
          stream.onMessageStart();
          return undefined;
        case 'text_start':
          stream.onTextStart(event.content);
          return undefined;
        case 'text_delta':
          stream.onTextDelta(event.delta);
          return undefined;
        case 'text_end':
          stream.onTextEnd(event.content);
          return undefined;
        case 'tool_start':
          return stream.onToolStart(event);
        case 'message_tool_send':
          stream.onMessageToolSend(event);
          return undefined;
        case 'tool_end':
          stream.onToolEnd(event);
          return undefined;
        case 'message_end':
          stream.onMessageEnd(event.text);
          return undefined;
      }
    },
    resetForRetry(): void {
      messaging.reset();
      finals = [];
    },
    config,
  };
  return stream;
}
