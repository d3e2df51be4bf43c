// `switchboard subagents list | kill ID|all | log ID`: the running gateway's subagent runs over
// the `subagents.list`, `subagents.kill` and `subagents.log` methods (decision 0017). An ID is
// `#n` (its place in the list), a run id, or a unique prefix of one.

import { findRun, logText, type RunLog, runLine } from '../subagents/run-log.ts';
import type { SubagentRunRecord } from '../subagents/run-record.ts';
import type { CliGatewayClient } from './gateway-client.ts';
import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
}

type Values = Record<string, string | boolean | undefined>;

const usage = `usage: switchboard subagents list [--session-key KEY] | kill ID|all | log ID [--limit N] [--before SEQ]
  ID: #n from the list, a run id, or its first characters
`;

function positiveInteger(value: string | boolean | undefined, name: string): number | undefined | Error {
  if (value === undefined) return undefined;
  const number = Number(value);
  return Number.isInteger(number) && number > 0 ? number : new Error(`--${name} must be a positive integer`);
}

async function listRuns(client: CliGatewayClient, sessionKey?: string): Promise<SubagentRunRecord[]> {
  const result = await client.request(
    'subagents.list',
    sessionKey === undefined ? {} : { requesterSessionKey: sessionKey },
    {
      timeoutMs: readTimeoutMs,
    },
  );
  return result.runs as SubagentRunRecord[];
}

/** `subagents …`. Returns an exit code. */
export async function subagentsCommand(
  words: readonly string[],
  values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const action = words[1] ?? 'list';
  const reference = words[2];
  const limit = positiveInteger(values.limit, 'limit');
  const before = positiveInteger(values.before, 'before');
  const badNumber = [limit, before].find((value) => value instanceof Error);
  if (
    !['list', 'kill', 'log'].includes(action) ||
    (action !== 'list' && reference === undefined) ||
    badNumber !== undefined
  ) {
    io.error(`${badNumber instanceof Error ? `${badNumber.message}\n` : ''}${usage}`);
    return exitCodes.usage;
  }
  return helpers.withClient(async (client) => {
    switch (action) {
      case 'list': {
        const sessionKey = typeof values['session-key'] === 'string' ? values['session-key'] : undefined;
        const runs = await listRuns(client, sessionKey);
        const now = Date.now();
        helpers.print({ runs }, () =>
          runs.length === 0
            ? 'No subagent runs.'
            : runs
                .map(
                  (run, index) => `${runLine(run, index + 1, now)}\n   requester ${run.requesterSessionKey}`,
                )
                .join('\n'),
        );
        return exitCodes.ok;
      }
      case 'kill': {
        const runs = await listRuns(client);
        const targets =
          reference === 'all' ? runs.filter((run) => run.outcome === undefined) : [findRun(runs, reference!)];
        const stopped: string[] = [];
        for (const target of targets) {
          if ('error' in target) {
            io.error(`subagents kill: ${target.error}\n`);
            return exitCodes.notFound;
          }
          const result = await client.request(
            'subagents.kill',
            { runId: target.runId },
            { timeoutMs: readTimeoutMs },
          );
          stopped.push(...(result.stopped as string[]));
        }
        helpers.print({ stopped }, () =>
          stopped.length === 0
            ? 'Nothing to stop: no running run matches.'
            : `Stopped: ${stopped.join(', ')}`,
        );
        return exitCodes.ok;
      }
      default: {
        const result = await client.request(
          'subagents.log',
          {
            runId: reference,
            ...(typeof limit === 'number' ? { limit } : {}),
            ...(typeof before === 'number' ? { before } : {}),
          },
          { timeoutMs: readTimeoutMs },
        );
        helpers.print(result, () => logText(result.log as RunLog, result.run as SubagentRunRecord));
        return exitCodes.ok;
      }
    }
  });
}
