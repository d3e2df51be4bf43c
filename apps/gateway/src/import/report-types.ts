// The shapes of the import report: one part's lines, and the whole report.
import type { ConfigProblem } from '../config/errors.ts';
import type { ConvertedConfig } from './config-conversion/convert-config.ts';

/** The parts an import can carry over, in the order they run. */
export const importParts = ['config', 'credentials', 'pairing', 'sessions', 'cron', 'workspace'] as const;
export type ImportPart = (typeof importParts)[number];

/**
 * What a report line says. Config keys: mapped, changed (mapped with another meaning),
 * unsupported. Everything else: `import` (planned, dry run), `imported`, `unchanged` (already
 * there from an earlier run), `kept` (Switchboard already had something else there; left
 * alone), `not_imported` (found, deliberately not carried over), `problem`.
 */
export type ReportStatus =
  | 'mapped'
  | 'changed'
  | 'unsupported'
  | 'import'
  | 'imported'
  | 'unchanged'
  | 'kept'
  | 'not_imported'
  | 'problem';

export interface ReportLine {
  readonly status: ReportStatus;
  readonly subject: string;
  readonly detail?: string;
}

export interface PartReport {
  readonly part: ImportPart;
  readonly lines: readonly ReportLine[];
}

export interface ImportReport {
  readonly from: string;
  readonly stateDirectory: string;
  readonly dryRun: boolean;
  readonly configShape: ConvertedConfig['shape'];
  readonly parts: readonly PartReport[];
  /** The converted config checked the way `switchboard config validate` checks it. */
  readonly validation: readonly ConfigProblem[];
}
