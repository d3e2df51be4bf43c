// `switchboard sandbox status`: whether bubblewrap works on the gateway's host, how the process
// limit is enforced, each agent's sandbox policy and the running background jobs. And the
// `sandbox` line of `doctor`.
import type { SandboxStatus } from '../extensions/sandbox.ts';
import type { CliGatewayClient } from './gateway-client.ts';
import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
}

type Values = Record<string, string | boolean | undefined>;

async function fetchStatus(client: CliGatewayClient): Promise<SandboxStatus> {
  return (await client.request(
    'sandbox.status',
    {},
    { timeoutMs: readTimeoutMs },
  )) as unknown as SandboxStatus;
}

function formatStatus(status: SandboxStatus): string {
  const { bubblewrap } = status;
  const lines = [
    bubblewrap.usable
      ? `bubblewrap ${bubblewrap.version} at ${bubblewrap.path}: usable`
      : `bubblewrap: NOT usable — ${bubblewrap.reason}`,
    `process limit: ${status.processLimit === 'unenforced' ? 'NOT enforced (root without a writable pids cgroup)' : `enforced by ${status.processLimit === 'cgroup' ? 'a pids cgroup' : 'RLIMIT_NPROC'}`}`,
    `running background jobs: ${status.runningJobs}`,
  ];
  for (const agent of status.agents) {
    lines.push(
      `agent ${agent.agentId}: mode ${agent.mode}, workspace ${agent.workspaceAccess}, network ${agent.network ? 'on' : 'off'}`,
    );
  }
  return lines.join('\n');
}

/** `sandbox status`. Exit code 0, or 1 when some agent sandboxes exec and bubblewrap is not usable. */
export async function sandboxCommand(
  words: readonly string[],
  _values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const sub = words[1] ?? 'status';
  if (sub !== 'status') {
    io.error(`unknown sandbox command: ${sub} (use sandbox status)\n`);
    return exitCodes.usage;
  }
  return helpers.withClient(async (client) => {
    const status = await fetchStatus(client);
    helpers.print(status, () => formatStatus(status));
    return unusable(status) ? exitCodes.failed : exitCodes.ok;
  });
}

const unusable = (status: SandboxStatus) =>
  !status.bubblewrap.usable && status.agents.some((agent) => agent.mode !== 'off');

/** The `sandbox` line of `doctor`: a failure when an agent sandboxes exec and bubblewrap cannot run. */
export async function sandboxDoctorCheck(
  client: CliGatewayClient,
): Promise<{ name: string; ok: boolean; warning: boolean; detail: string; source: 'gateway' } | undefined> {
  let status: SandboxStatus;
  try {
    status = await fetchStatus(client);
  } catch {
    return undefined; // a gateway without sandbox.status: nothing to report
  }
  if (status.agents.every((agent) => agent.mode === 'off')) return undefined;
  if (!status.bubblewrap.usable) {
    return {
      name: 'sandbox',
      ok: false,
      warning: false,
      detail: `exec is sandboxed but bubblewrap cannot run: ${status.bubblewrap.reason}`,
      source: 'gateway',
    };
  }
  return {
    name: 'sandbox',
    ok: status.processLimit !== 'unenforced',
    warning: true,
    detail:
      status.processLimit === 'unenforced'
        ? `bubblewrap ${status.bubblewrap.version} usable, but the process limit is not enforced (root without a writable pids cgroup)`
        : `bubblewrap ${status.bubblewrap.version} usable; process limit by ${status.processLimit}`,
    source: 'gateway',
  };
}
