// The agent's `cron` tool: list, add, update, remove, run and runs, over the gateway's scheduler.
// A job added from a chat replies into that chat ("remind me tomorrow at 9" from Telegram).
import { type AnyAgentTool, defineTool } from '@switchboard/core-loop';
import { jobPatchSchema, jobSpecSchema } from '@switchboard/scheduler';
import { z } from 'zod';
import type { ToolSourceContext } from '../tool-registry.ts';
import type { CronService } from './service.ts';

const parameters = z.object({
  action: z
    .enum(['list', 'add', 'update', 'remove', 'run', 'runs'])
    .describe(
      'list jobs; add one (`job`); update (`jobId`, `patch`); remove, run now or show runs of `jobId`',
    ),
  jobId: z.string().min(1).optional().describe('The job for update, remove, run and runs'),
  job: jobSpecSchema
    .optional()
    .describe(
      'For add. schedule: {kind:"at", at:ISO time with offset} once, {kind:"every", everyMs}, or {kind:"cron", expr, tz}. payload: {kind:"systemEvent", text} enters this conversation; {kind:"agentTurn", message} runs alone and its reply is sent here. Replies go to this chat unless delivery says otherwise.',
    ),
  patch: jobPatchSchema.optional().describe('For update: the fields to change'),
  limit: z.number().int().min(1).max(50).optional().describe('For runs: how many (newest first)'),
});

function text(value: unknown) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }], details: value };
}

function requireJobId(jobId: string | undefined, action: string): string {
  if (jobId === undefined) throw new Error(`cron ${action} needs a jobId (see cron list)`);
  return jobId;
}

export function createCronTool(service: CronService, context: ToolSourceContext): AnyAgentTool {
  return defineTool({
    name: 'cron',
    label: 'Schedules',
    description:
      'Schedule reminders and recurring tasks (cron jobs): list, add, update, remove, run now, and show past runs. Times are ISO 8601; cron expressions have 5 or 6 fields and an optional IANA time zone.',
    parameters,
    async execute(_toolCallId, params) {
      switch (params.action) {
        case 'list':
          return text({ jobs: await service.list() });
        case 'add': {
          if (params.job === undefined) throw new Error('cron add needs a job');
          const job = await service.add(params.job, {
            agentId: context.agentId,
            sessionKey: context.sessionKey,
          });
          return text({ added: job });
        }
        case 'update':
          return text({
            updated: await service.update(requireJobId(params.jobId, 'update'), params.patch ?? {}),
          });
        case 'remove':
          return text({ removed: await service.remove(requireJobId(params.jobId, 'remove')) });
        case 'run':
          return text({ run: await service.run(requireJobId(params.jobId, 'run')) });
        case 'runs':
          return text({ runs: await service.runs(requireJobId(params.jobId, 'runs'), params.limit ?? 10) });
      }
    },
  });
}
