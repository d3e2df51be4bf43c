// `/compact` and `sessions.compact`: a compaction in the session's lane, reported like a run.
import { type CompactionSettings, type Compactor, createModelSummarizer } from '@switchboard/compaction';
import type { StreamFunction } from '@switchboard/core-loop';
import type { Logger } from '@switchboard/hooks';
import type { RunBatch, SessionEntry, SessionStore } from '@switchboard/sessions';
import type { ModelCatalog } from '../models.ts';
import type { SendOutbound } from '../outbound.ts';
import { refKey, type TurnInput } from '../turn-input.ts';
import { credentialsOf } from './attempt-target.ts';
import type { RunOutcome } from './outcome.ts';
import { replyTarget } from './reply-bridge.ts';

export interface CompactionRunServices {
  readonly store: SessionStore;
  readonly catalog: ModelCatalog;
  readonly streamFn: StreamFunction;
  readonly send: SendOutbound;
  readonly logger: Logger;
  /** Undefined when compaction is turned off. */
  readonly compactor: Compactor | undefined;
  readonly compactionSettings: Partial<CompactionSettings>;
  readonly modelReference: (agentId: string, session: SessionEntry) => string;
  /** Marks the journal records replied. */
  readonly markReplied: (inputs: readonly TurnInput[]) => Promise<void>;
}

/** Compacts the session of `batch`, tells the chat, closes the record; returns the run's outcome. */
export async function runCompaction(
  services: CompactionRunServices,
  batch: RunBatch<TurnInput>,
  last: TurnInput,
  runId: string,
  signal: AbortSignal,
): Promise<RunOutcome> {
  const { store, logger } = services;
  const sessionKey = batch.sessionKey;
  let text: string;
  let details: Record<string, unknown> = {};
  try {
    const session = await store.getSession(sessionKey);
    if (services.compactor === undefined) {
      text = 'Compaction is turned off (agents.defaults.compaction.enabled).';
    } else if (session === undefined) {
      text = 'There is nothing to compact yet.';
    } else {
      const target = services.catalog.resolve(services.modelReference(last.agentId, session));
      const result = await services.compactor.compact(sessionKey, {
        settings: { ...services.compactionSettings, contextWindow: target.model.contextWindow },
        signal,
        summarizer: createModelSummarizer({
          streamFn: services.streamFn,
          model: target.model,
          streamOptions: credentialsOf({ target }),
        }),
      });
      if (result.status === 'skipped') {
        text = 'There is nothing to compact yet.';
        details = { compacted: false, reason: result.reason };
      } else {
        const outcome = result.outcome;
        text = `Compacted: ${outcome.messagesBefore} messages became ${outcome.messagesAfter}, about ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens.`;
        details = {
          compacted: true,
          kind: outcome.kind,
          tokensBefore: outcome.tokensBefore,
          tokensAfter: outcome.tokensAfter,
          messagesBefore: outcome.messagesBefore,
          messagesAfter: outcome.messagesAfter,
        };
      }
    }
  } catch (error) {
    text = `Compaction failed: ${error instanceof Error ? error.message : String(error)}`;
    details = { compacted: false, error: text };
  }
  const target = replyTarget(last, undefined);
  if (target !== undefined) {
    await services
      .send(
        {
          kind: 'text',
          channel: target.channel,
          accountId: target.accountId,
          peer: target.peer,
          threadId: target.threadId,
          text,
        },
        { idempotencyKey: `${refKey(last.ref)}:compact` },
      )
      .catch((error: unknown) => logger.warn('could not report the compaction', { error: String(error) }));
  }
  await services.markReplied([last]);
  return { status: 'compacted', runId, text, compaction: details };
}
