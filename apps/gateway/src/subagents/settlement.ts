// Watching a child run end: its outcome is read from the stored results (it may have ended
// before a restart) or awaited from the run registry; the record gets the outcome, the end is
// logged, broadcast and sent to `subagent_ended`, and the result is announced. One settlement
// per run at a time; a run cut short by a shutdown is left for the next start.
import type { HookRunner, SubagentOutcome } from '@switchboard/hooks';
import type { RunOutcome } from '../runtime/run/outcome.ts';
import { storedOutcome } from '../runtime/run/stored-outcome.ts';
import type { Announcer } from './announcer.ts';
import type { ManagerParts } from './manager-state.ts';
import type { SubagentRunRecord } from './run-record.ts';

/** What settlement needs from the manager. */
export interface SettlementOptions extends ManagerParts {
  /** `subagent_ended` goes out through it. */
  readonly hooks: HookRunner;
  readonly announcer: () => Announcer;
}

/** The settlements of one manager. */
export interface Settlement {
  /** Settles a run (records its end, announces its result); joins a settlement already running. */
  settle(runId: string): Promise<void>;
  /** Resolves when every settlement in flight has finished its writes. */
  drain(): Promise<void>;
}

export function createSettlement(options: SettlementOptions): Settlement {
  const { state, records, store, logger, hooks, now } = options;
  /** One settlement per run at a time. */
  const settling = new Map<string, Promise<void>>();

  /**
   * The child's outcome: persisted (it may have ended before a restart) or awaited. A run cut
   * short by a shutdown has not ended: it resumes from the journal at the next start.
   */
  async function finalOf(runId: string): Promise<RunOutcome | undefined> {
    while (!state.stopped && state.runtime !== undefined) {
      const stored = await store.getState('run-results', runId);
      const persisted = stored === undefined ? undefined : storedOutcome(stored.value, runId);
      if (persisted !== undefined) return persisted;
      const ended = await Promise.race([state.runtime.runs.wait(runId, 30_000), state.stopping]);
      if (state.stopped) return undefined;
      const outcome = ended?.outcome;
      if (outcome !== undefined && outcome.status !== 'interrupted') return outcome;
      // An interrupted run stays in the registry until it resumes: do not spin on it.
      if (outcome !== undefined)
        await Promise.race([new Promise((resolve) => setTimeout(resolve, 1000).unref()), state.stopping]);
    }
    return undefined;
  }

  function settle(runId: string): Promise<void> {
    let running = settling.get(runId);
    if (running === undefined) {
      running = settleOnce(runId)
        .catch((error: unknown) => {
          if (!state.stopped) logger.error('subagent settlement failed', { runId, error: String(error) });
        })
        .finally(() => settling.delete(runId));
      settling.set(runId, running);
    }
    return running;
  }

  async function settleOnce(runId: string): Promise<void> {
    let record = await records.get(runId);
    if (record === undefined) return;
    if (record.outcome === undefined) {
      const final = await finalOf(runId);
      if (final === undefined || state.stopped) return; // stopping: the next start resumes it
      const ended = outcomeOf(final);
      record = await records.update(runId, (current) => ({ ...current, endedAt: now(), ...ended }));
      if (record === undefined) return;
      logger.info('subagent ended', {
        runId,
        outcome: record.outcome,
        requester: record.requesterSessionKey,
      });
      state.runtime?.broadcast('subagent', { kind: 'ended', runId, outcome: record.outcome });
      if (hooks.has('subagent_ended') && record.outcome !== undefined)
        void hooks.run('subagent_ended', {
          runId,
          childSessionKey: record.childSessionKey,
          agentId: record.agentId,
          requesterSessionKey: record.requesterSessionKey,
          outcome: record.outcome,
          error: record.errorText,
          startedAt: record.startedAt,
          endedAt: record.endedAt ?? now(),
        });
    }
    if (record.announce.state === 'pending' || record.announce.state === 'failed')
      await options.announcer().announce(record);
  }

  return {
    settle,
    drain: async () => {
      await Promise.all([...settling.values()]);
    },
  };
}

/** A run's domain outcome as the subagent record keeps it. */
function outcomeOf(outcome: RunOutcome): {
  outcome: SubagentOutcome;
  resultText: string;
  errorText?: string;
  stats?: SubagentRunRecord['stats'];
} {
  switch (outcome.status) {
    case 'ok': {
      const usage = outcome.details?.usage;
      return {
        outcome: 'ok',
        resultText: outcome.replies.join('\n\n'),
        stats: {
          durationMs: outcome.durationMs,
          inputTokens: usage?.input ?? 0,
          outputTokens: usage?.output ?? 0,
          cost: usage?.cost.total ?? 0,
        },
      };
    }
    case 'compacted':
      return { outcome: 'ok', resultText: outcome.text };
    case 'aborted':
    case 'interrupted':
      return { outcome: 'killed', resultText: '' };
    case 'error':
      return {
        outcome: outcome.errorCode === 'RUN_TIMEOUT' ? 'timeout' : 'error',
        resultText: '',
        errorText: outcome.message ?? 'the run failed',
      };
  }
}
