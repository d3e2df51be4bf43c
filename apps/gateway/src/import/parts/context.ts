// What every part of an OpenClaw import works with: where OpenClaw's files are, where
// Switchboard's state goes, the open store, and whether this is a dry run.
import type { SessionStore } from '@switchboard/sessions';
import type { OpenClawLayout } from '../openclaw-source.ts';
import type { ImportPart } from '../report-types.ts';

/**
 * The context of one import run. Contract: `store` is open for the length of the parts, and
 * undefined on a dry run (or when no selected part needs it): a part then only plans, lists
 * what it would import as `import`, and writes nothing.
 */
export interface ImportContext {
  readonly layout: OpenClawLayout;
  readonly stateDirectory: string;
  readonly dryRun: boolean;
  readonly store: SessionStore | undefined;
  readonly selected: ReadonlySet<ImportPart>;
  readonly now: () => number;
}
