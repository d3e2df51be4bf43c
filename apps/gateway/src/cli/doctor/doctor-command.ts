// `switchboard doctor`: the checks in order (this machine and the config file, then the
// running gateway's own view, else the config file's), printed grouped by who answered.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandValues } from '../arguments.ts';
import type { CommandHelpers } from '../command-context.ts';
import type { CliIo } from '../io.ts';
import type { Check, CheckSource } from './check.ts';
import { configChecks, sharedDmWarning } from './config-checks.ts';
import { askGateway, gatewayChecks } from './gateway-checks.ts';
import { localChecks } from './local-checks.ts';

/**
 * `switchboard doctor`: checks what usually goes wrong, and says how to fix it. When a gateway
 * answers, the model, channel, queue and cooldown checks are its own view (`doctor.check`):
 * a key in the gateway's environment counts, the endpoint is probed from the gateway's
 * process. When none answers, they come from the config file and this shell's environment,
 * and the report says so. Exit code 1 when a check that is not a warning failed.
 */
export async function doctorCommand(
  _words: readonly string[],
  values: CommandValues,
  io: CliIo,
  helpers: CommandHelpers,
): Promise<number> {
  const { resolveStateDirectory } = await import('../../state/state-directory.ts');
  const state =
    typeof values['state-dir'] === 'string' ? values['state-dir'] : resolveStateDirectory(io.environment);
  const { checks, config, configPath } = await localChecks(state, values, io);

  // The running gateway's own view, when one answers.
  const { url } = await helpers.target();
  const { report, checks: gatewayAnswers } = await askGateway(helpers, url);
  checks.push(...gatewayAnswers);
  if (report !== undefined) {
    checks.push(...gatewayChecks(report));
  } else if (config !== undefined) {
    checks.push(...(await configChecks(config, io.environment)));
  }
  if (config !== undefined) {
    const sharedDms = sharedDmWarning(config.session.dmScope, config.channels);
    if (sharedDms !== undefined)
      checks.push({ name: 'dm sessions', ok: false, warning: true, detail: sharedDms, source: 'config' });
  }
  checks.push({
    name: 'database',
    ok: true,
    warning: true,
    detail: existsSync(join(state, 'switchboard.db')) ? join(state, 'switchboard.db') : 'not created yet',
    source: 'here',
  });

  const failed = checks.filter((check) => !check.ok && check.warning !== true);
  const configLabel = configPath ?? 'no config file: defaults';
  const headings: Record<CheckSource, string> = {
    here: 'On this machine:',
    config:
      report === undefined
        ? `From the config file (${configLabel}) and this shell's environment, because no gateway answered:`
        : `From the config file (${configLabel}):`,
    gateway:
      report === undefined
        ? `The gateway at ${url}:`
        : `From the running gateway at ${url} (pid ${report.pid}), as it sees them:`,
  };
  helpers.print(
    {
      ok: failed.length === 0,
      source: report === undefined ? 'config' : 'gateway',
      gateway: { url, answered: report !== undefined, pid: report?.pid },
      checks,
    },
    () => formatChecks(checks, headings),
  );
  return failed.length === 0 ? 0 : 1;
}

/** The checks for people: grouped by source (this machine, the config, the gateway), one line each. */
function formatChecks(checks: readonly Check[], headings: Record<CheckSource, string>): string {
  return (['here', 'config', 'gateway'] as const)
    .filter((source) => checks.some((check) => check.source === source))
    .map((source) =>
      [
        headings[source],
        ...checks
          .filter((check) => check.source === source)
          .map(
            (check) =>
              `${check.ok ? 'ok  ' : check.warning ? 'warn' : 'FAIL'}  ${check.name}: ${check.detail}`,
          ),
      ].join('\n'),
    )
    .join('\n');
}
