import { execFile } from 'node:child_process';
import { ToolError } from './errors.ts';

export interface ExecOptions {
  /** Command names the agent may run (no paths, no shell). Empty means exec is off. */
  readonly allow: readonly string[];
  /** Working directory: the agent workspace. */
  readonly cwd: string;
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  /** Environment passed to commands; defaults to PATH and HOME only (no secrets). */
  readonly environment?: NodeJS.ProcessEnv;
}

export interface ExecResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/**
 * Runs one allowlisted command with arguments, without a shell, in the workspace. The
 * command must be a bare name on the allowlist; arguments are passed through untouched, so
 * shell syntax in them has no effect. The environment is minimal so keys never leak.
 */
export function runAllowedCommand(
  command: string,
  args: readonly string[],
  options: ExecOptions,
  signal?: AbortSignal,
): Promise<ExecResult> {
  if (options.allow.length === 0)
    throw new ToolError(
      'TOOL_EXEC_REFUSED',
      'exec is disabled: no commands are allowlisted (tools.exec.allow)',
    );
  if (command.includes('/') || command.includes('\\')) {
    throw new ToolError('TOOL_EXEC_REFUSED', `exec takes a bare command name, not a path: ${command}`);
  }
  if (!options.allow.includes(command)) {
    throw new ToolError(
      'TOOL_EXEC_REFUSED',
      `command ${command} is not allowlisted; allowed: ${options.allow.join(', ')}`,
    );
  }
  const environment = options.environment ?? {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: options.cwd,
    LANG: 'C.UTF-8',
  };
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      {
        cwd: options.cwd,
        env: environment,
        timeout: options.timeoutMs ?? 30_000,
        maxBuffer: options.maxOutputBytes ?? 256 * 1024,
        shell: false,
        windowsHide: true,
        ...(signal === undefined ? {} : { signal }),
      },
      (error, stdout, stderr) => {
        const failure = error as
          | (NodeJS.ErrnoException & { killed?: boolean; signal?: string; code?: number | string })
          | null;
        resolve({
          exitCode: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null,
          signal: failure?.signal ?? null,
          stdout: String(stdout),
          stderr:
            failure !== null && typeof failure.code === 'string' && stderr === ''
              ? failure.message
              : String(stderr),
          timedOut: failure?.killed === true && failure.signal === 'SIGTERM',
        });
      },
    );
  });
}
