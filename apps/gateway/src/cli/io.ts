// What every CLI command shares: its exit codes, its input and output, its read timeout.
// Kept apart from main.ts so commands loaded on demand do not import the dispatcher back.

/** Exit codes: a script can tell what went wrong without parsing text (listed in --help). */
export const exitCodes = {
  ok: 0,
  /** The command ran and failed (a failed run, a failed doctor check, a refused request). */
  failed: 1,
  /** Wrong command line. */
  usage: 2,
  /** No gateway answers at the address. */
  unreachable: 3,
  /** The gateway refused the token. */
  unauthorized: 4,
  /** The config is invalid (for `gateway run`, also missing or unreadable); see `config validate --help`. */
  invalidConfig: 5,
  /** The session, pairing code or other thing named does not exist. */
  notFound: 6,
  /** `config validate` only: the config file is missing, cannot be read, or is not JSON5. */
  unreadableConfig: 7,
} as const;

/** How long read commands wait for an answer before saying the gateway is not answering. */
export const readTimeoutMs = 30_000;

export interface CliIo {
  readonly out: (text: string) => void;
  readonly error: (text: string) => void;
  readonly environment: NodeJS.ProcessEnv;
  /** Ends long-running commands (`logs --follow`); the process's own SIGINT does it otherwise. */
  readonly signal?: AbortSignal;
}
