// The requester's tools: `sessions_spawn` starts a child, `subagents` lists, kills, steers
// and waits for the children of the calling session.
import { type AnyAgentTool, defineTool, thinkingLevels } from '@switchboard/core-loop';
import { z } from 'zod';
import type { SubagentManager } from './manager.ts';
import type { SubagentRunRecord } from './run-record.ts';

const spawnParameters = z.object({
  task: z.string().min(1).describe('What the subagent should do; it is its first message.'),
  label: z.string().max(80).optional().describe('A short name for the task, shown in lists.'),
  agentId: z.string().optional().describe('Another agent to run it (only when allowed).'),
  model: z.string().optional().describe('<provider>/<model>; default: yours.'),
  thinking: z.enum(thinkingLevels).optional(),
  runTimeoutSeconds: z.number().int().positive().max(86_400).optional(),
  cleanup: z
    .enum(['delete', 'keep'])
    .optional()
    .describe('delete: archive its session right after it reports.'),
});

const subagentsParameters = z.object({
  action: z.enum(['list', 'kill', 'steer', 'wait']),
  runId: z.string().optional().describe('The child run (kill, steer, wait); kill also accepts "all".'),
  message: z.string().optional().describe('steer: what to tell the running child.'),
  timeoutSeconds: z.number().positive().max(600).optional().describe('wait: how long to wait (default 60).'),
});

const text = (value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }];

function summary(record: SubagentRunRecord) {
  return {
    runId: record.runId,
    label: record.label ?? record.task.slice(0, 80),
    agentId: record.agentId,
    childSessionKey: record.childSessionKey,
    status: record.outcome ?? 'running',
    startedAt: new Date(record.startedAt).toISOString(),
    endedAt: record.endedAt === undefined ? undefined : new Date(record.endedAt).toISOString(),
    announce: record.announce.state,
    result: record.resultText,
  };
}

/** The names of the spawning tools, for operators. */
export const subagentToolNames = ['sessions_spawn', 'subagents'] as const;

/** The tools of one session: none for a session at the maximum depth (a leaf). */
export function subagentTools(
  manager: SubagentManager,
  scope: { readonly sessionKey: string; readonly agentId: string },
): AnyAgentTool[] {
  if (!manager.canSpawn(scope.sessionKey)) return [];
  const mine = async (runId: string | undefined) => {
    const records = await manager.list(scope.sessionKey);
    return runId === undefined ? undefined : records.find((record) => record.runId === runId);
  };
  return [
    defineTool({
      name: 'sessions_spawn',
      description:
        'Start a subagent on a task in its own session. Returns at once; when it ends, its result arrives here as a message and you tell the user.',
      parameters: spawnParameters,
      async execute(_id, args) {
        const result = await manager.spawn({
          requesterSessionKey: scope.sessionKey,
          requesterAgentId: scope.agentId,
          task: args.task,
          label: args.label,
          agentId: args.agentId,
          model: args.model,
          thinking: args.thinking,
          runTimeoutSeconds: args.runTimeoutSeconds,
          cleanup: args.cleanup,
        });
        return {
          content: text(result),
          details: result,
          ...(result.status === 'forbidden' ? { isError: true } : {}),
        };
      },
    }),
    defineTool({
      name: 'subagents',
      description:
        'Your subagents: list them, kill one (or all), steer a running one, or wait for one to finish.',
      parameters: subagentsParameters,
      async execute(_id, args) {
        switch (args.action) {
          case 'list': {
            const records = await manager.list(scope.sessionKey);
            return { content: text(records.map(summary)) };
          }
          case 'kill': {
            const targets =
              args.runId === 'all'
                ? (await manager.list(scope.sessionKey)).filter((record) => record.outcome === undefined)
                : [await mine(args.runId)].filter((record) => record !== undefined);
            if (targets.length === 0)
              return { content: text({ error: 'no such running subagent of yours' }), isError: true };
            const stopped: string[] = [];
            for (const record of targets) stopped.push(...(await manager.kill(record.runId)));
            return { content: text({ stopped }) };
          }
          case 'steer': {
            const record = await mine(args.runId);
            if (record === undefined || args.message === undefined)
              return {
                content: text({ error: 'steer needs one of your running runIds and a message' }),
                isError: true,
              };
            return { content: text({ steered: await manager.steer(record.runId, args.message) }) };
          }
          case 'wait': {
            const record = await mine(args.runId);
            if (record === undefined)
              return { content: text({ error: 'no such subagent of yours' }), isError: true };
            const ended = await manager.wait(record.runId, (args.timeoutSeconds ?? 60) * 1000);
            return { content: text(ended === undefined ? { status: 'running' } : summary(ended)) };
          }
        }
      },
    }),
  ];
}
