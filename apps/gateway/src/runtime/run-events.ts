import type { FailoverWait } from '@switchboard/auth-profiles';
import type { AgentEvent } from '@switchboard/core-loop';
import type { AssistantMessage } from '@switchboard/hooks';
import type { Broadcast, EventFilter } from '../access/event-audience.ts';

/** Maps a model error class onto the `errorKind` of `chat` error events (OpenClaw's vocabulary). */
function chatErrorKind(
  errorClass: string | undefined,
): 'timeout' | 'rate_limit' | 'context_length' | 'refusal' | 'unknown' {
  switch (errorClass) {
    case 'timeout':
      return 'timeout';
    case 'rate_limit':
    case 'overloaded':
      return 'rate_limit';
    case 'context_overflow':
      return 'context_length';
    default:
      return 'unknown';
  }
}

export interface RunEventsOptions {
  readonly broadcast: Broadcast;
  readonly runId: string;
  readonly sessionKey: string;
  readonly agentId: string;
  readonly now: () => number;
  /** Least time between two `chat` delta events of a run (the `agent` stream is not throttled). */
  readonly chatDeltaIntervalMs?: number;
}

export interface RunEvents {
  onAgentEvent(event: AgentEvent): void;
  start(): void;
  end(outcome: {
    readonly status: 'ok' | 'error' | 'aborted';
    readonly message: AssistantMessage | undefined;
    readonly text: string;
    readonly usage?: unknown;
    readonly stopReason?: string;
    readonly error?: string;
    readonly errorClass?: string;
    /** How long the provider asked us to wait before trying again, when it said. */
    readonly retryAfterMs?: number;
  }): void;
  /** Emits a `chat` delta with text that did not come from a model (directive replies). */
  text(text: string): void;
  /**
   * The run waits for a rate-limited or overloaded model before trying again: an `agent`
   * lifecycle event with phase `waiting`.
   */
  waiting(wait: FailoverWait): void;
}

/**
 * Turns one run's agent events into the protocol's `agent` events (lifecycle, assistant
 * text and delta, tool phases for clients with the `tool-events` capability) and `chat`
 * events (delta, final, aborted, error) for WebChat-style clients.
 */
export function createRunEvents(options: RunEventsOptions): RunEvents {
  const { broadcast, runId, sessionKey, agentId, now } = options;
  const chatInterval = options.chatDeltaIntervalMs ?? 100;
  let sequence = 0;
  let chatSequence = 0;
  let text = '';
  let lastChatAt = 0;
  let pendingChat: ReturnType<typeof setTimeout> | undefined;
  let pendingDelta = '';
  const startedAt = now();

  // Session-scoped connections receive these only while they follow the session or run; the
  // others get one `session.run` summary at the run's start and end (event-audience.ts).
  const session = { sessionKey, runId };
  const agentEvent = (stream: string, data: Record<string, unknown>, filter?: EventFilter) => {
    sequence += 1;
    broadcast(
      'agent',
      { runId, sessionKey, agentId, stream, seq: sequence, ts: now(), data },
      { ...filter, session },
    );
  };
  const chatEvent = (state: string, data: Record<string, unknown>) => {
    chatSequence += 1;
    broadcast('chat', { runId, sessionKey, agentId, seq: chatSequence, state, ...data }, { session });
  };
  const summary = (state: 'started' | 'ended', status?: string) =>
    broadcast(
      'session.run',
      { runId, sessionKey, agentId, state, status, ts: now() },
      { session, toUnfollowers: true },
    );
  const snapshot = (value: string) => ({
    role: 'assistant',
    content: [{ type: 'text', text: value }],
    timestamp: now(),
  });
  const flushChat = () => {
    if (pendingChat !== undefined) {
      clearTimeout(pendingChat);
      pendingChat = undefined;
    }
    if (pendingDelta.length === 0) return;
    lastChatAt = now();
    chatEvent('delta', { deltaText: pendingDelta, message: snapshot(text) });
    pendingDelta = '';
  };
  const appendText = (delta: string) => {
    text += delta;
    agentEvent('assistant', { text, delta });
    pendingDelta += delta;
    const elapsed = now() - lastChatAt;
    if (elapsed >= chatInterval) flushChat();
    else if (pendingChat === undefined) pendingChat = setTimeout(flushChat, chatInterval - elapsed);
  };

  return {
    start() {
      agentEvent('lifecycle', { phase: 'start', startedAt });
      summary('started');
    },
    text(value) {
      appendText(value);
    },
    waiting(wait) {
      agentEvent('lifecycle', {
        phase: 'waiting',
        waitMs: wait.waitMs,
        reason: wait.reason,
        provider: wait.provider,
        model: wait.model,
        profileId: wait.profileId,
        attempt: wait.attempt,
        until: now() + wait.waitMs,
      });
    },
    onAgentEvent(event) {
      switch (event.type) {
        case 'message_start':
          if (event.message.role === 'assistant') {
            if (text.length > 0) appendText('\n\n');
            agentEvent('lifecycle', {
              phase: 'model',
              provider: event.message.provider,
              model: event.message.model,
            });
          }
          return;
        case 'message_update':
          if (event.assistantEvent.type === 'text_delta') appendText(event.assistantEvent.delta);
          return;
        case 'tool_execution_start':
          agentEvent(
            'tool',
            { phase: 'start', name: event.toolName, toolCallId: event.toolCallId, args: event.args },
            { capability: 'tool-events' },
          );
          return;
        case 'tool_execution_update':
          agentEvent(
            'tool',
            {
              phase: 'update',
              name: event.toolName,
              toolCallId: event.toolCallId,
              partialResult: event.partialResult,
            },
            { capability: 'tool-events' },
          );
          return;
        case 'tool_execution_end':
          agentEvent(
            'tool',
            {
              phase: 'result',
              name: event.toolName,
              toolCallId: event.toolCallId,
              isError: event.isError,
              result: event.result,
            },
            { capability: 'tool-events' },
          );
          return;
        default:
          return;
      }
    },
    end(outcome) {
      flushChat();
      summary('ended', outcome.status);
      const endedAt = now();
      if (outcome.status === 'ok') {
        agentEvent('lifecycle', {
          phase: 'end',
          startedAt,
          endedAt,
          aborted: false,
          stopReason: outcome.stopReason ?? 'stop',
        });
        chatEvent('final', {
          message: snapshot(outcome.text),
          usage: outcome.usage,
          stopReason: outcome.stopReason ?? 'stop',
        });
      } else if (outcome.status === 'aborted') {
        agentEvent('lifecycle', {
          phase: 'end',
          startedAt,
          endedAt,
          aborted: true,
          status: 'cancelled',
          stopReason: 'rpc',
        });
        chatEvent('aborted', { stopReason: 'rpc' });
      } else {
        agentEvent('lifecycle', {
          phase: 'error',
          error: outcome.error,
          aborted: false,
          stopReason: outcome.stopReason ?? 'error',
        });
        chatEvent('error', {
          errorMessage: outcome.error ?? 'the run failed',
          errorKind: chatErrorKind(outcome.errorClass),
          ...(outcome.errorClass === undefined && outcome.retryAfterMs === undefined
            ? {}
            : {
                errorDetail: {
                  errorClass: outcome.errorClass,
                  retryAfterMs: outcome.retryAfterMs,
                },
              }),
        });
      }
    },
  };
}
