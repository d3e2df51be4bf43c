// `switchboard import openclaw [--from DIR] [--dry-run] [--only PARTS] [--force] [--state-dir DIR] [--json]`
import type { CliIo } from '../cli/io.ts';
import { exitCodes } from '../cli/io.ts';
import { resolveStateDirectory } from '../state/state-directory.ts';
import { ImportError } from './errors.ts';
import { importOpenClaw, parseOnly } from './import-openclaw.ts';
import { defaultOpenClawDirectory } from './openclaw-source.ts';
import { countReport, formatReport } from './report.ts';
import { importParts } from './report-types.ts';

const importUsage = `Usage: switchboard import openclaw [--from DIR] [--dry-run] [--only PARTS] [--force]
                                  [--state-dir DIR] [--json]

Carries an OpenClaw installation over: its config, credentials and auth profiles, paired
senders, sessions with their transcripts (under the same session keys), cron jobs, and the
agents' workspaces (left where they are). OpenClaw's directory is only read.

  --from DIR    the OpenClaw state directory (default $OPENCLAW_STATE_DIR or ~/.openclaw)
  --dry-run     print the full report and write nothing
  --only PARTS  a comma-separated subset of: ${importParts.join(', ')}
  --force       replace a switchboard.json this import did not write (kept as
                switchboard.json.before-openclaw-import)
  --state-dir   the Switchboard state directory to write into (default as for gateway run)

Running it again changes nothing that is already there. Secrets are never printed.
Exit codes: 0 imported (or planned), 1 refused (an existing config without --force, a
            running gateway, an unreadable file), 2 usage, 5 the converted config has errors
            (everything else was imported; fix them before starting), 6 no OpenClaw state
`;

export async function importCommand(
  words: readonly string[],
  values: Readonly<Record<string, string | boolean | undefined>>,
  io: CliIo,
): Promise<number> {
  if (values.help === true) {
    io.out(importUsage);
    return exitCodes.ok;
  }
  if (words[1] !== 'openclaw') {
    io.error(
      `unknown import source: ${words[1] ?? '(none)'}; use "switchboard import openclaw"\n\n${importUsage}`,
    );
    return exitCodes.usage;
  }
  try {
    const report = await importOpenClaw({
      from: typeof values.from === 'string' ? values.from : defaultOpenClawDirectory(io.environment),
      stateDirectory:
        typeof values['state-dir'] === 'string' ? values['state-dir'] : resolveStateDirectory(io.environment),
      dryRun: values['dry-run'] === true,
      ...(typeof values.only === 'string' ? { only: parseOnly(values.only) } : {}),
      force: values.force === true,
      environment: io.environment,
    });
    const failed = report.validation.some((problem) => problem.severity === 'error');
    if (values.json === true)
      io.out(`${JSON.stringify({ ok: !failed, ...report, counts: countReport(report) }, null, 2)}\n`);
    else io.out(formatReport(report));
    return failed ? exitCodes.invalidConfig : exitCodes.ok;
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    if (values.json === true)
      io.out(`${JSON.stringify({ ok: false, code: error.code, message: error.message }, null, 2)}\n`);
    else io.error(`${error.message}\n`);
    switch (error.code) {
      case 'IMPORT_INVALID_ONLY':
        return exitCodes.usage;
      case 'IMPORT_SOURCE_NOT_FOUND':
        return exitCodes.notFound;
      default:
        return exitCodes.failed;
    }
  }
}
