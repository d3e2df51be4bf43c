// The attempts of one turn: auth-profiles rotates keys, downgrades thinking and falls back to
// other models; a context overflow comes back here to be compacted (never a reason to fall
// back).
import {
  type AuthProfileManager,
  AuthProfilesError,
  outcomeFromAssistantMessage,
  type SessionAuthPin,
} from '@switchboard/auth-profiles';
import type { CompactionCallOptions, Compactor } from '@switchboard/compaction';
import type { Agent, AgentMessage, Model, ThinkingLevel } from '@switchboard/core-loop';
import type { Logger, UserMessage } from '@switchboard/hooks';
import type { ReplyStream } from '../../delivery/reply-stream.ts';
import type { ModelCatalog } from '../models.ts';
import type { RunEvents } from '../run-events.ts';
import type { AttemptTarget } from './attempt-target.ts';
import { dropFailedTail, lastAssistant } from './messages.ts';

export interface AttemptServices {
  readonly auth: AuthProfileManager;
  readonly catalog: ModelCatalog;
  readonly compactor: Compactor | undefined;
  readonly logger: Logger;
}

/** What the attempts and the rest of the turn share while it runs. */
export interface TurnState {
  /** The model and credential of the attempt running now (the stream function reads it). */
  current: AttemptTarget;
  /** Messages before this index are in the transcript. */
  unpersistedFrom: number;
  /** The turn's own messages start here. */
  turnStartsAt: number;
}

export interface AttemptRequest {
  readonly agent: Agent;
  readonly state: TurnState;
  readonly reply: ReplyStream | undefined;
  readonly userMessage: UserMessage;
  readonly sessionKey: string;
  readonly runId: string;
  readonly reference: string;
  readonly modelChoice: { readonly primary?: string; readonly fallbacks?: readonly string[] } | undefined;
  readonly thinking: ThinkingLevel;
  readonly sessionPin: SessionAuthPin | undefined;
  readonly compactionCount: number;
  readonly signal: AbortSignal;
  readonly maxWaitMs: number;
  readonly events: RunEvents;
  readonly compactionCall: (model: Model, credentials: AttemptTarget) => CompactionCallOptions;
  /** Stores the turn so far (the compactor works on the stored transcript). */
  readonly persistSoFar: (messages: readonly AgentMessage[]) => Promise<void>;
  readonly setCompacting: (compacting: boolean) => void;
}

export interface AttemptsResult {
  /** Why the turn failed, when every attempt did (an abort is not a failure). */
  readonly failure?: AuthProfilesError;
  /** The words of a failed overflow compaction. */
  readonly errorText?: string;
  /** The credential pin to keep for the session. */
  readonly sessionPin?: SessionAuthPin;
}

export async function runAttempts(
  services: AttemptServices,
  request: AttemptRequest,
): Promise<AttemptsResult> {
  const { agent, state, reply, modelChoice } = request;
  let turnFirstMessage = true;
  const sessionPin = request.sessionPin;
  for (let compactionRound = 0; ; compactionRound += 1) {
    try {
      const result = await services.auth.runWithFailover({
        model: request.reference,
        primary: modelChoice?.primary,
        fallbacks: modelChoice?.fallbacks ?? [],
        thinkingLevel: request.thinking,
        sessionPin,
        compactionCount: request.compactionCount,
        signal: request.signal,
        maxWaitMs: request.maxWaitMs,
        onWait: (wait) => {
          services.logger.info('waiting for a rate-limited model before trying again', {
            sessionKey: request.sessionKey,
            runId: request.runId,
            waitMs: wait.waitMs,
            reason: wait.reason,
            model: `${wait.provider}/${wait.model}`,
            // Keeps the spread (decision 0028, rule 1): log fields are merged over the logger's own.
            ...(wait.profileId === undefined ? {} : { profile: wait.profileId }),
            attempt: wait.attempt,
          });
          request.events.waiting(wait);
        },
        attempt: async (candidate) => {
          const target = services.catalog.resolve(`${candidate.provider}/${candidate.model}`);
          state.current = {
            target,
            ...(candidate.credential === undefined ? {} : candidate.credential),
            thinkingLevel: candidate.thinkingLevel,
            profileId: candidate.profileId,
          };
          agent.setModel(target.model);
          if (candidate.thinkingLevel !== undefined) agent.setThinkingLevel(candidate.thinkingLevel);
          if (turnFirstMessage) {
            turnFirstMessage = false;
            await agent.prompt(request.userMessage);
          } else {
            dropFailedTail(agent);
            reply?.resetForRetry();
            await agent.continue();
          }
          const answer = lastAssistant(agent.state.messages);
          if (answer === undefined) return { ok: false, error: new Error('the model produced no message') };
          return outcomeFromAssistantMessage(answer);
        },
      });
      return { sessionPin: result.sessionPin };
    } catch (error) {
      if (!(error instanceof AuthProfilesError)) throw error;
      if (
        error.code === 'AUTH_PROFILES_CONTEXT_OVERFLOW' &&
        services.compactor !== undefined &&
        error.modelError !== undefined
      ) {
        // The compactor works on the stored transcript: store the turn so far first.
        dropFailedTail(agent);
        await request.persistSoFar(agent.state.messages.slice(state.unpersistedFrom));
        request.setCompacting(true);
        try {
          const recovered = await services.compactor.recoverFromOverflow(request.sessionKey, {
            ...request.compactionCall(state.current.target.model, state.current),
            attempt: compactionRound + 1,
            error: error.modelError,
          });
          agent.replaceMessages(recovered.messages);
          state.unpersistedFrom = recovered.messages.length;
          state.turnStartsAt = Math.min(state.turnStartsAt, state.unpersistedFrom);
          continue;
        } catch (compactionError) {
          return {
            failure: error,
            errorText: compactionError instanceof Error ? compactionError.message : String(compactionError),
            sessionPin,
          };
        } finally {
          request.setCompacting(false);
        }
      }
      if (error.code === 'AUTH_PROFILES_ABORTED') return sessionPin === undefined ? {} : { sessionPin };
      return { failure: error, sessionPin };
    }
  }
}
