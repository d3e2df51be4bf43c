// The cron part: OpenClaw's cron jobs as scheduler jobs with the same ids (jobs the scheduler
// cannot run are reported with the reason; a job with the id already there is left alone).
import { createStateSchedulerStore } from '@switchboard/scheduler';
import { readCronJobs, toSchedulerJob } from '../cron-import.ts';
import type { PartReport, ReportLine } from '../report-types.ts';
import type { ImportContext } from './context.ts';
import { sameJson } from './private-files.ts';

/** Imports the cron jobs. */
export async function cronPart(context: ImportContext): Promise<PartReport> {
  const { layout, store, now } = context;
  const { jobs, problems } = await readCronJobs(layout);
  const lines: ReportLine[] = problems.map((problem) => ({ status: 'problem', subject: problem }));
  const scheduler = store === undefined ? undefined : createStateSchedulerStore(store);
  for (const source of jobs) {
    const subject = `${source.id} "${source.name}"${source.enabled ? '' : ' (disabled)'}${source.agentId === undefined ? '' : ` for agent ${source.agentId}`}`;
    const converted = toSchedulerJob(source, now());
    if (converted.job === undefined) {
      lines.push({ status: 'unsupported', subject, detail: converted.reason });
      continue;
    }
    const detail = converted.notes.length === 0 ? {} : { detail: converted.notes.join('; ') };
    if (scheduler === undefined) {
      lines.push({ status: 'import', subject, ...detail });
      continue;
    }
    const existing = await scheduler.getJob(source.id);
    if (existing !== undefined) {
      const same =
        existing.name === converted.job.name &&
        sameJson(existing.schedule, converted.job.schedule) &&
        sameJson(existing.payload, converted.job.payload);
      lines.push(
        same
          ? { status: 'unchanged', subject }
          : {
              status: 'kept',
              subject,
              detail: 'Switchboard already has another job with this id; left alone',
            },
      );
      continue;
    }
    await scheduler.putJob(converted.job, { expectedRevision: 0 });
    lines.push({ status: 'imported', subject, ...detail });
  }
  return { part: 'cron', lines };
}
