// Subagents (issue 23): the spawning tools for sessions below the depth limit, the manager
// that watches children and announces their results once the gateway runs, and the
// operators' `subagents.list` / `subagents.kill` methods.
import { definePlugin, SwitchboardError } from '@switchboard/hooks';
import { createSubagentManager } from '../subagents/manager.ts';
import { subagentTools } from '../subagents/tools.ts';
import type { GatewayExtension } from './extension.ts';

function stringParam(params: unknown, name: string): string | undefined {
  const value = (params as Record<string, unknown> | null | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new SwitchboardError('INVALID_PARAMS', `${name} must be a non-empty string`);
  return value;
}

export const subagentsExtension: GatewayExtension = {
  id: 'subagents',
  async setup(context) {
    const manager = createSubagentManager({
      config: context.config,
      store: context.store,
      logger: context.logger,
      now: context.now,
    });
    context.tools.register({
      id: 'subagents',
      tools: ({ sessionKey, agentId }) => subagentTools(manager, { sessionKey, agentId }),
    });
    await context.plugins.register(
      definePlugin({
        name: 'subagents',
        version: '1.0.0',
        specVersion: 1,
        description: 'Subagent runs: subagents.list and subagents.kill for operators',
        setup(api) {
          api.registerGatewayMethod('subagents.list', async (params) => ({
            runs: await manager.list(stringParam(params, 'requesterSessionKey')),
          }));
          api.registerGatewayMethod('subagents.kill', async (params) => {
            const runId = stringParam(params, 'runId');
            if (runId === undefined) throw new SwitchboardError('INVALID_PARAMS', 'runId is required');
            return { stopped: await manager.kill(runId) };
          });
        },
      }),
    );
    context.onStart((runtime) => manager.start(runtime));
    context.onStop(() => manager.stop());
  },
};
