// The CLI's command line: every option any command takes, parsed once with Node's parseArgs.
import { parseArgs } from 'node:util';

/** The options of a command line, by long name (`--state-dir` is `values['state-dir']`). */
export type CommandValues = Record<string, string | boolean | undefined>;

/** A parsed command line: the command words (`sessions show KEY`) and the options. */
export interface ParsedCommand {
  readonly words: string[];
  readonly values: CommandValues;
}

/** Parses a command line; throws (Node's `ERR_PARSE_ARGS_*`) on an unknown option or a missing value. */
export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      bind: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      'state-dir': { type: 'string' },
      message: { type: 'string', short: 'm' },
      'session-key': { type: 'string' },
      agent: { type: 'string' },
      thinking: { type: 'string' },
      channel: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean' },
      'with-token': { type: 'boolean' },
      follow: { type: 'boolean' },
      strict: { type: 'boolean' },
      from: { type: 'string' },
      'dry-run': { type: 'boolean' },
      only: { type: 'string' },
      limit: { type: 'string' },
      before: { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  return { words: positionals, values };
}
