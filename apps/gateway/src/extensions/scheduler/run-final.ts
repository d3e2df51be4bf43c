// Reading a turn's outcome the way a scheduled run needs it: the reply text, usage, or why it failed.
import type { RunUsage } from '@switchboard/scheduler';
import type { Inbound } from '../../runtime/inbound.ts';
import type { RpcAdmission } from '../../runtime/inbound-input.ts';
import type { RunOutcome } from '../../runtime/run/outcome.ts';
import type { RunRegistry } from '../../runtime/runs.ts';

export type TurnOutcome =
  | { readonly ok: true; readonly text: string; readonly usage: RunUsage | undefined }
  | { readonly ok: false; readonly error: string; readonly interrupted: boolean };

/** The reply texts and usage of a run's outcome, or its error; `interrupted` when the gateway shut down mid-run. */
export function outcomeOf(outcome: RunOutcome): TurnOutcome {
  switch (outcome.status) {
    case 'ok': {
      const usage = outcome.details?.usage;
      return {
        ok: true,
        text: outcome.replies.filter((text) => text.trim() !== '').join('\n\n'),
        usage:
          usage === undefined
            ? undefined
            : { input: usage.input, output: usage.output, total: usage.totalTokens },
      };
    }
    case 'compacted':
      return { ok: true, text: outcome.text, usage: undefined };
    case 'aborted':
      return { ok: false, error: 'the run was aborted', interrupted: false };
    case 'interrupted':
      return { ok: false, error: 'the gateway shut down during the run', interrupted: true };
    case 'error':
      return { ok: false, error: outcome.message ?? 'the run failed', interrupted: false };
  }
}

/**
 * Waits for the outcome of a submitted turn. The submission is idempotent per run id, so asking
 * again (after each wait) also finds a final stored before a restart, or a turn the gateway's
 * recovery re-queued. Rejects when `signal` fires (the gateway is stopping).
 */
export async function awaitFinal(
  runs: RunRegistry,
  submit: () => ReturnType<Inbound['submitRpc']>,
  signal: AbortSignal,
): Promise<RunOutcome> {
  let admission: RpcAdmission = await submit();
  while (true) {
    if (admission.status === 'finished') return admission.outcome;
    if (admission.status === 'directive')
      return { status: 'ok', runId: admission.runId, replies: [admission.reply], durationMs: 0 };
    signal.throwIfAborted();
    const record = await new Promise<Awaited<ReturnType<RunRegistry['wait']>>>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      void runs.wait(admission.runId, 30_000).then((value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      });
    });
    if (record?.outcome !== undefined) return record.outcome;
    admission = await submit();
  }
}
