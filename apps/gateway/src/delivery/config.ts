/**
 * Per-channel text limits and the effective streaming configuration of one reply.
 */

import type { BreakPreference } from './block-chunker.ts';
import type { ChunkMode } from './chunk-text.ts';
import { assertInteger, assertOneOf, DeliveryError } from './errors.ts';
import type { HumanDelay } from './pipeline.ts';

/** What a channel adapter declares about outbound text. */
export interface ChannelDeliveryCapabilities {
  /** Configured chunk limit in characters; default 4000. */
  readonly textChunkLimit?: number;
  /** The platform's hard cap, which the configured limit can never exceed (Telegram: 4096). */
  readonly hardTextLimit?: number;
  /** Default `length`. `newline` prefers blank-line boundaries and flushes paragraphs eagerly. */
  readonly chunkMode?: ChunkMode;
  /** Soft cap on lines per message (Discord: 17). */
  readonly maxLinesPerMessage?: number;
  /** Coalescing defaults of chat-heavy channels (fewer, larger bubbles). */
  readonly coalesceDefaults?: { readonly minChars?: number; readonly idleMs?: number };
}

/** The limit used when a channel declares none. */
export const DEFAULT_TEXT_CHUNK_LIMIT = 4000;

const chatHeavy = { minChars: 1500, idleMs: 1000 } as const;

/**
 * Adapter defaults (April 2026 OpenClaw tree). Slack uses 4000, the early-2026 value, rather
 * than 8000: long Slack messages collapse behind "show more".
 */
export const channelDeliveryDefaults: Readonly<Record<string, ChannelDeliveryCapabilities>> = {
  telegram: { textChunkLimit: 4000, hardTextLimit: 4096 },
  discord: { textChunkLimit: 2000, maxLinesPerMessage: 17, coalesceDefaults: chatHeavy },
  slack: { textChunkLimit: 4000, coalesceDefaults: chatHeavy },
  whatsapp: { textChunkLimit: 4000 },
  signal: { textChunkLimit: 4000, coalesceDefaults: chatHeavy },
  imessage: { textChunkLimit: 4000 },
  bluebubbles: { textChunkLimit: 4000 },
  matrix: { textChunkLimit: 4000 },
  mattermost: { textChunkLimit: 4000, coalesceDefaults: chatHeavy },
  msteams: { textChunkLimit: 4000, coalesceDefaults: chatHeavy },
  googlechat: { textChunkLimit: 4000, coalesceDefaults: chatHeavy },
  feishu: { textChunkLimit: 4000 },
  'nextcloud-talk': { textChunkLimit: 4000 },
  nostr: { textChunkLimit: 4000 },
  'synology-chat': { textChunkLimit: 2000 },
  line: { textChunkLimit: 5000 },
  qqbot: { textChunkLimit: 5000 },
  irc: { textChunkLimit: 350 },
  twitch: { textChunkLimit: 500 },
  tlon: { textChunkLimit: 10000 },
};

/** How assistant text is streamed to a channel. */
type BlockStreamingMode = 'off' | 'text_end' | 'message_end';

export interface BlockStreamingOptions {
  /**
   * `off` (default): nothing streams; each assistant message's text is sent after the run.
   * `text_end`: blocks go out as the buffer grows and at each text block's end.
   * `message_end`: each assistant message is buffered and sent when it ends (split if long).
   */
  readonly mode?: BlockStreamingMode;
  /** Chunker bounds; default minChars 800, maxChars 1200, breakPreference `paragraph`. */
  readonly chunk?: {
    readonly minChars?: number;
    readonly maxChars?: number;
    readonly breakPreference?: BreakPreference;
  };
  /** Block coalescing; `false` turns it off. Default minChars = chunk min, maxChars = channel limit, idleMs 1000. */
  readonly coalesce?:
    | false
    | { readonly minChars?: number; readonly maxChars?: number; readonly idleMs?: number };
  /** Pause before each block reply except the first: `natural` is 800–2500 ms. Default `off`. */
  readonly humanDelay?: 'off' | 'natural' | HumanDelay;
}

export interface ResolvedDeliveryConfig {
  readonly mode: BlockStreamingMode;
  /** The channel's effective text limit: no outbound message is longer. */
  readonly textLimit: number;
  readonly chunkMode: ChunkMode;
  readonly maxLinesPerMessage: number | undefined;
  readonly chunk: {
    readonly minChars: number;
    readonly maxChars: number;
    readonly breakPreference: BreakPreference;
    readonly flushOnParagraph: boolean;
  };
  readonly coalesce:
    | {
        readonly minChars: number;
        readonly maxChars: number;
        readonly idleMs: number;
        readonly joiner: string;
      }
    | undefined;
  readonly humanDelay: HumanDelay | undefined;
}

const joiners: Readonly<Record<BreakPreference, string>> = {
  paragraph: '\n\n',
  newline: '\n',
  sentence: ' ',
};

/**
 * The effective configuration: chunk maxChars = min(requested, channel limit); minChars =
 * min(requested, maxChars); coalesce max = min(coalesce max or channel limit, chunk max);
 * coalesce min ≤ coalesce max; idleMs clamped to 0–5000; joiner from the break preference.
 */
export function resolveDeliveryConfig(
  channel: ChannelDeliveryCapabilities = {},
  streaming: BlockStreamingOptions = {},
): ResolvedDeliveryConfig {
  const mode = assertOneOf(streaming.mode ?? 'off', 'streaming.mode', [
    'off',
    'text_end',
    'message_end',
  ] as const);
  const configuredLimit = assertInteger(
    channel.textChunkLimit ?? DEFAULT_TEXT_CHUNK_LIMIT,
    'channel.textChunkLimit',
    1,
  );
  const hardLimit =
    channel.hardTextLimit === undefined
      ? undefined
      : assertInteger(channel.hardTextLimit, 'channel.hardTextLimit', 1);
  const textLimit = hardLimit === undefined ? configuredLimit : Math.min(configuredLimit, hardLimit);
  const chunkMode = assertOneOf(channel.chunkMode ?? 'length', 'channel.chunkMode', [
    'length',
    'newline',
  ] as const);
  const maxLinesPerMessage =
    channel.maxLinesPerMessage === undefined
      ? undefined
      : assertInteger(channel.maxLinesPerMessage, 'channel.maxLinesPerMessage', 1);

  const requestedMax = assertInteger(streaming.chunk?.maxChars ?? 1200, 'streaming.chunk.maxChars', 1);
  const requestedMin = assertInteger(streaming.chunk?.minChars ?? 800, 'streaming.chunk.minChars', 1);
  const breakPreference = assertOneOf(
    streaming.chunk?.breakPreference ?? 'paragraph',
    'streaming.chunk.breakPreference',
    ['paragraph', 'newline', 'sentence'] as const,
  );
  const chunkMax = Math.min(requestedMax, textLimit);
  const chunkMin = Math.min(requestedMin, chunkMax);

  let coalesce: ResolvedDeliveryConfig['coalesce'];
  if (streaming.coalesce !== false) {
    const requested = streaming.coalesce ?? {};
    const coalesceMax = Math.min(
      requested.maxChars === undefined
        ? textLimit
        : assertInteger(requested.maxChars, 'streaming.coalesce.maxChars', 1),
      chunkMax,
    );
    const requestedCoalesceMin = requested.minChars ?? channel.coalesceDefaults?.minChars ?? chunkMin;
    const coalesceMin = Math.min(
      assertInteger(requestedCoalesceMin, 'streaming.coalesce.minChars', 0),
      coalesceMax,
    );
    const requestedIdle = requested.idleMs ?? channel.coalesceDefaults?.idleMs ?? 1000;
    if (typeof requestedIdle !== 'number' || !Number.isFinite(requestedIdle)) {
      throw new DeliveryError(
        'DELIVERY_INVALID_OPTIONS',
        'streaming.coalesce.idleMs must be a finite number',
        {
          details: { path: 'streaming.coalesce.idleMs' },
        },
      );
    }
    const idleMs = Math.min(5000, Math.max(0, Math.round(requestedIdle)));
    coalesce = { minChars: coalesceMin, maxChars: coalesceMax, idleMs, joiner: joiners[breakPreference] };
  }

  let humanDelay: HumanDelay | undefined;
  const delay = streaming.humanDelay ?? 'off';
  if (delay === 'natural') {
    humanDelay = { minMs: 800, maxMs: 2500 };
  } else if (typeof delay === 'object' && delay !== null) {
    const minMs = assertInteger(delay.minMs, 'streaming.humanDelay.minMs', 0);
    humanDelay = { minMs, maxMs: assertInteger(delay.maxMs, 'streaming.humanDelay.maxMs', minMs) };
  } else if (delay !== 'off') {
    assertOneOf(delay, 'streaming.humanDelay', ['off', 'natural'] as const);
  }

  return {
    mode,
    textLimit,
    chunkMode,
    maxLinesPerMessage,
    chunk: {
      minChars: chunkMin,
      maxChars: chunkMax,
      breakPreference,
      flushOnParagraph: chunkMode === 'newline',
    },
    coalesce,
    humanDelay,
  };
}
