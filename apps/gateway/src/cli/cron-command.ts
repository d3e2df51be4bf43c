// `switchboard cron list|status|add|rm|run|runs`: the running gateway's scheduled jobs over the
// `cron.*` methods (decision 0019). `add` takes the job as JSON, the shape `cron.add` and the
// agent's `cron` tool accept.
import type { CliGatewayClient } from './gateway-client.ts';
import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
}

type Values = Record<string, string | boolean | undefined>;

interface JobRow {
  id: string;
  name: string;
  enabled: boolean;
  schedule: { kind: string; at?: string; everyMs?: number; expr?: string; tz?: string };
  state: {
    nextRunAtMs?: number;
    lastStatus?: string;
    consecutiveErrors: number;
    lastDeliveryStatus?: string;
  };
}

interface RunRow {
  runId: string;
  startedAtMs: number;
  status: string;
  durationMs?: number;
  deliveryStatus?: string;
  usage?: { total: number };
  error?: string;
  detail?: string;
}

const usage = `usage: switchboard cron list | status | add '<job JSON>' | rm ID | run ID | runs ID
  a job: {"name": "...", "schedule": {"kind": "cron", "expr": "0 9 * * 1-5", "tz": "Europe/Berlin"},
          "payload": {"kind": "agentTurn", "message": "..."},
          "delivery": {"mode": "announce", "channel": "telegram", "to": "123456789"}}
`;

function schedule(row: JobRow['schedule']): string {
  if (row.kind === 'at') return `at ${row.at}`;
  if (row.kind === 'every') return `every ${Math.round((row.everyMs ?? 0) / 1000)}s`;
  return `cron ${row.expr}${row.tz === undefined ? '' : ` (${row.tz})`}`;
}

function formatJobs(jobs: readonly JobRow[]): string {
  if (jobs.length === 0) return 'No scheduled jobs.';
  return jobs
    .map((job) => {
      const next =
        job.state.nextRunAtMs === undefined ? 'not scheduled' : new Date(job.state.nextRunAtMs).toISOString();
      const last =
        job.state.lastStatus === undefined
          ? 'never ran'
          : `last ${job.state.lastStatus}${job.state.lastDeliveryStatus === undefined ? '' : `, ${job.state.lastDeliveryStatus}`}${job.state.consecutiveErrors > 0 ? `, ${job.state.consecutiveErrors} failures in a row` : ''}`;
      return `${job.id}  ${job.name}${job.enabled ? '' : ' (disabled)'}\n  ${schedule(job.schedule)}; next ${next}; ${last}`;
    })
    .join('\n');
}

function formatRuns(runs: readonly RunRow[]): string {
  if (runs.length === 0) return 'No runs yet.';
  return runs
    .map(
      (run) =>
        `${new Date(run.startedAtMs).toISOString()}  ${run.status}${run.deliveryStatus === undefined ? '' : ` (${run.deliveryStatus})`}` +
        `${run.durationMs === undefined ? '' : `, ${run.durationMs} ms`}${run.usage === undefined ? '' : `, ${run.usage.total} tokens`}` +
        `${run.error === undefined ? '' : ` - ${run.error}`}${run.detail === undefined ? '' : ` - ${run.detail}`}`,
    )
    .join('\n');
}

/** `cron …`. Returns an exit code. */
export async function cronCommand(
  words: readonly string[],
  _values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const action = words[1] ?? 'list';
  const argument = words[2];
  if (
    !['list', 'status', 'add', 'rm', 'run', 'runs'].includes(action) ||
    (!['list', 'status'].includes(action) && argument === undefined)
  ) {
    io.error(usage);
    return exitCodes.usage;
  }
  let job: unknown;
  if (action === 'add') {
    try {
      job = JSON.parse(argument!);
    } catch (error) {
      io.error(`cron add: the job is not JSON (${(error as Error).message})\n${usage}`);
      return exitCodes.usage;
    }
  }
  return helpers.withClient(async (client) => {
    switch (action) {
      case 'list': {
        const result = await client.request('cron.list', {}, { timeoutMs: readTimeoutMs });
        helpers.print(result, () => formatJobs(result.jobs as JobRow[]));
        break;
      }
      case 'status': {
        const result = await client.request('cron.status', {}, { timeoutMs: readTimeoutMs });
        const heartbeat = (result.heartbeat ?? []) as Array<{
          agentId: string;
          day: string;
          runs: number;
          skipped: number;
          totalTokens: number;
        }>;
        helpers.print(result, () =>
          [
            `Schedules ${result.enabled === true ? 'on' : 'off (cron.enabled)'}: ${String(result.jobs)} jobs, ${String(result.running)} running, next wake ${String(result.nextWakeAt ?? 'none')}`,
            ...heartbeat.map(
              (day) =>
                `  heartbeat ${day.agentId} ${day.day}: ${day.runs} runs, ${day.skipped} skipped, ${day.totalTokens} tokens`,
            ),
          ].join('\n'),
        );
        break;
      }
      case 'add': {
        const result = await client.request('cron.add', { job });
        helpers.print(result, () => `Added ${formatJobs([result.job as JobRow])}`);
        break;
      }
      case 'rm': {
        const result = await client.request('cron.remove', { jobId: argument });
        helpers.print(result, () => `Removed job ${argument}.`);
        break;
      }
      case 'run': {
        const result = await client.request('cron.run', { jobId: argument });
        helpers.print(result, () => formatRuns([result.run as RunRow]));
        break;
      }
      case 'runs': {
        const result = await client.request('cron.runs', { jobId: argument }, { timeoutMs: readTimeoutMs });
        helpers.print(result, () => formatRuns(result.runs as RunRow[]));
        break;
      }
    }
    return exitCodes.ok;
  });
}
