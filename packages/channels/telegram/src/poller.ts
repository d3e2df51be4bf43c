// Long polling with an offset that only moves past an update once the gateway has it.
//
// grammY's `bot.start()` and @grammyjs/runner both confirm an update to Telegram (by
// asking for the next offset) before or regardless of whether handling it succeeded; a
// crash or a failed journal write would lose it. Here each batch is handled (chats in
// parallel, one chat's updates in order), and the next `getUpdates` asks for
// `offset = last handled + 1`, or stops at the first update whose handling failed so
// Telegram delivers it (and the ones after it) again. The gateway drops the duplicates.

import { backoffDelay, type Sleep } from '@switchboard/hooks';
import type { Api } from 'grammy';
import type { Update } from 'grammy/types';
import { apiSignal, classifyTelegramError, type TelegramFailure } from './api.ts';

/** What the poller reports; the channel turns it into account status. */
export type PollerEvent =
  | { readonly type: 'connected' }
  | { readonly type: 'network'; readonly failure: TelegramFailure; readonly retryInMs: number }
  | { readonly type: 'conflict'; readonly failure: TelegramFailure; readonly retryInMs: number }
  | { readonly type: 'rate_limited'; readonly retryInMs: number }
  | { readonly type: 'unauthorized'; readonly failure: TelegramFailure }
  | {
      readonly type: 'handler_failed';
      readonly updateId: number;
      readonly error: unknown;
      readonly retryInMs: number;
    };

export interface PollerOptions {
  readonly api: Api;
  /** Handles one update; resolves once the gateway has it (or it was skipped on purpose). */
  readonly handle: (update: Update) => Promise<void>;
  readonly timeoutSeconds: number;
  readonly allowedUpdates: readonly string[];
  readonly signal: AbortSignal;
  readonly sleep: Sleep;
  readonly random: () => number;
  readonly onEvent: (event: PollerEvent) => void;
}

export interface Poller {
  /** Resolves when polling ended (stopped, or the token was rejected). */
  readonly done: Promise<void>;
  /** The offset the next `getUpdates` would send. */
  offset(): number | undefined;
}

function chatKey(update: Update): string {
  const message =
    update.message ?? update.edited_message ?? update.channel_post ?? update.edited_channel_post;
  return message === undefined ? `update:${update.update_id}` : String(message.chat.id);
}

/** Handles a batch; resolves with the ids of updates not handled (a failure and what followed it in its chat). */
async function handleBatch(
  updates: readonly Update[],
  handle: (update: Update) => Promise<void>,
): Promise<{ failed: number[]; error: unknown }> {
  const byChat = new Map<string, Update[]>();
  for (const update of updates) {
    const key = chatKey(update);
    const list = byChat.get(key);
    if (list === undefined) byChat.set(key, [update]);
    else list.push(update);
  }
  const failed: number[] = [];
  let firstError: unknown;
  await Promise.all(
    [...byChat.values()].map(async (list) => {
      for (const [index, update] of list.entries()) {
        try {
          await handle(update);
        } catch (error) {
          firstError ??= error;
          for (const rest of list.slice(index)) failed.push(rest.update_id);
          return;
        }
      }
    }),
  );
  return { failed, error: firstError };
}

export function startPolling(options: PollerOptions): Poller {
  const { api, signal } = options;
  let offset: number | undefined;
  let sentOffset: number | undefined;
  let networkFailures = 0;
  let conflictFailures = 0;
  let handlerFailures = 0;
  let connected = false;

  const pause = (ms: number) => options.sleep(ms, signal).catch(() => undefined);

  const loop = async () => {
    let allowedUpdates: readonly string[] | undefined = options.allowedUpdates;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        sentOffset = offset;
        updates = await api.getUpdates(
          {
            offset,
            timeout: options.timeoutSeconds,
            // Telegram remembers the last list; sending it once is enough.
            allowed_updates: allowedUpdates === undefined ? undefined : ([...allowedUpdates] as never),
          },
          apiSignal(signal),
        );
      } catch (error) {
        if (signal.aborted) break;
        const failure = classifyTelegramError(error);
        connected = false;
        if (failure.kind === 'unauthorized') {
          options.onEvent({ type: 'unauthorized', failure });
          return;
        }
        if (failure.kind === 'conflict') {
          conflictFailures += 1;
          const retryInMs = backoffDelay({
            attempt: conflictFailures,
            baseMs: 5_000,
            capMs: 60_000,
            jitter: 0.2,
            random: options.random,
          });
          options.onEvent({ type: 'conflict', failure, retryInMs });
          await pause(retryInMs);
        } else if (failure.kind === 'rate_limit') {
          const retryInMs = (failure.retryAfterSeconds ?? 5) * 1000;
          options.onEvent({ type: 'rate_limited', retryInMs });
          await pause(retryInMs);
        } else {
          networkFailures += 1;
          const retryInMs = backoffDelay({
            attempt: networkFailures,
            baseMs: 1_000,
            capMs: 30_000,
            jitter: 0.2,
            random: options.random,
          });
          options.onEvent({ type: 'network', failure, retryInMs });
          await pause(retryInMs);
        }
        continue;
      }
      allowedUpdates = undefined;
      networkFailures = 0;
      conflictFailures = 0;
      if (!connected) {
        connected = true;
        options.onEvent({ type: 'connected' });
      }
      if (updates.length === 0) continue;
      const { failed, error } = await handleBatch(updates, options.handle);
      if (failed.length === 0) {
        offset = updates.at(-1)!.update_id + 1;
        handlerFailures = 0;
        continue;
      }
      const firstFailed = Math.min(...failed);
      offset = firstFailed;
      handlerFailures += 1;
      const retryInMs = backoffDelay({
        attempt: handlerFailures,
        baseMs: 1_000,
        capMs: 60_000,
        jitter: 0.2,
        random: options.random,
      });
      connected = false;
      options.onEvent({ type: 'handler_failed', updateId: firstFailed, error, retryInMs });
      await pause(retryInMs);
    }
    // Confirm what was handled since the last poll, as grammY's bot.stop() does.
    if (offset !== undefined && offset !== sentOffset) {
      await api.getUpdates({ offset, limit: 1, timeout: 0 }, apiSignal(AbortSignal.timeout(3_000))).then(
        () => undefined,
        () => undefined,
      );
    }
  };

  return {
    done: loop(),
    offset: () => offset,
  };
}
