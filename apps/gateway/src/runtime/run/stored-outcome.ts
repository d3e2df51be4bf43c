// Reading a stored run result (state `run-results`). Since decision 0027 the gateway stores
// the run's domain outcome; a result stored by an earlier version holds the protocol's final
// (`{ ok, payload, error }`) and is read back into an outcome, so a replay or a subagent's
// announcement across an upgrade sees what the run did. Results expire after 24 hours.
import type { Usage } from '@switchboard/hooks';
import type { RunOutcome } from './outcome.ts';

interface EarlierFinal {
  readonly ok: boolean;
  readonly payload?: {
    readonly status?: string;
    readonly summary?: string;
    readonly compaction?: Readonly<Record<string, unknown>>;
    readonly result?: {
      readonly payloads?: ReadonlyArray<{ readonly text?: string }>;
      readonly meta?: {
        readonly durationMs?: number;
        readonly agentMeta?: {
          readonly sessionId?: string;
          readonly provider?: string;
          readonly model?: string;
          readonly usage?: Readonly<Record<string, number>>;
        };
      };
    };
  };
  readonly error?: { readonly message?: string; readonly details?: Readonly<Record<string, unknown>> };
}

const outcomeStatuses = new Set(['ok', 'compacted', 'aborted', 'interrupted', 'error']);

/** The outcome a stored run result records, or undefined when `value` is neither shape. */
export function storedOutcome(value: unknown, runId: string): RunOutcome | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.ok !== 'boolean')
    return typeof record.status === 'string' && outcomeStatuses.has(record.status)
      ? (value as RunOutcome)
      : undefined;
  return fromEarlierFinal(value as EarlierFinal, runId);
}

function fromEarlierFinal(final: EarlierFinal, runId: string): RunOutcome {
  const payload = final.payload ?? {};
  if (!final.ok) {
    const details = final.error?.details ?? {};
    if (details.code === 'SHUTTING_DOWN') return { status: 'interrupted', runId };
    const text = (key: string) => (typeof details[key] === 'string' ? (details[key] as string) : undefined);
    const errorClass = text('errorClass');
    const errorCode = text('errorCode');
    const retryAfterMs = typeof details.retryAfterMs === 'number' ? details.retryAfterMs : undefined;
    return {
      status: 'error',
      runId,
      message: final.error?.message ?? payload.summary,
      errorClass,
      errorCode,
      retryAfterMs,
    };
  }
  const texts = (payload.result?.payloads ?? []).map((entry) => entry.text ?? '');
  if (payload.status === 'aborted')
    return payload.summary === undefined || payload.summary === 'aborted'
      ? { status: 'aborted', runId }
      : { status: 'aborted', runId, reason: payload.summary };
  if (payload.summary === 'compacted')
    return { status: 'compacted', runId, text: texts.join('\n\n'), compaction: payload.compaction ?? {} };
  const meta = payload.result?.meta;
  const agent = meta?.agentMeta;
  return {
    status: 'ok',
    runId,
    replies: texts,
    durationMs: meta?.durationMs ?? 0,
    details:
      agent?.sessionId === undefined
        ? undefined
        : {
            sessionId: agent.sessionId,
            provider: agent.provider,
            model: agent.model,
            usage: usageOf(agent.usage ?? {}),
          },
  };
}

function usageOf(usage: Readonly<Record<string, number>>): Usage {
  const cost = usage.cost ?? 0;
  return {
    input: usage.input ?? 0,
    output: usage.output ?? 0,
    cacheRead: usage.cacheRead ?? 0,
    cacheWrite: usage.cacheWrite ?? 0,
    totalTokens: usage.total ?? (usage.input ?? 0) + (usage.output ?? 0),
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
  };
}
