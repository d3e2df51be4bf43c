// What a turn came to, read from the agent once its attempts are over: the visible replies,
// the usage, and whether it ended answered, stopped (by the user or the run timeout) or
// failed — with the error in plain words, its class, code and retry-after — plus the messages
// to persist (a stopped turn gets a note saying so, so the model does not answer the stopped
// question unasked next time).
import type { AuthProfilesError } from '@switchboard/auth-profiles';
import type { AgentMessage, RunUsage } from '@switchboard/core-loop';
import type { AssistantMessage, Usage } from '@switchboard/hooks';
import type { GatewayConfig } from '../../config/schema.ts';
import { missingCredentialsText } from '../model-credentials.ts';
import { assistantText, errorOf, lastAssistant, stoppedTurnNote, visibleText } from './messages.ts';

export interface TurnFacts {
  /** Every message of the agent: the context it started from, then the turn's. */
  readonly messages: readonly AgentMessage[];
  /** Where this turn's messages start. */
  readonly turnStartsAt: number;
  /** Where the messages not yet in the transcript start (earlier ones were persisted mid-turn). */
  readonly unpersistedFrom: number;
  readonly usage: RunUsage;
  /** The model of the last attempt (for the stopped-turn note). */
  readonly model: { readonly provider: string; readonly id: string };
  /** Set when the run was aborted: by a user (`/stop`, `chat.abort`) or by the run timeout. */
  readonly stopped: 'user' | 'timeout' | undefined;
  readonly runTimeoutMs: number;
  /** The credential manager's failure, when every attempt failed. */
  readonly failure: AuthProfilesError | undefined;
  /** An error the attempts already put in words. */
  readonly errorText: string | undefined;
  /** A turn cut short by a shutdown runs again after the restart: no stopped note. */
  readonly shuttingDown: boolean;
  readonly config: GatewayConfig;
  readonly now: number;
}

export interface TurnJudgement {
  readonly status: 'ok' | 'error' | 'aborted';
  readonly errorText: string | undefined;
  readonly errorClass: string | undefined;
  /** The model error's code (`MODEL_CREDENTIALS_MISSING`, `RUN_TIMEOUT`, …). */
  readonly errorCode: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly usage: Usage;
  /** The visible reply texts. */
  readonly texts: string[];
  readonly finalMessage: AssistantMessage | undefined;
  /** What to append to the transcript. */
  readonly newMessages: readonly AgentMessage[];
}

export function judgeTurn(facts: TurnFacts): TurnJudgement {
  const turnMessages = facts.messages.slice(facts.turnStartsAt);
  let newMessages = facts.messages.slice(facts.unpersistedFrom);
  const finalMessage = lastAssistant(turnMessages);
  const texts = turnMessages
    .filter(
      (message): message is AssistantMessage =>
        message.role === 'assistant' && message.stopReason !== 'error' && message.stopReason !== 'aborted',
    )
    .map((message) => visibleText(assistantText(message)))
    .filter((text) => text.length > 0);
  const { input, output, cacheRead, cacheWrite, totalTokens, cost } = facts.usage;
  const usage: Usage = { input, output, cacheRead, cacheWrite, totalTokens, cost };
  let status: TurnJudgement['status'] = 'ok';
  let errorText = facts.errorText;
  let errorClass: string | undefined;
  let errorCode: string | undefined;
  let retryAfterMs: number | undefined;
  const { failure } = facts;
  if (facts.stopped !== undefined) {
    const timedOut = facts.stopped === 'timeout';
    status = timedOut ? 'error' : 'aborted';
    if (!facts.shuttingDown)
      newMessages = [...newMessages, stoppedTurnNote(facts.stopped, facts.model, facts.now)];
    if (timedOut) {
      errorText = `The reply took longer than ${Math.round(facts.runTimeoutMs / 1000)} s and was stopped.`;
      errorCode = 'RUN_TIMEOUT';
    }
  } else if (failure !== undefined || finalMessage?.stopReason === 'error') {
    status = 'error';
    const modelError =
      failure?.modelError ?? (finalMessage === undefined ? undefined : errorOf(finalMessage));
    errorClass = modelError?.errorClass;
    errorCode = modelError?.code;
    retryAfterMs = failure?.retryAfterMs ?? modelError?.retryAfterMs;
    // No key at all: plain words on what to set, not the list of models that failed.
    if (
      modelError?.errorClass === 'no_credentials' &&
      modelError.provider !== undefined &&
      (failure?.attempts ?? []).every((tried) => tried.ok || tried.errorClass === 'no_credentials')
    )
      errorText ??= missingCredentialsText(modelError.provider, facts.config);
    errorText ??= failure?.message ?? modelError?.message ?? 'the model call failed';
  }
  return { status, errorText, errorClass, errorCode, retryAfterMs, usage, texts, finalMessage, newMessages };
}
