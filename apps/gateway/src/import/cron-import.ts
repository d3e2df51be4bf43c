// Cron jobs: ~/.openclaw/cron/jobs.json in 2026.6, the cron_jobs table of the shared database
// in 2026.9. Switchboard has no scheduler yet (packages/scheduler has not landed), so the
// jobs are kept, unchanged, in a file of the Switchboard state directory and reported as not
// imported; the scheduler can read that file when it lands.
import { existsSync } from 'node:fs';
import {
  isRecord,
  type OpenClawLayout,
  openReadOnlyDatabase,
  readJsonFile,
  tableExists,
} from './openclaw-source.ts';

interface OpenClawCronJob {
  readonly id: string;
  readonly name: string;
  readonly enabled: boolean;
  readonly agentId: string | undefined;
  /** The job as OpenClaw stored it (schedule, payload, delivery, state). */
  readonly job: Readonly<Record<string, unknown>>;
  readonly source: string;
}

export async function readCronJobs(
  layout: OpenClawLayout,
): Promise<{ jobs: OpenClawCronJob[]; problems: string[] }> {
  const jobs: OpenClawCronJob[] = [];
  const problems: string[] = [];
  const add = (value: unknown, source: string, state?: unknown) => {
    if (!isRecord(value) || typeof value.id !== 'string') return;
    if (jobs.some((job) => job.id === value.id)) return;
    jobs.push({
      id: value.id,
      name: typeof value.name === 'string' ? value.name : value.id,
      enabled: value.enabled !== false,
      agentId: typeof value.agentId === 'string' ? value.agentId : undefined,
      job: isRecord(state) && value.state === undefined ? { ...value, state } : value,
      source,
    });
  };
  if (existsSync(layout.stateDatabasePath)) {
    const opened = await openReadOnlyDatabase(layout.stateDatabasePath);
    const database = opened.database;
    try {
      if (tableExists(database, 'cron_jobs')) {
        for (const row of database
          .prepare('SELECT job_id, job_json, state_json FROM cron_jobs ORDER BY sort_order, job_id')
          .all()) {
          try {
            add(
              JSON.parse(String(row.job_json)),
              `${layout.stateDatabasePath} (cron_jobs)`,
              JSON.parse(String(row.state_json)),
            );
          } catch {
            problems.push(
              `${layout.stateDatabasePath}: cron job ${String(row.job_id)} has unreadable JSON; not kept`,
            );
          }
        }
      }
    } finally {
      opened.close();
    }
  }
  if (existsSync(layout.cronJobsPath)) {
    const value = readJsonFile(layout.cronJobsPath);
    const list = Array.isArray(value)
      ? value
      : isRecord(value) && Array.isArray(value.jobs)
        ? value.jobs
        : [];
    for (const job of list) add(job, layout.cronJobsPath);
  }
  return { jobs, problems };
}
