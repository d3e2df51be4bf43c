// What a turn sends the model: its model (with before_model_resolve), tools, system prompt
// (bootstrap files, before_prompt_build / before_agent_start), media and the user message.
import type { AnyAgentTool } from '@switchboard/core-loop';
import type { HookRunner, Logger, UserMessage } from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import type { GatewayConfig } from '../../config/schema.ts';
import type { PromptSectionRegistry } from '../../extensions/prompt-sections.ts';
import type { SendMessage, ToolRegistry } from '../../extensions/tool-registry.ts';
import type { ChannelManager } from '../channels.ts';
import { agentConfigOf } from '../model-selection.ts';
import type { TurnInput } from '../turn-input.ts';
import { loadInboundMedia } from './inbound-media.ts';

export interface TurnContextServices {
  readonly store: SessionStore;
  readonly hooks: HookRunner;
  readonly logger: Logger;
  readonly now: () => number;
  readonly tools: ToolRegistry;
  readonly promptSections: PromptSectionRegistry;
  readonly workspaceFor: (agentId: string) => string;
  /** The accounts whose `downloadMedia` fetches a channel message's media (inbound-media.ts). */
  readonly channels: Pick<ChannelManager, 'account'>;
}

export interface TurnScope {
  readonly sessionKey: string;
  readonly agentId: string;
  readonly runId: string;
  readonly channel: string;
}

interface TurnContextRequest {
  readonly config: GatewayConfig;
  readonly scope: TurnScope;
  /** The session's current id (it changes on reset): per-session caches key on it. */
  readonly sessionId: string;
  readonly last: TurnInput;
  readonly prompt: string;
  /** `<provider>/<model>` of the first attempt (before_prompt_build sees it). */
  readonly reference: string;
  /** The `message` tool's way out. */
  readonly sendMessage: SendMessage;
  /** The run's signal: stops a media download when the turn is aborted. */
  readonly signal: AbortSignal;
}

interface TurnContext {
  readonly systemPrompt: string;
  readonly tools: AnyAgentTool[];
  readonly userMessage: UserMessage;
}

export interface TurnContextBuilder {
  /** The model reference of a turn after before_model_resolve. */
  resolveModel(scope: TurnScope, prompt: string, reference: string): Promise<string>;
  build(request: TurnContextRequest): Promise<TurnContext>;
}

export function createTurnContextBuilder(services: TurnContextServices): TurnContextBuilder {
  const { store, hooks, logger, now } = services;
  const dateFormatters = new Map<string, Intl.DateTimeFormat>();
  const dateFormatter = (timeZone: string): Intl.DateTimeFormat => {
    let formatter = dateFormatters.get(timeZone);
    if (formatter === undefined) {
      formatter = new Intl.DateTimeFormat('en-CA', { timeZone });
      dateFormatters.set(timeZone, formatter);
    }
    return formatter;
  };

  return {
    async resolveModel(scope, prompt, reference) {
      if (!hooks.has('before_model_resolve')) return reference;
      const [provider = 'anthropic', ...rest] = reference.split('/');
      const outcome = await hooks.run('before_model_resolve', {
        ...scope,
        prompt,
        provider,
        model: rest.join('/'),
      });
      if (outcome.modelOverride !== undefined || outcome.providerOverride !== undefined) {
        return `${outcome.providerOverride ?? provider}/${outcome.modelOverride ?? rest.join('/')}`;
      }
      return reference;
    },

    async build({ config, scope, sessionId, last, reference, sendMessage, signal, ...request }) {
      const { agentId, sessionKey } = scope;
      let prompt = request.prompt;
      const agentConfig = agentConfigOf(config, agentId);
      const workspaceDir = services.workspaceFor(agentId);
      const resolved = await services.tools.resolve({
        config,
        agentId,
        sessionKey,
        sessionId,
        runId: scope.runId,
        channel: last.channel,
        accountId: last.accountId,
        senderId: last.senderId,
        workspaceDir,
        sendMessage,
      });
      for (const excluded of resolved.excluded) {
        if (excluded.reason === 'source_failed' || excluded.reason === 'duplicate')
          logger.warn('tool left out of the turn', { agentId, ...excluded });
      }
      const usableTools: AnyAgentTool[] = resolved.tools;
      const timeZone = config.agents.defaults.timeZone ?? 'UTC';
      let systemPrompt = await services.promptSections.assemble(
        {
          config,
          agentId,
          agentName: agentConfig?.name,
          sessionKey,
          sessionId,
          workspaceDir,
          tools: usableTools.map((tool) => ({ name: tool.name, description: tool.description })),
          ...(last.origin === 'channel' ? { channel: { name: last.channel, chatType: last.chatType } } : {}),
          date: dateFormatter(timeZone).format(now()),
          timeZone,
        },
        (section, error) => logger.warn('prompt section left out', { section, error: String(error) }),
      );

      if (hooks.has('before_prompt_build') || hooks.has('before_agent_start')) {
        const context = await store.buildContext(sessionKey);
        const [provider = 'anthropic', ...rest] = reference.split('/');
        const built = hooks.has('before_prompt_build')
          ? await hooks.run('before_prompt_build', {
              ...scope,
              prompt,
              messages: context.messages,
              systemPrompt,
              provider,
              model: rest.join('/'),
            })
          : {};
        const started = hooks.has('before_agent_start')
          ? await hooks.run('before_agent_start', { ...scope, prompt, messages: context.messages })
          : {};
        for (const outcome of [built, started]) {
          if (outcome.systemPrompt !== undefined) systemPrompt = outcome.systemPrompt;
          if (outcome.prependSystemContext !== undefined)
            systemPrompt = `${outcome.prependSystemContext}\n\n${systemPrompt}`;
          if (outcome.appendSystemContext !== undefined)
            systemPrompt = `${systemPrompt}\n\n${outcome.appendSystemContext}`;
          if (outcome.prependContext !== undefined) prompt = `${outcome.prependContext}\n\n${prompt}`;
          if (outcome.appendContext !== undefined) prompt = `${prompt}\n\n${outcome.appendContext}`;
        }
      }

      // Admitted media is fetched only now (decision 0026): a refused message never downloads.
      const media =
        last.media === undefined || last.media.length === 0
          ? { images: [], notes: [] }
          : await loadInboundMedia(
              last.media,
              { channel: last.channel, accountId: last.accountId, messageId: last.ref.messageId },
              { channels: services.channels, logger },
              signal,
            );
      if (media.notes.length > 0)
        prompt = prompt.trim() === '' ? media.notes.join('\n') : `${prompt}\n\n${media.notes.join('\n')}`;
      const images = [...(last.images ?? []), ...media.images];
      const userMessage: UserMessage = {
        role: 'user',
        content: images.length === 0 ? prompt : [{ type: 'text', text: prompt }, ...images],
        timestamp: now(),
      };
      return { systemPrompt, tools: usableTools, userMessage };
    },
  };
}
