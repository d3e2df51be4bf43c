import { type AnyAgentTool, defineTool } from '@switchboard/core-loop';
import { z } from 'zod';
import { sandboxWorkspacePath } from './bwrap-arguments.ts';
import { SandboxError } from './errors.ts';
import { truncationNote } from './output-log.ts';
import type { SandboxPolicy } from './policy.ts';
import type { JobPoll, JobSummary } from './process-registry.ts';
import type { ExecOutcome, Sandbox } from './sandbox.ts';

const text = (value: string) => [{ type: 'text' as const, text: value }];

// Module-level schemas: core-loop caches the JSON Schema per schema object.
const execParameters = z.object({
  command: z.string().min(1).describe('Shell command, run with bash -lc'),
  workdir: z
    .string()
    .optional()
    .describe(`Working directory, relative to ${sandboxWorkspacePath} (the default)`),
  env: z.record(z.string(), z.string()).optional().describe('Extra environment variables'),
  timeoutSeconds: z.number().positive().optional().describe('Wall-time limit in seconds'),
  background: z.boolean().optional().describe('Start as a background job and return at once'),
  yieldMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Move the command to the background if it still runs after this many ms (default 10000)'),
});

const processParameters = z.object({
  action: z.enum(['list', 'poll', 'log', 'write', 'kill']),
  jobId: z.string().optional().describe('The job id exec returned (all actions but list)'),
  data: z.string().optional().describe('Text to write to the job stdin (write)'),
  eof: z.boolean().optional().describe('Close stdin after writing (write)'),
  offset: z.number().int().nonnegative().optional().describe('Byte offset to read the log from (log)'),
  limit: z.number().int().positive().optional().describe('Most bytes to return (poll, log)'),
});

/** Who the tools run for: one session of one agent. */
export interface SandboxToolsContext {
  readonly sandbox: Sandbox;
  readonly sessionKey: string;
  /** The host folder shown at /workspace. */
  readonly workspaceHostPath: string;
  readonly policy: SandboxPolicy;
}

/** The `exec` tool's details (what `after_tool_call` and transcripts see besides the text). */
export type ExecToolDetails =
  | {
      readonly type: 'exited';
      readonly exitCode: number | null;
      readonly signal: string | null;
      readonly timedOut: boolean;
      readonly killed: boolean;
      readonly durationMs: number;
      readonly outputBytes: number;
      readonly droppedBytes: number;
    }
  | { readonly type: 'backgrounded'; readonly jobId: string; readonly pid: number };

/** The `process` tool's details: the listed jobs, or the one job acted on. */
interface ProcessToolDetails {
  readonly jobs?: readonly JobSummary[];
  readonly job?: JobSummary;
  readonly nextOffset?: number;
}

function describeExec(policy: SandboxPolicy): string {
  const network = policy.network ? 'Network access is on.' : 'There is no network access.';
  const workspace =
    policy.workspaceAccess === 'ro'
      ? `Your workspace is at ${sandboxWorkspacePath}, read-only; write scratch files to /tmp.`
      : `Your workspace is at ${sandboxWorkspacePath} (read-write); the rest of the system is read-only, /tmp is private and emptied after each command.`;
  return `Run a shell command (bash) in a sandbox. ${workspace} ${network} Limits: ${policy.limits.timeoutSeconds} s wall time by default, ${policy.limits.memoryMegabytes} MiB memory, ${policy.limits.processes} processes, the last ${policy.limits.outputBytes} bytes of output. Long-running commands: background true (or they move to the background after yieldMs), then the process tool.`;
}

function exitLine(outcome: Extract<ExecOutcome, { type: 'exited' }>): string {
  const { exit } = outcome;
  if (exit.timedOut) return `killed: timed out after ${Math.round(exit.durationMs / 1000)} s`;
  if (exit.killed) return 'killed';
  if (exit.signal !== null) return `terminated by ${exit.signal}`;
  return `exit ${exit.exitCode}`;
}

function jobLine(job: JobSummary): string {
  if (job.status === 'running') return `${job.jobId} running (pid ${job.pid}): ${job.command}`;
  const exit = job.exit;
  const how = exit?.timedOut
    ? 'timed out'
    : exit?.killed
      ? 'killed'
      : `exit ${exit?.exitCode ?? exit?.signal}`;
  return `${job.jobId} ${how}: ${job.command}`;
}

function pollText(poll: JobPoll): string {
  const note = poll.droppedBytes > 0 ? `${truncationNote(poll.droppedBytes, poll.job.outputBytes)}\n` : '';
  return `${jobLine(poll.job)}\n${note}${poll.text || '(no new output)'}`;
}

function requireJobId(jobId: string | undefined, action: string): string {
  if (jobId === undefined) {
    throw new SandboxError('SANDBOX_INVALID_ARGUMENT', `process ${action} needs a jobId (see process list)`);
  }
  return jobId;
}

/** The `exec` and `process` tools of one session, running in the sandbox. */
export function createSandboxTools(context: SandboxToolsContext): AnyAgentTool[] {
  const { sandbox, sessionKey, workspaceHostPath, policy } = context;
  const exec = defineTool<typeof execParameters, ExecToolDetails>({
    name: 'exec',
    label: 'Shell',
    description: describeExec(policy),
    parameters: execParameters,
    async execute(_id, args, signal) {
      const outcome = await sandbox.exec({
        sessionKey,
        workspaceHostPath,
        policy,
        command: args.command,
        workdir: args.workdir,
        env: args.env,
        timeoutSeconds: args.timeoutSeconds,
        background: args.background,
        yieldMs: args.yieldMs,
        signal,
      });
      if (outcome.type === 'backgrounded') {
        const details: ExecToolDetails = {
          type: 'backgrounded',
          jobId: outcome.job.jobId,
          pid: outcome.job.pid,
        };
        return {
          content: text(
            `Running in the background as ${outcome.job.jobId}. Use the process tool (poll for new output, kill to stop).${outcome.output ? `\nOutput so far:\n${outcome.output}` : ''}`,
          ),
          details,
        };
      }
      const details: ExecToolDetails = {
        type: 'exited',
        exitCode: outcome.exit.exitCode,
        signal: outcome.exit.signal,
        timedOut: outcome.exit.timedOut,
        killed: outcome.exit.killed,
        durationMs: outcome.exit.durationMs,
        outputBytes: outcome.outputBytes,
        droppedBytes: outcome.droppedBytes,
      };
      return {
        content: text(`${exitLine(outcome)}\n${outcome.output}`),
        details,
        isError: outcome.exit.exitCode !== 0,
      };
    },
  });

  const processTool = defineTool<typeof processParameters, ProcessToolDetails>({
    name: 'process',
    label: 'Background jobs',
    description:
      'Manage background jobs started by exec: list; poll (output since the last poll); log (kept output from offset); write (text to stdin, eof closes it); kill.',
    parameters: processParameters,
    async execute(_id, args) {
      const jobs = sandbox.processes;
      switch (args.action) {
        case 'list': {
          const list = jobs.list(sessionKey);
          return {
            content: text(list.map(jobLine).join('\n') || '(no background jobs)'),
            details: { jobs: list },
          };
        }
        case 'poll': {
          const poll = jobs.poll(sessionKey, requireJobId(args.jobId, 'poll'), args.limit);
          return { content: text(pollText(poll)), details: { job: poll.job, nextOffset: poll.nextOffset } };
        }
        case 'log': {
          const poll = jobs.log(sessionKey, requireJobId(args.jobId, 'log'), args.offset, args.limit);
          return { content: text(pollText(poll)), details: { job: poll.job, nextOffset: poll.nextOffset } };
        }
        case 'write': {
          const job = await jobs.write(
            sessionKey,
            requireJobId(args.jobId, 'write'),
            args.data ?? '',
            args.eof === true,
          );
          return {
            content: text(`Wrote ${Buffer.byteLength(args.data ?? '')} bytes to ${job.jobId}.`),
            details: { job },
          };
        }
        case 'kill': {
          const job = await jobs.kill(sessionKey, requireJobId(args.jobId, 'kill'));
          return { content: text(jobLine(job)), details: { job } };
        }
      }
    },
  });
  return [exec, processTool];
}
