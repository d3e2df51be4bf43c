// `switchboard config validate|schema|reload`: checks the config file the way the gateway does
// at start-up (every problem with its key path), prints the config's JSON Schema, or asks the
// running gateway to read its config again.
import type { CommandValues } from './arguments.ts';
import type { CommandHelpers } from './command-context.ts';
import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

/** `config schema`, `config reload`, `config validate` (0 valid, 5 errors, or warnings with --strict; 7 unreadable). */
export async function configCommand(
  words: readonly string[],
  values: CommandValues,
  io: CliIo,
  helpers: CommandHelpers,
): Promise<number> {
  if (words[1] === 'schema') {
    const { configJsonSchema } = await import('../config/schema.ts');
    io.out(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
    return exitCodes.ok;
  }
  if (words[1] === 'reload') return configReload(values, io, helpers);
  if (words[1] !== 'validate') {
    io.error(
      `unknown config command: ${words[1] ?? '(none)'}; use "config validate", "config schema" or "config reload"\n`,
    );
    return exitCodes.usage;
  }
  const { checkConfigFile } = await import('../runtime/plugins.ts');
  const { ConfigError, formatProblems } = await import('../config/errors.ts');
  const { resolveStateDirectory } = await import('../state/state-directory.ts');
  const state =
    typeof values['state-dir'] === 'string' ? values['state-dir'] : resolveStateDirectory(io.environment);
  let checked: Awaited<ReturnType<typeof checkConfigFile>>;
  try {
    checked = await checkConfigFile({
      stateDirectory: state,
      environment: io.environment,
      ...(typeof values.config === 'string' ? { path: values.config } : {}),
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (values.json === true)
      io.out(
        `${JSON.stringify({ ok: false, code: error.code, message: error.message, problems: error.problems }, null, 2)}\n`,
      );
    else io.error(`${error.message}\n`);
    return error.code === 'CONFIG_ENV_MISSING' ? exitCodes.invalidConfig : exitCodes.unreadableConfig;
  }
  const { path, problems } = checked;
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  const warnings = problems.length - errors;
  const ok = errors === 0 && !(values.strict === true && warnings > 0);
  const file = path ?? '(no config file: defaults)';
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const heading =
    problems.length === 0
      ? `${file} is valid.`
      : errors === 0
        ? `${file} has no errors, but ${count(warnings, 'warning')}${values.strict === true ? ' (--strict: they fail the check)' : ' (warnings do not stop the gateway)'}:`
        : `${file} is invalid: ${count(errors, 'error')}, ${count(warnings, 'warning')} (errors stop the gateway from starting; warnings do not):`;
  if (values.json === true) {
    const code = errors > 0 ? { code: 'CONFIG_INVALID' } : {};
    io.out(`${JSON.stringify({ ok, ...code, path: path ?? null, errors, warnings, problems }, null, 2)}\n`);
  } else {
    const text = problems.length === 0 ? `${heading}\n` : `${heading}\n${formatProblems(problems)}\n`;
    if (ok) io.out(text);
    else io.error(text);
  }
  return ok ? exitCodes.ok : exitCodes.invalidConfig;
}

/** `config reload`: asks the running gateway to read its config again (docs/decisions/0011). */
async function configReload(values: CommandValues, io: CliIo, helpers: CommandHelpers): Promise<number> {
  return helpers.withClient(async (client) => {
    const report = (await client.request('config.reload', {}, { timeoutMs: readTimeoutMs })) as {
      ok?: boolean;
      path?: string | null;
      applied?: string[];
      needsRestart?: Array<{ path: string; reason: string }>;
      channels?: Record<'restarted' | 'started' | 'stopped' | 'accessUpdated', string[]>;
      problems?: Array<{ path: string; message: string; severity: 'error' | 'warning' }>;
    };
    const { formatProblems } = await import('../config/errors.ts');
    const file = report.path ?? '(no config file: defaults)';
    const problems = report.problems ?? [];
    if (report.ok !== true) {
      if (values.json === true) io.out(`${JSON.stringify(report, null, 2)}\n`);
      else
        io.error(
          `${file} was rejected; the gateway keeps running with its current config:\n${formatProblems(problems)}\n`,
        );
      return exitCodes.invalidConfig;
    }
    helpers.print(report, () => {
      const lines: string[] = [];
      const applied = report.applied ?? [];
      const needsRestart = report.needsRestart ?? [];
      if (applied.length === 0 && needsRestart.length === 0) lines.push(`${file}: no changes.`);
      if (applied.length > 0)
        lines.push(`${file}: applied without a restart:`, ...applied.map((path) => `  ${path}`));
      if (needsRestart.length > 0)
        lines.push(
          'Changed, but needs a restart (the old values stay in force until then):',
          ...needsRestart.map((entry) => `  ${entry.path}: ${entry.reason}`),
        );
      const channels = report.channels;
      const named = (label: string, accounts: string[] | undefined) =>
        accounts === undefined || accounts.length === 0 ? [] : [`  ${label}: ${accounts.join(', ')}`];
      const channelLines = [
        ...named('restarted', channels?.restarted),
        ...named('started', channels?.started),
        ...named('stopped', channels?.stopped),
        ...named('new access settings, not restarted', channels?.accessUpdated),
      ];
      if (channelLines.length > 0) lines.push('Channel accounts:', ...channelLines);
      if (problems.length > 0) lines.push('Warnings:', formatProblems(problems));
      return lines.join('\n');
    });
    return exitCodes.ok;
  });
}
