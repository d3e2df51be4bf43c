// Pieces of the protocol methods' services that the gateway composes from its parts.
import type { PluginLoadReport } from '@switchboard/hooks';
import type { MethodServices } from '../methods/context.ts';
import type { Inbound } from '../runtime/inbound.ts';
import type { RunRegistry } from '../runtime/runs.ts';

/** What `status` shows of the plugins: names loaded, and each failure in words. */
export function pluginLoadSummary(report: PluginLoadReport): ReturnType<MethodServices['pluginLoadReport']> {
  return {
    loaded: report.loaded.map((plugin) => plugin.name),
    failed: report.failed.map((failure) => ({
      plugin: failure.plugin,
      source: failure.source,
      error:
        failure.optional === true
          ? `optional, the gateway runs without it: ${failure.error.message}`
          : failure.error.message,
    })),
  };
}

/** `sessions.compact`: a `/compact` run in the session's lane; resolves with what it did. */
export function createCompactSession(inbound: Inbound, runs: RunRegistry): MethodServices['compactSession'] {
  return async (sessionKey, agentId) => {
    const admission = await inbound.submitRpc({
      message: '/compact',
      idempotencyKey: `compact:${crypto.randomUUID()}`,
      sessionKey,
      agentId,
      channel: 'webchat',
    });
    if (admission.status === 'directive') return { result: admission.reply };
    const outcome =
      admission.status === 'finished'
        ? admission.outcome
        : (await runs.wait(admission.runId, 15 * 60_000))?.outcome;
    return outcome?.status === 'compacted' ? outcome.compaction : { compacted: false };
  };
}
