// `/subagents list | kill <id|all> | log <id>` for authorized senders (a plugin command: the
// gateway runs it only for senders allowed to use directives, like `/status`). It acts on the
// children of the sender's own session.
import type { PluginCommand } from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import type { SubagentManager } from './manager.ts';
import { findRun, logText, readRunLog, runLine } from './run-log.ts';

const usage = 'Use /subagents list | kill <#n|id|all> | log <#n|id>';

export function subagentsDirective(options: {
  readonly manager: SubagentManager;
  readonly store: SessionStore;
  readonly now: () => number;
}): PluginCommand {
  const { manager, store, now } = options;
  return {
    name: 'subagents',
    description: 'the subagents of this conversation: list, kill <#n|id|all>, log <#n|id>',
    async handler({ args, sessionKey }) {
      const [action = 'list', reference] = args.split(/\s+/).filter((word) => word !== '');
      const records = await manager.list(sessionKey);
      switch (action) {
        case 'list':
          if (records.length === 0) return { text: 'No subagents in this conversation.' };
          return { text: records.map((record, index) => runLine(record, index + 1, now())).join('\n') };
        case 'kill': {
          if (reference === undefined) return { text: usage };
          const targets =
            reference === 'all'
              ? records.filter((record) => record.outcome === undefined)
              : [findRun(records, reference)];
          const failed = targets.find((target) => 'error' in target);
          if (failed !== undefined && 'error' in failed) return { text: failed.error };
          const stopped: string[] = [];
          for (const target of targets)
            if (!('error' in target)) stopped.push(...(await manager.kill(target.runId)));
          return {
            text:
              stopped.length === 0
                ? 'Nothing to stop: no running subagent matches.'
                : `Stopped ${stopped.length} run${stopped.length === 1 ? '' : 's'}: ${stopped.map((runId) => runId.slice(0, 8)).join(', ')}.`,
          };
        }
        case 'log': {
          if (reference === undefined) return { text: usage };
          const found = findRun(records, reference);
          if ('error' in found) return { text: found.error };
          return { text: logText(await readRunLog(store, found, { limit: 20 }), found) };
        }
        default:
          return { text: usage };
      }
    },
  };
}
