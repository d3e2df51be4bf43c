// Reading a turn's final the way a scheduled run needs it: the reply text, usage, or why it failed.
import type { RunUsage } from '@switchboard/scheduler';
import type { Inbound } from '../../runtime/inbound.ts';
import type { RpcAdmission } from '../../runtime/inbound-input.ts';
import type { RunFinal, RunRegistry } from '../../runtime/runs.ts';

export type TurnOutcome =
  | { readonly ok: true; readonly text: string; readonly usage: RunUsage | undefined }
  | { readonly ok: false; readonly error: string; readonly interrupted: boolean };

interface OkPayload {
  readonly status?: string;
  readonly summary?: string;
  readonly result?: {
    readonly payloads?: ReadonlyArray<{ readonly text?: string }>;
    readonly meta?: {
      readonly agentMeta?: { readonly usage?: { input?: number; output?: number; total?: number } };
    };
  };
}

/** The reply texts and usage of a final, or its error; `interrupted` when the gateway shut down mid-run. */
export function outcomeOf(final: RunFinal): TurnOutcome {
  const payload = final.payload as OkPayload | undefined;
  if (!final.ok) {
    const details = final.error?.details as { code?: string } | undefined;
    return {
      ok: false,
      error: final.error?.message ?? payload?.summary ?? 'the run failed',
      interrupted: details?.code === 'SHUTTING_DOWN',
    };
  }
  if (payload?.status === 'aborted') return { ok: false, error: 'the run was aborted', interrupted: false };
  const texts = (payload?.result?.payloads ?? [])
    .map((entry) => entry.text ?? '')
    .filter((text) => text.trim() !== '');
  const usage = payload?.result?.meta?.agentMeta?.usage;
  return {
    ok: true,
    text: texts.join('\n\n'),
    usage:
      usage === undefined
        ? undefined
        : {
            input: usage.input ?? 0,
            output: usage.output ?? 0,
            total: usage.total ?? (usage.input ?? 0) + (usage.output ?? 0),
          },
  };
}

/**
 * Waits for the final of a submitted turn. The submission is idempotent per run id, so asking
 * again (after each wait) also finds a final stored before a restart, or a turn the gateway's
 * recovery re-queued. Rejects when `signal` fires (the gateway is stopping).
 */
export async function awaitFinal(
  runs: RunRegistry,
  submit: () => ReturnType<Inbound['submitRpc']>,
  signal: AbortSignal,
): Promise<RunFinal> {
  let admission: RpcAdmission = await submit();
  while (true) {
    if (admission.status === 'finished') return admission.final;
    if (admission.status === 'directive') {
      return { ok: true, payload: { status: 'ok', result: { payloads: [{ text: admission.reply }] } } };
    }
    signal.throwIfAborted();
    const record = await new Promise<Awaited<ReturnType<RunRegistry['wait']>>>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      void runs.wait(admission.runId, 30_000).then((value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      });
    });
    if (record?.final !== undefined) return record.final;
    admission = await submit();
  }
}
