// The host `exec` of unsandboxed sessions (sandbox mode `off`, or the main session in
// `non-main`): one allowlisted bare command with arguments, without a shell
// (`tools.exec.allow`). Sandboxed sessions get @switchboard/sandbox's exec instead
// (extensions/sandbox.ts).
import { execFile } from 'node:child_process';
import { type AnyAgentTool, defineTool } from '@switchboard/core-loop';
import { z } from 'zod';
import { ToolError } from './errors.ts';
import type { ExecApprovals } from './exec-approvals.ts';

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
        signal,
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

const hostExecParameters = z.object({ command: z.string(), args: z.array(z.string()).default([]) });

export interface HostExecToolOptions {
  readonly allow: readonly string[];
  /** `on-miss`: a command off the allowlist asks an operator; `off`: it is refused. */
  readonly ask: 'off' | 'on-miss';
  readonly approvals: ExecApprovals;
  readonly approvalTimeoutMs: number;
  readonly agentId: string;
  readonly sessionKey: string;
  readonly cwd: string;
  readonly timeoutMs: number;
}

/** The host exec tool; undefined when it could run nothing (an empty allowlist and no approvals). */
export function createHostExecTool(options: HostExecToolOptions): AnyAgentTool | undefined {
  const { allow } = options;
  if (allow.length === 0 && options.ask === 'off') return undefined;
  const allowed = allow.length > 0 ? `Allowed without asking: ${allow.join(', ')}.` : '';
  const asking = options.ask === 'on-miss' ? ' Other commands wait for an operator to approve them.' : '';
  return defineTool({
    name: 'exec',
    description: `Run one command on the host in your workspace, without a shell (a bare command name and its arguments). ${allowed}${asking}`,
    parameters: hostExecParameters,
    async execute(_id, args, signal) {
      let permitted = allow;
      if (
        !allow.includes(args.command) &&
        options.ask === 'on-miss' &&
        !args.command.includes('/') &&
        !args.command.includes('\\')
      ) {
        if (!(await options.approvals.isAlwaysAllowed(options.agentId, args.command))) {
          const outcome = await options.approvals.ask(
            {
              agentId: options.agentId,
              sessionKey: options.sessionKey,
              command: args.command,
              args: args.args,
            },
            options.approvalTimeoutMs,
          );
          if (outcome === 'deny')
            throw new ToolError('TOOL_EXEC_REFUSED', `the operator denied running ${args.command}`);
          if (outcome === 'timeout') {
            throw new ToolError(
              'TOOL_EXEC_REFUSED',
              `no operator approved ${args.command} within ${Math.round(options.approvalTimeoutMs / 1000)} s (tools.exec.approvalTimeoutSeconds), so it was denied`,
            );
          }
        }
        permitted = [...allow, args.command];
      }
      const result = await runAllowedCommand(
        args.command,
        args.args,
        { allow: permitted, cwd: options.cwd, timeoutMs: options.timeoutMs },
        signal,
      );
      const summary = `exit ${result.exitCode ?? result.signal}${result.timedOut ? ' (timed out)' : ''}\n${result.stdout}${result.stderr ? `\n[stderr]\n${result.stderr}` : ''}`;
      return { content: [{ type: 'text', text: summary }], details: result, isError: result.exitCode !== 0 };
    },
  });
}
