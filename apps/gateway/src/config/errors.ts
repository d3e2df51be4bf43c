import { type ConfigIssue, type ErrorCodeTable, joinKeyPath, SwitchboardError } from '@switchboard/hooks';

const configErrorCodes = {
  CONFIG_NOT_FOUND: 'The config file named on the command line does not exist.',
  CONFIG_UNREADABLE: 'The config file exists but could not be read.',
  CONFIG_SYNTAX: 'The config file is not valid JSON5; the message gives the line and column.',
  CONFIG_ENV_MISSING: 'A ${VAR} reference names an environment variable that is not set.',
  CONFIG_INVALID:
    'The config does not match a schema (the gateway one, a channel one or a plugin one) or names a plugin that cannot be found or imported; every problem names its key path.',
  CONFIG_PLUGIN_FAILED:
    'A configured plugin failed to register (its setup threw or timed out, a dependency is missing) and its entry does not say `optional: true`.',
  CONFIG_UNSAFE: 'The config asks for something unsafe (for example a public bind without auth).',
  STATE_DIR_UNUSABLE: 'The state directory cannot be created or written.',
  TOKEN_INVALID: 'The gateway token is blank or a placeholder.',
  TEST_SWITCH_REFUSED:
    'A test-only environment switch is set without `NODE_ENV=test`, or with a bad value; the gateway refuses to start (decision 0007).',
} as const satisfies ErrorCodeTable;

export type ConfigErrorCode = keyof typeof configErrorCodes;

/**
 * One problem in the configuration. The one config-problem type of the gateway: schema
 * checks, unknown keys, `${VAR}` substitution, routing, channels and plugins all report it.
 */
export interface ConfigProblem extends ConfigIssue {
  /** Full dotted key path, with array indexes: `bindings[2].match.channel`. */
  readonly path: string;
  readonly message: string;
  /** `error` stops the gateway from starting; `warning` is reported and ignored. */
  readonly severity: 'error' | 'warning';
  /** For an unknown key: the full key path it probably meant (`agents.defaults`). */
  readonly suggestion?: string;
}

export class ConfigError extends SwitchboardError<ConfigErrorCode> {
  /** Every problem found, errors and warnings together. */
  readonly problems: readonly ConfigProblem[];

  constructor(code: ConfigErrorCode, message: string, problems: readonly ConfigProblem[] = []) {
    super(code, message, { details: problems.length === 0 ? undefined : { problems } });
    this.problems = problems;
  }
}

/** Formats a zod-style path as `a.b[2].c` under an optional base path; `(root)` when empty. */
export function formatKeyPath(path: ReadonlyArray<PropertyKey>, base = ''): string {
  const text = joinKeyPath(base, path);
  return text.length === 0 ? '(root)' : text;
}

/** One line per problem: `error   gateway.port: expected number, got string`. */
export function formatProblems(problems: readonly ConfigProblem[], indent = '  '): string {
  return problems
    .map((problem) => `${indent}${problem.severity.padEnd(7)} ${problem.path}: ${problem.message}`)
    .join('\n');
}

/** Errors first, then warnings; each group in the order found. */
export function sortProblems(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return [
    ...problems.filter((problem) => problem.severity === 'error'),
    ...problems.filter((problem) => problem.severity === 'warning'),
  ];
}

/** Throws `CONFIG_INVALID` listing every problem (warnings too) when any is an error. */
export function throwIfErrors(
  problems: readonly ConfigProblem[],
  heading = 'config is invalid',
  code: ConfigErrorCode = 'CONFIG_INVALID',
): void {
  if (!problems.some((problem) => problem.severity === 'error')) return;
  const sorted = sortProblems(problems);
  throw new ConfigError(code, `${heading}:\n${formatProblems(sorted)}`, sorted);
}
