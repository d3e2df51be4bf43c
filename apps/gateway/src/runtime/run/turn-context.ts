// What a turn sends the model: its model (with before_model_resolve), tools, system prompt
// (bootstrap files, before_prompt_build / before_agent_start), media and the user message.
import { readFile } from 'node:fs/promises';
import type { AnyAgentTool } from '@switchboard/core-loop';
import type { HookRunner, ImageContent, InboundMedia, Logger, UserMessage } from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import type { GatewayConfig } from '../../config/schema.ts';
import type { PromptSectionRegistry } from '../../extensions/prompt-sections.ts';
import type { SendMessage, ToolRegistry } from '../../extensions/tool-registry.ts';
import { agentConfigOf } from '../model-selection.ts';
import type { TurnInput } from '../turn-input.ts';

export interface TurnContextServices {
  readonly store: SessionStore;
  readonly hooks: HookRunner;
  readonly logger: Logger;
  readonly now: () => number;
  readonly tools: ToolRegistry;
  readonly promptSections: PromptSectionRegistry;
  readonly workspaceFor: (agentId: string) => string;
}

export interface TurnScope {
  readonly sessionKey: string;
  readonly agentId: string;
  readonly runId: string;
  readonly channel: string;
}

export interface TurnContextRequest {
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
}

export interface TurnContext {
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

    async build({ config, scope, sessionId, last, reference, sendMessage, ...request }) {
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
        ...(last.senderId === undefined ? {} : { senderId: last.senderId }),
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
          ...(agentConfig?.name === undefined ? {} : { agentName: agentConfig.name }),
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

      const media = await loadMedia(last.media ?? [], logger);
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

/** Images the model accepts inline; larger ones are described instead. */
const maxInlineImageBytes = 5 * 1024 * 1024;

/**
 * Turns a channel message's media into what the model sees: images (read from the file the
 * channel downloaded, or fetched from a plain URL) as image blocks, anything else as a line
 * of text naming it.
 */
async function loadMedia(
  media: readonly InboundMedia[],
  logger: Logger,
): Promise<{ images: ImageContent[]; notes: string[] }> {
  const images: ImageContent[] = [];
  const notes: string[] = [];
  for (const item of media) {
    const label = `[${item.kind}${item.fileName === undefined ? '' : `: ${item.fileName}`}${item.mimeType === undefined ? '' : ` (${item.mimeType})`}]`;
    if (item.kind !== 'image' && item.kind !== 'sticker') {
      notes.push(label);
      continue;
    }
    try {
      let bytes: Buffer | undefined;
      if (item.path !== undefined) bytes = await readFile(item.path);
      else if (item.url !== undefined && /^https?:/.test(item.url)) {
        const response = await fetch(item.url, { signal: AbortSignal.timeout(15_000) });
        if (response.ok) bytes = Buffer.from(await response.arrayBuffer());
      }
      if (bytes === undefined || bytes.length > maxInlineImageBytes) {
        notes.push(label);
        continue;
      }
      images.push({
        type: 'image',
        mediaType: item.mimeType ?? 'image/jpeg',
        data: bytes.toString('base64'),
      });
      if (item.fileName !== undefined) notes.push(label);
    } catch (error) {
      logger.warn('could not read inbound media', { kind: item.kind, error: String(error) });
      notes.push(label);
    }
  }
  return { images, notes };
}
