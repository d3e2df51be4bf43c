// The gateway's own contributions, registered like any feature's: the confined built-in
// tools, the plugins' tools, the core prompt sections and the Anthropic Messages API.
import type { AnyAgentTool } from '@switchboard/core-loop';
import { coreSections, createBootstrapLoader } from '../prompt/system-prompt.ts';
import { anthropicMessagesModel } from '../runtime/models.ts';
import { createBuiltinTools } from '../tools/builtin.ts';
import { openWorkspace, type WorkspaceFiles } from '../tools/workspace-files.ts';
import type { GatewayExtension } from './extension.ts';

export const coreExtension: GatewayExtension = {
  id: 'core',
  setup(context) {
    /** By workspace path: a reload that moves an agent's workspace opens the new one. */
    const workspaces = new Map<string, Promise<WorkspaceFiles>>();
    const workspace = (path: string): Promise<WorkspaceFiles> => {
      let files = workspaces.get(path);
      if (files === undefined) {
        files = openWorkspace(path);
        workspaces.set(path, files);
      }
      return files;
    };

    context.tools.register({
      id: 'builtin',
      async tools({ config, workspaceDir, sendMessage }) {
        return createBuiltinTools({
          workspace: await workspace(workspaceDir),
          webFetch: config.tools.webFetch ?? {},
          sendMessage,
        });
      },
    });

    context.tools.register({
      id: 'plugins',
      tools({ agentId, sessionKey, channel, accountId, senderId, workspaceDir }) {
        const tools: AnyAgentTool[] = [];
        for (const registration of context.plugins.tools()) {
          const tool =
            'create' in registration.tool
              ? registration.tool.create({
                  agentId,
                  sessionKey,
                  channel,
                  accountId,
                  senderId,
                  workspaceDir,
                })
              : registration.tool;
          // A plugin tool is the structural twin of core-loop's AgentTool (hooks' PluginTool).
          if (tool !== undefined) tools.push(tool as unknown as AnyAgentTool);
        }
        return tools;
      },
    });

    for (const section of coreSections(createBootstrapLoader())) context.promptSections.register(section);

    context.modelProviders.register({
      api: 'anthropic-messages',
      async load() {
        const { createAnthropicProvider } = await import('@switchboard/core-loop/anthropic');
        return createAnthropicProvider({});
      },
      createModel: (settings) => anthropicMessagesModel('anthropic-messages', settings),
    });
  },
};
