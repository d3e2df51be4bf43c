// Subagents (issue 23): the spawning tools for sessions below the depth limit, the manager
// that watches children and announces their results once the gateway runs, and the
// operators' `subagents.list` / `subagents.kill` methods.
import { definePlugin, SwitchboardError } from '@switchboard/hooks';
import { resolveDefaultAgentId } from '@switchboard/routing';
import { subagentsDirective } from '../subagents/directive.ts';
import { createSubagentManager } from '../subagents/manager.ts';
import { findRun, readRunLog } from '../subagents/run-log.ts';
import { sessionToolNames, sessionTools } from '../subagents/session-tools.ts';
import { subagentToolNames, subagentTools } from '../subagents/tools.ts';
import type { ExtensionRuntime, GatewayExtension } from './extension.ts';
import { toolPolicyOf } from './tool-policy.ts';

function stringParam(params: unknown, name: string): string | undefined {
  const value = (params as Record<string, unknown> | null | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new SwitchboardError('INVALID_PARAMS', `${name} must be a non-empty string`);
  return value;
}

function optionalPositiveInteger(
  params: unknown,
  name: 'limit' | 'before',
): { limit?: number; before?: number } {
  const value = (params as Record<string, unknown> | null | undefined)?.[name];
  if (value === undefined) return {};
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new SwitchboardError('INVALID_PARAMS', `${name} must be a positive integer`);
  return { [name]: value };
}

export const subagentsExtension: GatewayExtension = {
  id: 'subagents',
  async setup(context) {
    const manager = createSubagentManager({
      config: context.config,
      store: context.store,
      logger: context.logger,
      hooks: context.hooks,
      now: context.now,
    });
    let runtime: ExtensionRuntime | undefined;
    context.tools.register({
      id: 'subagents',
      tools: ({ sessionKey, agentId }) => subagentTools(manager, { sessionKey, agentId }),
    });
    // Agent-to-agent tools; a leaf at the maximum depth gets none (like the spawning tools).
    context.tools.register({
      id: 'sessions',
      tools: ({ config, sessionKey, agentId, runId }) =>
        manager.canSpawn(sessionKey)
          ? sessionTools(
              { store: context.store, runtime: () => runtime, now: context.now },
              { config, sessionKey, agentId, runId },
            )
          : [],
    });
    /** Which of these tools an agent's sessions get, and why any is left out (policy, depth). */
    const toolsStatus = (params: unknown) => {
      const config = context.config();
      const agentId = (stringParam(params, 'agentId') ?? resolveDefaultAgentId(config)).toLowerCase();
      const sessionKey = stringParam(params, 'sessionKey') ?? `agent:${agentId}:main`;
      const policy = toolPolicyOf(config, agentId);
      const leaf = !manager.canSpawn(sessionKey);
      const offered = [
        ...subagentToolNames.map((name) => ({ name, source: 'subagents' })),
        ...sessionToolNames.map((name) => ({ name, source: 'sessions' })),
      ];
      return {
        agentId,
        sessionKey,
        tools: offered.map(({ name, source }) => {
          if (leaf)
            return {
              name,
              source,
              offered: false,
              reason: 'depth',
              detail: `${sessionKey} is at agents.defaults.subagents.maxSpawnDepth`,
            };
          const verdict = policy.check(name, source);
          return verdict === undefined
            ? { name, source, offered: true }
            : { name, source, offered: false, ...verdict };
        }),
      };
    };
    await context.plugins.register(
      definePlugin({
        name: 'subagents',
        version: '1.0.0',
        specVersion: 1,
        description: 'Subagent runs for operators: subagents.list, .kill, .log, .tools, and /subagents',
        setup(api) {
          api.registerGatewayMethod('subagents.list', async (params) => ({
            runs: await manager.list(stringParam(params, 'requesterSessionKey')),
          }));
          api.registerGatewayMethod('subagents.tools', toolsStatus);
          api.registerGatewayMethod('subagents.log', async (params) => {
            const runId = stringParam(params, 'runId');
            if (runId === undefined) throw new SwitchboardError('INVALID_PARAMS', 'runId is required');
            const found = findRun(await manager.list(), runId);
            if ('error' in found) throw new SwitchboardError('NOT_FOUND', `subagents.log: ${found.error}`);
            return {
              run: found,
              log: await readRunLog(context.store, found, {
                ...optionalPositiveInteger(params, 'limit'),
                ...optionalPositiveInteger(params, 'before'),
              }),
            };
          });
          api.registerCommand(subagentsDirective({ manager, store: context.store, now: context.now }));
          api.registerGatewayMethod('subagents.kill', async (params) => {
            const runId = stringParam(params, 'runId');
            if (runId === undefined) throw new SwitchboardError('INVALID_PARAMS', 'runId is required');
            return { stopped: await manager.kill(runId) };
          });
        },
      }),
    );
    context.onStart((running) => {
      runtime = running;
      return manager.start(running);
    });
    context.onStop(() => manager.stop());
  },
};
