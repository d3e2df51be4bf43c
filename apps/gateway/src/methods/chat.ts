import { thinkingLevels } from '@switchboard/core-loop';
import type { Message } from '@switchboard/hooks';
import { z } from 'zod';
import { GatewayError } from '../gateway-error.ts';
import { defineMethod, type GatewayMethod } from '../protocol/method-contract.ts';
import { visibleText } from '../runtime/run/messages.ts';
import { imagesFrom } from './agent.ts';
import type { MethodServices } from './context.ts';

const attachment = z.looseObject({
  type: z.string().optional(),
  mimeType: z.string().optional(),
  fileName: z.string().optional(),
  content: z.string(),
});

/** A transcript message as `chat.history` returns it (OpenClaw's shape plus `__openclaw` ids). */
function historyMessage(message: Message, sequence: number, sessionId: string): Record<string, unknown> {
  const base = {
    __openclaw: { id: `${sessionId}:${sequence}`, seq: sequence },
    timestamp: message.timestamp,
  };
  if (message.role === 'assistant') {
    return {
      role: 'assistant',
      content: message.content.map((block) =>
        block.type === 'text' ? { type: 'text', text: visibleText(block.text) } : block,
      ),
      usage: message.usage,
      stopReason: message.stopReason,
      errorMessage: message.errorMessage,
      errorClass: message.errorClass,
      errorDetails:
        message.errorDetails?.retryAfterMs === undefined
          ? undefined
          : { retryAfterMs: message.errorDetails.retryAfterMs },
      ...base,
    };
  }
  return { ...message, ...base };
}

/** WebChat-style methods: `chat.send`, `chat.history`, `chat.abort`. */
export function chatMethods(services: MethodServices): GatewayMethod[] {
  return [
    defineMethod({
      name: 'chat.send',
      scope: 'operator.write',
      params: z.looseObject({
        sessionKey: z.string().min(1).max(512),
        message: z.string(),
        idempotencyKey: z.string().min(1).max(256),
        agentId: z.string().optional(),
        thinking: z.enum(thinkingLevels).optional(),
        queueMode: z.enum(['steer', 'followup', 'collect', 'interrupt']).optional(),
        timeoutMs: z.number().int().positive().optional(),
        attachments: z.array(attachment).optional(),
      }),
      async handle(params, context) {
        if (services.isShuttingDown())
          throw new GatewayError('SHUTTING_DOWN', 'the gateway is shutting down', { retryable: true });
        if (params.message.trim() === '' && (params.attachments ?? []).length === 0) {
          throw new GatewayError('INVALID_PARAMS', 'invalid chat.send params: message must not be empty');
        }
        // The run's events reach this connection from its first one (runId = idempotencyKey).
        context.follow(undefined, params.idempotencyKey);
        const admission = await services.inbound.submitRpc({
          message: params.message,
          idempotencyKey: params.idempotencyKey,
          sessionKey: params.sessionKey,
          agentId: params.agentId,
          thinking: params.thinking,
          timeoutMs: params.timeoutMs,
          queueMode: params.queueMode,
          images: imagesFrom(params.attachments),
          channel: 'webchat',
        });
        if (admission.status !== 'finished') context.follow(admission.sessionKey);
        if (admission.status === 'directive')
          return { runId: admission.runId, status: 'ok', reply: admission.reply };
        if (admission.status === 'finished') return { runId: admission.runId, status: 'finished' };
        return { runId: admission.runId, status: admission.status === 'in_flight' ? 'in_flight' : 'started' };
      },
    }),
    defineMethod({
      name: 'chat.history',
      scope: 'operator.read',
      params: z.looseObject({
        sessionKey: z.string().min(1).max(512),
        agentId: z.string().optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      }),
      async handle(params, context) {
        const { sessionKey } = services.inbound.resolveSession(params.sessionKey, params.agentId);
        // Reading a session's history is how a client opens it: it follows its runs from here.
        context.follow(sessionKey);
        const session = await services.store.getSession(sessionKey);
        if (session === undefined)
          return { sessionKey, sessionId: null, messages: [], hasMore: false, totalMessages: 0 };
        const limit = params.limit ?? 200;
        const entries = await services.store.readTranscript(session.sessionId, { types: ['message'] });
        const messages = entries.flatMap((entry) =>
          entry.type === 'message' ? [historyMessage(entry.message, entry.sequence, session.sessionId)] : [],
        );
        return {
          sessionKey,
          sessionId: session.sessionId,
          messages: messages.slice(-limit),
          hasMore: messages.length > limit,
          totalMessages: messages.length,
        };
      },
    }),
    defineMethod({
      name: 'chat.abort',
      scope: 'operator.write',
      params: z.looseObject({
        sessionKey: z.string().min(1),
        agentId: z.string().optional(),
        runId: z.string().optional(),
      }),
      async handle(params) {
        const { sessionKey } = services.inbound.resolveSession(params.sessionKey, params.agentId);
        const active = services.runs
          .activeForSession(sessionKey)
          .filter((run) => params.runId === undefined || run.runId === params.runId);
        if (active.length === 0) {
          // Several replicas: the run may execute on the replica holding the session.
          if (services.abortOnReplica === undefined) return { ok: true, aborted: false, runIds: [] };
          const remote = await services.abortOnReplica(sessionKey, params.runId);
          return { ok: true, aborted: remote.aborted, runIds: [...remote.runIds] };
        }
        const result = services.dispatcher.abort(sessionKey, { clearQueue: false });
        return { ok: true, aborted: result.aborted, runIds: active.map((run) => run.runId) };
      },
    }),
  ];
}
