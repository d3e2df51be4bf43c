import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';

export const configErrorCodes = {
  CONFIG_NOT_FOUND: 'The config file named on the command line does not exist.',
  CONFIG_UNREADABLE: 'The config file exists but could not be read.',
  CONFIG_SYNTAX: 'The config file is not valid JSON5; the message gives the line and column.',
  CONFIG_ENV_MISSING: 'A ${VAR} reference names an environment variable that is not set.',
  CONFIG_INVALID: 'The config does not match the schema; every problem names its key path.',
  CONFIG_UNSAFE: 'The config asks for something unsafe (for example a public bind without auth).',
  STATE_DIR_UNUSABLE: 'The state directory cannot be created or written.',
  TOKEN_INVALID: 'The gateway token is blank or a placeholder.',
} as const satisfies ErrorCodeTable;

export type ConfigErrorCode = keyof typeof configErrorCodes;

export interface ConfigProblem {
  /** Dotted key path, with array indexes: `bindings[2].match.channel`. */
  readonly path: string;
  readonly message: string;
}

export class ConfigError extends SwitchboardError<ConfigErrorCode> {
  readonly problems: readonly ConfigProblem[];

  constructor(code: ConfigErrorCode, message: string, problems: readonly ConfigProblem[] = []) {
    super(code, message, { details: problems.length === 0 ? undefined : { problems } });
    this.problems = problems;
  }
}

/** Formats a zod-style path as `a.b[2].c`. */
export function formatKeyPath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text.length === 0 ? String(segment) : `.${String(segment)}`;
  }
  return text.length === 0 ? '(root)' : text;
}
