// The import report for people: one section per part, one line per key, profile, sender,
// session or job, and the counts. It names key paths and ids, never a secret's value.
import { formatProblems } from '../config/errors.ts';
import type { ImportReport, ReportStatus } from './report-types.ts';

const labels: Readonly<Record<ReportStatus, string>> = {
  mapped: 'mapped',
  changed: 'changed',
  unsupported: 'unsupported',
  import: 'will import',
  imported: 'imported',
  unchanged: 'unchanged',
  kept: 'kept',
  not_imported: 'not imported',
  problem: 'problem',
};

const width = Math.max(...Object.values(labels).map((label) => label.length));

/** How many lines of each status each part has. */
export function countReport(report: ImportReport): Record<string, Partial<Record<ReportStatus, number>>> {
  const counts: Record<string, Partial<Record<ReportStatus, number>>> = {};
  for (const part of report.parts) {
    const tally: Partial<Record<ReportStatus, number>> = {};
    for (const line of part.lines) tally[line.status] = (tally[line.status] ?? 0) + 1;
    counts[part.part] = tally;
  }
  return counts;
}

export function formatReport(report: ImportReport): string {
  const out: string[] = [
    report.dryRun ? 'OpenClaw import plan (dry run: nothing was written)' : 'OpenClaw import',
    `  from ${report.from} (config shape: ${report.configShape === 'none' ? 'no agent roster' : report.configShape})`,
    `  to   ${report.stateDirectory}`,
  ];
  if (report.dryRun)
    out.push(
      '  (a dry run does not open Switchboard\'s database: sessions, credentials and approvals it already has are listed as "will import"; a real run leaves them alone)',
    );
  for (const part of report.parts) {
    out.push('', `${part.part}${part.lines.length === 0 ? ': nothing found' : ''}`);
    for (const line of part.lines)
      out.push(
        `  ${labels[line.status].padEnd(width)}  ${line.subject}${line.detail === undefined ? '' : `: ${line.detail}`}`,
      );
  }
  if (report.validation.length > 0) {
    const errors = report.validation.filter((problem) => problem.severity === 'error').length;
    out.push(
      '',
      `switchboard.json, checked like "switchboard config validate": ${errors} error(s), ${report.validation.length - errors} warning(s)${errors > 0 ? ' (errors stop the gateway from starting: fix them first)' : ''}`,
      formatProblems(report.validation),
    );
  }
  out.push('', 'Summary');
  for (const [part, tally] of Object.entries(countReport(report))) {
    const text = Object.entries(tally)
      .map(([status, count]) => `${count} ${labels[status as ReportStatus]}`)
      .join(', ');
    out.push(`  ${part.padEnd(11)} ${text === '' ? 'nothing found' : text}`);
  }
  return `${out.join('\n')}\n`;
}
