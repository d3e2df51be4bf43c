// `switchboard approvals`: the host exec commands waiting for an operator, and the answer:
// `approvals allow-once ID`, `approvals allow-always ID` (remembered for the agent and command
// name), `approvals deny ID`. A request nobody answers is denied after
// tools.exec.approvalTimeoutSeconds.
import type { ExecApprovalRequest } from '../tools/exec-approvals.ts';
import type { CliGatewayClient } from './gateway-client.ts';
import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
}

type Values = Record<string, string | boolean | undefined>;

const decisions = ['allow-once', 'allow-always', 'deny'] as const;
const usage =
  'use approvals [list] | approvals allow-once ID | approvals allow-always ID | approvals deny ID';

function formatPending(pending: readonly ExecApprovalRequest[], now: number): string {
  if (pending.length === 0) return 'No exec approvals waiting.';
  return pending
    .map(
      (request) =>
        `${request.id}  agent ${request.agentId}  ${[request.command, ...request.args].join(' ')}  (session ${request.sessionKey}, denied in ${Math.max(0, Math.ceil((request.expiresAt - now) / 1000))} s)`,
    )
    .join('\n');
}

/** `approvals …`. Returns an exit code. */
export async function approvalsCommand(
  words: readonly string[],
  _values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const sub = words[1] ?? 'list';
  if (sub === 'list') {
    return helpers.withClient(async (client) => {
      const result = (await client.request(
        'exec.approval.list',
        {},
        { timeoutMs: readTimeoutMs },
      )) as unknown as {
        pending: ExecApprovalRequest[];
      };
      helpers.print(result, () => formatPending(result.pending, Date.now()));
      return exitCodes.ok;
    });
  }
  const decision = decisions.find((candidate) => candidate === sub);
  const id = words[2];
  if (decision === undefined || id === undefined) {
    io.error(`unknown approvals command: ${words.slice(1).join(' ')} (${usage})\n`);
    return exitCodes.usage;
  }
  return helpers.withClient(async (client) => {
    const result = await client.request(
      'exec.approval.resolve',
      { id, decision },
      { timeoutMs: readTimeoutMs },
    );
    helpers.print(
      result,
      () =>
        `${decision === 'deny' ? 'Denied' : 'Allowed'} ${id}${decision === 'allow-always' ? ' (always, for this agent and command)' : ''}.`,
    );
    return exitCodes.ok;
  });
}
