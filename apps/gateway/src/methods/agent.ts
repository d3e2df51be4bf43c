import { thinkingLevels } from '@switchboard/core-loop';
import { z } from 'zod';
import { GatewayError } from '../gateway-error.ts';
import { defineMethod, type GatewayMethod } from '../protocol/method-contract.ts';
import type { RunOutcome } from '../runtime/run/outcome.ts';
import { storedOutcome } from '../runtime/run/stored-outcome.ts';
import type { MethodServices } from './context.ts';
import { runFinalOf } from './run-final.ts';

const thinking = z.enum(thinkingLevels);

const attachment = z.looseObject({
  type: z.string().optional(),
  mimeType: z.string().optional(),
  fileName: z.string().optional(),
  content: z.string(),
});

const agentParams = z.looseObject({
  message: z.string(),
  idempotencyKey: z.string().min(1).max(256),
  agentId: z.string().optional(),
  sessionKey: z.string().max(512).optional(),
  thinking: thinking.optional(),
  deliver: z.boolean().optional(),
  timeout: z.number().positive().optional(),
  attachments: z.array(attachment).optional(),
});

export function imagesFrom(attachments: ReadonlyArray<z.infer<typeof attachment>> | undefined) {
  return (attachments ?? [])
    .filter((item) => (item.mimeType ?? '').startsWith('image/'))
    .map((item) => ({ type: 'image' as const, mediaType: item.mimeType ?? 'image/png', data: item.content }));
}

/** The wire payload of a run's final, or the RUN_FAILED error it ended with. */
function finalPayload(outcome: RunOutcome): Record<string, unknown> | undefined {
  const final = runFinalOf(outcome);
  if (!final.ok) throw runFailed(outcome.runId, final.error);
  return final.payload;
}

function runFailed(
  runId: string,
  error: { message: string; details?: Readonly<Record<string, unknown>> } | undefined,
): GatewayError {
  return new GatewayError('RUN_FAILED', error?.message ?? 'the run failed', {
    details: { ...(error?.details ?? {}), runId },
  });
}

function shuttingDown(services: MethodServices): void {
  if (services.isShuttingDown()) {
    throw new GatewayError(
      'SHUTTING_DOWN',
      'the gateway is shutting down; retry with the same idempotencyKey after it restarts',
      {
        retryable: true,
      },
    );
  }
}

/** `agent` (two responses on one id) and `agent.wait`, as in OpenClaw's protocol v4. */
export function agentMethods(services: MethodServices): GatewayMethod[] {
  return [
    defineMethod({
      name: 'agent',
      scope: 'operator.write',
      params: agentParams,
      async handle(params, context) {
        shuttingDown(services);
        if (params.message.trim() === '' && (params.attachments ?? []).length === 0) {
          throw new GatewayError('INVALID_PARAMS', 'invalid agent params: message must not be empty');
        }
        // The run's events reach this connection from its first one (runId = idempotencyKey).
        context.follow(undefined, params.idempotencyKey);
        const admission = await services.inbound.submitRpc({
          message: params.message,
          idempotencyKey: params.idempotencyKey,
          sessionKey: params.sessionKey,
          agentId: params.agentId,
          thinking: params.thinking,
          deliver: params.deliver,
          timeoutMs: params.timeout === undefined ? undefined : params.timeout * 1000,
          images: imagesFrom(params.attachments),
          channel: 'webchat',
        });
        if (admission.status !== 'finished') context.follow(admission.sessionKey);
        if (admission.status === 'finished') return finalPayload(admission.outcome);
        if (admission.status === 'directive') {
          return {
            runId: admission.runId,
            status: 'ok',
            summary: 'completed',
            result: { payloads: [{ text: admission.reply }], meta: { durationMs: 0 } },
          };
        }
        if (admission.status === 'in_flight') {
          // As OpenClaw: one response; the client waits with agent.wait and replays the key.
          return {
            runId: admission.runId,
            sessionKey: admission.sessionKey,
            agentId: admission.agentId,
            status: 'in_flight',
            acceptedAt: services.now(),
          };
        }
        context.respondInterim({
          runId: admission.runId,
          sessionKey: admission.sessionKey,
          agentId: admission.agentId,
          status: admission.status,
          acceptedAt: services.now(),
        });
        const record = await services.runs.wait(admission.runId, 2 ** 31 - 1);
        if (record?.outcome === undefined)
          throw new GatewayError('INTERNAL', 'the run ended without a result');
        return finalPayload(record.outcome);
      },
    }),
    defineMethod({
      name: 'agent.wait',
      scope: 'operator.write',
      params: z.looseObject({
        runId: z.string().min(1),
        timeoutMs: z.number().int().nonnegative().max(600_000).optional(),
      }),
      async handle(params) {
        const record = await services.runs.wait(params.runId, params.timeoutMs ?? 30_000);
        if (record === undefined) {
          const stored = await services.store.getState('run-results', params.runId);
          if (stored === undefined) return { runId: params.runId, status: 'timeout' };
          const outcome = storedOutcome(stored.value, params.runId);
          const final = outcome === undefined ? undefined : runFinalOf(outcome);
          return final?.ok === true
            ? { runId: params.runId, status: 'ok', endedAt: stored.updatedAt }
            : {
                runId: params.runId,
                status: 'error',
                endedAt: stored.updatedAt,
                error: final?.error?.message ?? 'the run left an unreadable result',
              };
        }
        if (record.status === 'ok')
          return {
            runId: record.runId,
            status: 'ok',
            endedAt: record.endedAt,
            stopReason: record.stopReason ?? 'stop',
          };
        if (record.status === 'aborted')
          return {
            runId: record.runId,
            status: 'error',
            endedAt: record.endedAt,
            error: 'aborted',
            stopReason: 'rpc',
          };
        return {
          runId: record.runId,
          status: 'error',
          endedAt: record.endedAt,
          error: record.error ?? 'the run failed',
        };
      },
    }),
  ];
}
