import { type ThinkingLevel, thinkingLevels } from '@switchboard/core-loop';
import type { HookRunner, InboundMessage, PluginRegistry } from '@switchboard/hooks';
import { matchResetTrigger, type SessionDispatcher, type SessionStore } from '@switchboard/sessions';
import type { LiveConfig } from './live-config.ts';
import { normalizeModelReference, resolveModelReference, resolveThinkingLevel } from './model-selection.ts';
import type { ModelCatalog } from './models.ts';
import type { TurnInput } from './turn-input.ts';

export type DirectiveOutcome =
  /** Not a directive: run the text as usual. */
  | { readonly kind: 'none' }
  /** Answered without the model; `reply` goes back to the conversation. */
  | { readonly kind: 'handled'; readonly reply?: string }
  /** A directive that also carries a prompt (`/new tell me a joke`). */
  | { readonly kind: 'continue'; readonly text: string; readonly reply?: string }
  /** `/compact`: queue a compaction in the session's lane. */
  | { readonly kind: 'compact' };

export interface DirectiveContext {
  readonly text: string;
  readonly sessionKey: string;
  readonly agentId: string;
  readonly channel: string;
  /** The channel message, when it came from one (plugin commands receive it). */
  readonly message?: InboundMessage;
}

export interface DirectiveDependencies {
  /** Read when a directive runs, so a reload applies to the next one. */
  readonly config: LiveConfig;
  readonly store: SessionStore;
  readonly hooks: HookRunner;
  readonly registry: PluginRegistry;
  readonly catalog: ModelCatalog;
  readonly dispatcher: SessionDispatcher<TurnInput>;
  readonly now: () => number;
}

/** Splits `/name@bot rest` into the command name and its arguments. */
function parseSlashCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([a-z0-9][a-z0-9_-]*)(?:@\S+)?(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (match === null) return undefined;
  return { name: match[1]!.toLowerCase(), args: (match[2] ?? '').trim() };
}

/**
 * The chat directives authorized senders can use: `/stop`, `/new` and `/reset` (and any
 * configured reset trigger), `/status`, `/model`, `/think`, `/compact`, `/help`, plus the
 * commands plugins register.
 */
export function createDirectives(dependencies: DirectiveDependencies) {
  const { store, hooks, registry, catalog, now } = dependencies;
  const config = () => dependencies.config.current();

  async function resetSession(context: DirectiveContext, reason: 'new' | 'reset'): Promise<void> {
    dependencies.dispatcher.abort(context.sessionKey, { clearQueue: true });
    const session = await store.getSession(context.sessionKey);
    if (session === undefined) return;
    if (hooks.has('before_reset')) {
      const built = await store.buildContext(context.sessionKey);
      await hooks.run('before_reset', {
        sessionKey: context.sessionKey,
        agentId: context.agentId,
        reason,
        messages: built.messages,
      });
    }
    const result = await store.resetSession(context.sessionKey, { reason });
    if (hooks.has('session_end')) {
      void hooks.run('session_end', {
        sessionKey: context.sessionKey,
        agentId: context.agentId,
        sessionId: result.previousSessionId,
        reason,
      });
    }
    if (hooks.has('session_start')) {
      void hooks.run('session_start', {
        sessionKey: context.sessionKey,
        agentId: context.agentId,
        sessionId: result.entry.sessionId,
        channel: context.channel,
      });
    }
  }

  async function status(context: DirectiveContext): Promise<string> {
    const session = await store.getSession(context.sessionKey);
    const lane = dependencies.dispatcher.status(context.sessionKey);
    const reference = resolveModelReference(config(), context.agentId, session);
    let window = '';
    try {
      const model = catalog.resolve(reference).model;
      const used = session?.tokens.context;
      window =
        used === undefined
          ? ` (window ${model.contextWindow.toLocaleString('en')})`
          : ` — context ${used.toLocaleString('en')} / ${model.contextWindow.toLocaleString('en')} tokens`;
    } catch {
      window = '';
    }
    return [
      `Agent: ${context.agentId}`,
      `Session: ${context.sessionKey}${session === undefined ? ' (new)' : ''}`,
      `Model: ${reference}${window}`,
      `Thinking: ${resolveThinkingLevel(config(), context.agentId, session)}`,
      `Tokens so far: ${session?.tokens.input ?? 0} in, ${session?.tokens.output ?? 0} out`,
      `Run: ${lane.active === undefined ? 'idle' : lane.active.phase}${lane.queued > 0 ? `, ${lane.queued} queued` : ''}`,
    ].join('\n');
  }

  return {
    async handle(context: DirectiveContext): Promise<DirectiveOutcome> {
      const trigger = matchResetTrigger(context.text, config().session.resetTriggers);
      if (trigger !== undefined) {
        await resetSession(context, trigger.reason);
        const rest = trigger.remainder.trim();
        return rest.length > 0
          ? { kind: 'continue', text: rest }
          : { kind: 'handled', reply: 'New session started.' };
      }
      const command = parseSlashCommand(context.text);
      if (command === undefined) return { kind: 'none' };
      switch (command.name) {
        case 'stop': {
          const result = dependencies.dispatcher.abort(context.sessionKey, { clearQueue: true });
          return {
            kind: 'handled',
            reply: result.aborted || result.cleared > 0 ? 'Stopped.' : 'Nothing is running.',
          };
        }
        case 'status':
          return { kind: 'handled', reply: await status(context) };
        case 'compact':
          return { kind: 'compact' };
        case 'model': {
          if (command.args === '') {
            const session = await store.getSession(context.sessionKey);
            return {
              kind: 'handled',
              reply: `Model: ${resolveModelReference(config(), context.agentId, session)}. Use /model <provider>/<model> to change it, /model default to go back.`,
            };
          }
          await store.ensureSession(context.sessionKey, { agentId: context.agentId });
          if (command.args === 'default') {
            await store.patchSession(context.sessionKey, { modelOverride: null, providerOverride: null });
            return { kind: 'handled', reply: 'Model reset to the default.' };
          }
          const reference = normalizeModelReference(command.args);
          try {
            catalog.resolve(reference);
          } catch (error) {
            return { kind: 'handled', reply: (error as Error).message };
          }
          await store.patchSession(context.sessionKey, {
            modelOverride: reference,
            providerOverride: reference.split('/')[0] ?? null,
          });
          return { kind: 'handled', reply: `Model set to ${reference}.` };
        }
        case 'think': {
          const level = command.args.toLowerCase() as ThinkingLevel;
          if (!thinkingLevels.includes(level))
            return { kind: 'handled', reply: `Use /think ${thinkingLevels.join('|')}.` };
          await store.ensureSession(context.sessionKey, { agentId: context.agentId });
          await store.patchSession(context.sessionKey, { thinkingLevel: level });
          return { kind: 'handled', reply: `Thinking set to ${level}.` };
        }
        case 'help': {
          const lines = [
            '/new or /reset — start a new session',
            '/stop — stop the current reply',
            '/status — session, model and token usage',
            '/model [provider/model|default] — show or change the model',
            '/think off|minimal|low|medium|high|xhigh — thinking level',
            '/compact — summarize older messages now',
            ...registry
              .commands()
              .map((registration) => `/${registration.command.name} — ${registration.command.description}`),
          ];
          return { kind: 'handled', reply: lines.join('\n') };
        }
        default: {
          const registration = registry.command(command.name);
          if (registration === undefined || context.message === undefined) return { kind: 'none' };
          const result = await registration.command.handler({
            command: command.name,
            args: command.args,
            message: context.message,
            sessionKey: context.sessionKey,
            agentId: context.agentId,
          });
          return result === undefined ? { kind: 'handled' } : { kind: 'handled', reply: result.text };
        }
      }
    },
    now,
  };
}

export type Directives = ReturnType<typeof createDirectives>;
