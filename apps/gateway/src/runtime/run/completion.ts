// The end of a turn: deliver the reply (or the error in plain words), close the journal
// records and store the outcomes in one group commit, end the run's events and registry
// entry, and fire agent_end (decision 0004).
import type { AgentMessage } from '@switchboard/core-loop';
import type { AssistantMessage, HookRunner, Logger, Usage } from '@switchboard/hooks';
import type { ReplySummary } from '../../delivery/index.ts';
import type { ReplyStream } from '../../delivery/reply-stream.ts';
import { crashPoint } from '../crash-points.ts';
import type { RunEvents } from '../run-events.ts';
import type { RunRegistry } from '../runs.ts';
import type { TurnInput } from '../turn-input.ts';
import { isModelMessage } from './messages.ts';
import { carriedOutcome, type RunOutcome } from './outcome.ts';
import type { TurnScope } from './turn-context.ts';

export interface CompletionServices {
  readonly hooks: HookRunner;
  readonly logger: Logger;
  readonly runs: RunRegistry;
  readonly now: () => number;
  readonly isShuttingDown: () => boolean;
  /** Closes journal records (`replied`, or `failed` with the reason). */
  readonly finishInbound: (
    inputs: readonly TurnInput[],
    state: 'replied' | 'failed',
    error?: string,
  ) => Promise<void>;
  /** Stores a protocol run's outcome for replays of its idempotencyKey. */
  readonly persistOutcome: (runId: string, outcome: RunOutcome) => Promise<void>;
}

/** What the run itself produced. */
interface TurnResult {
  readonly status: 'ok' | 'error' | 'aborted';
  readonly errorText: string | undefined;
  readonly errorClass: string | undefined;
  readonly errorCode: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly usage: Usage;
  /** The visible reply texts. */
  readonly texts: readonly string[];
  readonly finalMessage: AssistantMessage | undefined;
  readonly persisted: boolean;
  /** Every message of the agent (for agent_end). */
  readonly messages: readonly AgentMessage[];
}

export interface CompletionRequest {
  readonly scope: TurnScope;
  readonly last: TurnInput;
  /** The inputs the turn answers: its batch and the messages steered into it. */
  readonly inputs: readonly TurnInput[];
  readonly sessionId: string;
  readonly startedAt: number;
  readonly reply: ReplyStream | undefined;
  readonly stopTyping: () => void;
  readonly events: RunEvents;
  readonly result: TurnResult;
}

export async function completeRun(services: CompletionServices, request: CompletionRequest): Promise<void> {
  const { hooks, logger, runs, now, isShuttingDown, finishInbound, persistOutcome } = services;
  const { scope, last, reply, stopTyping, events, startedAt } = request;
  const { sessionKey, runId } = scope;
  const allInputs = request.inputs;
  const { status, errorText, errorClass, errorCode, retryAfterMs, usage, finalMessage, persisted } =
    request.result;
  const texts = request.result.texts;
  // Deliver, then close the journal records.
  let summary: ReplySummary | undefined;
  try {
    if (reply !== undefined) {
      if (status === 'error' && errorText !== undefined) {
        reply.onMessageStart();
        reply.onMessageEnd(`⚠️ ${errorText}`);
      }
      summary = await reply.onRunEnd({ aborted: status === 'aborted' });
      crashPoint('before-journal-closed');
    }
  } catch (error) {
    logger.error('reply delivery failed', { sessionKey, runId, error: String(error) });
  } finally {
    stopTyping();
  }
  if (status === 'aborted' && isShuttingDown()) {
    // Cut short by a shutdown, not by a user: leave the journal records as they are so the
    // next start resumes them (decision 0004); the client retries with the same key.
    events.end({ status, message: finalMessage, text: '' });
    runs.finish(runId, { status: 'interrupted', runId });
    return;
  }

  const outcome: RunOutcome =
    status === 'ok'
      ? {
          status: 'ok',
          runId,
          replies: texts,
          durationMs: now() - startedAt,
          details: {
            sessionId: request.sessionId,
            provider: finalMessage?.provider,
            model: finalMessage?.model,
            usage,
          },
        }
      : status === 'aborted'
        ? { status: 'aborted', runId }
        : {
            status: 'error',
            runId,
            message: errorText,
            errorClass,
            errorCode,
            retryAfterMs,
          };
  // Protocol runs summarized into this turn end with it: their clients wait on their own ids.
  const carried = allInputs.filter(
    (input) => input.origin === 'rpc' && input.runId !== undefined && input.runId !== runId,
  );
  // Closing the journal and storing the finals in the same tick: one group commit.
  await Promise.all([
    status === 'ok'
      ? finishInbound(allInputs, 'replied')
      : finishInbound(allInputs, 'failed', status === 'aborted' ? 'aborted' : errorText),
    last.origin === 'rpc' ? persistOutcome(runId, outcome) : undefined,
    ...carried.map((input) => persistOutcome(input.runId!, carriedOutcome(outcome, input.runId!))),
  ]);
  for (const input of carried) runs.finish(input.runId!, carriedOutcome(outcome, input.runId!));
  events.end({
    status,
    message: finalMessage,
    text: texts.join('\n\n'),
    usage,
    stopReason: finalMessage === undefined ? undefined : finalMessage.stopReason,
    error: errorText,
    errorClass,
    retryAfterMs,
  });
  runs.finish(runId, outcome, {
    stopReason: finalMessage === undefined ? undefined : finalMessage.stopReason,
    error: errorText,
  });
  if (hooks.has('agent_end')) {
    void hooks.run('agent_end', {
      ...scope,
      messages: request.result.messages.filter(isModelMessage),
      success: status === 'ok',
      error: errorText,
      durationMs: now() - startedAt,
      usage,
    });
  }
  if (!persisted && status === 'ok') logger.debug('turn finished without persistence', { runId, summary });
}
