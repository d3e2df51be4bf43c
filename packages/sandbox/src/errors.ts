import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** Codes of the errors this package throws. */
export type SandboxErrorCode =
  | 'SANDBOX_UNAVAILABLE'
  | 'SANDBOX_INVALID_POLICY'
  | 'SANDBOX_INVALID_ARGUMENT'
  | 'SANDBOX_SPAWN_FAILED'
  | 'SANDBOX_JOB_NOT_FOUND'
  | 'SANDBOX_JOB_LIMIT'
  | 'SANDBOX_JOB_STDIN_CLOSED';

/** Every `SandboxError` code with the sentence that documents it. */
export const sandboxErrorCodes: ErrorCodeTable & Readonly<Record<SandboxErrorCode, string>> = {
  SANDBOX_UNAVAILABLE:
    'bubblewrap cannot run here: `bwrap` is not installed (Debian/Ubuntu: `apt-get install bubblewrap`) or the kernel refuses unprivileged user namespaces. The message carries the probe output. A sandboxed exec is refused, never run on the host instead.',
  SANDBOX_INVALID_POLICY:
    'A sandbox policy value is out of range (a limit that is not a positive integer, a read-only path that is not absolute, a mode or access level that does not exist). The message names the key.',
  SANDBOX_INVALID_ARGUMENT:
    'An exec or process call is malformed: a workdir outside /workspace, an environment variable name that is not a shell identifier, a timeout that is not positive. The message names the argument.',
  SANDBOX_SPAWN_FAILED:
    'The operating system could not start bubblewrap (the spawn itself failed); the message carries the errno.',
  SANDBOX_JOB_NOT_FOUND:
    'No background job with that id belongs to this session (it never existed, belongs to another session, or was removed).',
  SANDBOX_JOB_LIMIT:
    'The session already runs as many background jobs as `limits.maxBackgroundJobs` allows; kill one with the process tool first.',
  SANDBOX_JOB_STDIN_CLOSED:
    'The job cannot take input: it has exited, or it started in the foreground (a foreground command gets end-of-file on stdin at once, so it never waits for input) and was moved to the background later.',
};

/** An error of `@switchboard/sandbox`. */
export class SandboxError extends SwitchboardError<SandboxErrorCode> {
  constructor(code: SandboxErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
