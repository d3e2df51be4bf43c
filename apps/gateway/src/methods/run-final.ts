// The wire payload of a run (the final `res` of `agent`, also what a retried idempotencyKey
// replays), built from the runtime's domain outcome. The runtime never sees this shape.
import type { ProtocolErrorShape } from '../protocol/errors.ts';
import type { RunOutcome } from '../runtime/run/outcome.ts';

/** The final `res` of a run, as sent to (and replayed for) the client that started it. */
export interface RunFinal {
  readonly ok: boolean;
  readonly payload?: Record<string, unknown>;
  readonly error?: ProtocolErrorShape;
}

function okPayload(outcome: Extract<RunOutcome, { status: 'ok' }>): Record<string, unknown> {
  const details = outcome.details;
  return {
    runId: outcome.runId,
    status: 'ok',
    summary: 'completed',
    result: {
      payloads: outcome.replies.map((text) => ({ text })),
      meta: {
        durationMs: outcome.durationMs,
        agentMeta:
          details === undefined
            ? undefined
            : {
                sessionId: details.sessionId,
                provider: details.provider,
                model: details.model,
                usage: {
                  input: details.usage.input,
                  output: details.usage.output,
                  cacheRead: details.usage.cacheRead,
                  cacheWrite: details.usage.cacheWrite,
                  total: details.usage.totalTokens,
                  cost: details.usage.cost.total,
                },
              },
      },
    },
  };
}

/** The protocol's final of a run outcome. */
export function runFinalOf(outcome: RunOutcome): RunFinal {
  switch (outcome.status) {
    case 'ok':
      return { ok: true, payload: okPayload(outcome) };
    case 'compacted':
      return {
        ok: true,
        payload: {
          runId: outcome.runId,
          status: 'ok',
          summary: 'compacted',
          result: { payloads: [{ text: outcome.text }] },
          compaction: outcome.compaction,
        },
      };
    case 'aborted':
      return {
        ok: true,
        payload: { runId: outcome.runId, status: 'aborted', summary: outcome.reason ?? 'aborted' },
      };
    case 'interrupted':
      return {
        ok: false,
        error: {
          code: 'UNAVAILABLE',
          message: 'the gateway shut down during the run; retry with the same idempotencyKey',
          details: { code: 'SHUTTING_DOWN', runId: outcome.runId },
          retryable: true,
        },
      };
    case 'error':
      return {
        ok: false,
        payload: { runId: outcome.runId, status: 'error', summary: outcome.message ?? 'the run failed' },
        error: {
          code: 'UNAVAILABLE',
          message: outcome.message ?? 'the run failed',
          details: {
            code: 'RUN_FAILED',
            runId: outcome.runId,
            errorClass: outcome.errorClass,
            errorCode: outcome.errorCode,
            retryAfterMs: outcome.retryAfterMs,
          },
        },
      };
  }
}
