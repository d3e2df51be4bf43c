// The channel example of the README, verbatim; readme-examples.test.ts runs it against a
// local fake of the platform.
// (The one change: `export default` names its type, as this repo's isolatedDeclarations requires.)
import {
  type ChannelAccount,
  type ChannelPlugin,
  defineChannelConfig,
  definePlugin,
  type InboundMessage,
  type PluginDefinition,
  SwitchboardError,
  z,
} from '@switchboard/hooks';

// The account configuration: your fields only. dmPolicy, allowFrom, groupPolicy, groups,
// requireMention and enabled are added for you, with safe defaults.
export interface ExampleAccount {
  readonly token: string;
  readonly apiBase: string;
}

const accountSchema = z.object({
  token: z.string().min(1),
  apiBase: z.url().default('https://chat.example.com/api'),
});

export interface ExampleChannelOptions {
  /** Replaces fetch, for tests. */
  readonly fetch?: typeof fetch;
}

export function createExampleChannel(options: ExampleChannelOptions = {}): ChannelPlugin<ExampleAccount> {
  const http = options.fetch ?? fetch;
  return {
    id: 'example',
    label: 'Example Chat',
    capabilities: {
      chatTypes: ['direct', 'group'],
      threads: false,
      media: false,
      edits: true,
      typing: true,
      reactions: false,
      textLimit: 4000,
      markup: 'markdown',
    },
    config: defineChannelConfig(accountSchema),
    async start(context): Promise<ChannelAccount> {
      const { account, signal } = context;
      const call = async (method: string, body: unknown) => {
        const response = await http(`${account.apiBase}/${method}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal,
        });
        if (!response.ok) {
          throw new SwitchboardError('EXAMPLE_API_ERROR', `${method} failed with HTTP ${response.status}`, {
            retryable: response.status === 429 || response.status >= 500,
          });
        }
        return (await response.json()) as Record<string, unknown>;
      };

      context.setStatus({ state: 'starting' });
      const me = await call('me', {});
      context.setStatus({ state: 'connected', identity: { id: String(me.id) } });

      // The receive loop runs in the background until the signal aborts.
      const loop = (async () => {
        let offset = 0;
        while (!signal.aborted) {
          try {
            const { events } = (await call('poll', { offset })) as { events: PlatformEvent[] };
            for (const event of events) {
              // Resolves once the gateway journaled (or deliberately dropped) the message.
              // Only then advance the offset: a crash before this point redelivers it.
              await context.receive(toInbound(event, context.accountId));
              offset = event.seq + 1;
            }
          } catch (error) {
            if (signal.aborted) break;
            context.setStatus({ state: 'reconnecting', error: String(error) });
            await new Promise((resolve) => setTimeout(resolve, 1_000));
            context.setStatus({ state: 'connected' });
          }
        }
      })();

      return {
        async send(message) {
          const text = message.kind === 'text' ? message.text : (message.caption ?? '');
          const sent = await call('send', { to: message.peer.id, text, replyTo: message.replyToMessageId });
          return { messageIds: [String(sent.id)] };
        },
        async edit(request) {
          await call('edit', { to: request.peer.id, id: request.messageId, text: request.text });
          return { messageId: request.messageId };
        },
        async typing(target) {
          await call('typing', { to: target.peer.id });
        },
        async stop() {
          await loop; // the gateway aborted `signal` before calling stop
          context.setStatus({ state: 'stopped' });
        },
      };
    },
  };
}

interface PlatformEvent {
  seq: number;
  id: string;
  chat: { id: string; type: 'private' | 'group'; title?: string };
  from: { id: string; name: string };
  text: string;
  date: number;
  mentionsMe: boolean;
}

function toInbound(event: PlatformEvent, accountId: string): InboundMessage {
  const core = {
    channel: 'example',
    accountId,
    messageId: event.id,
    sender: { id: event.from.id, name: event.from.name },
    text: event.text,
    timestamp: event.date * 1000,
    raw: event,
  };
  return event.chat.type === 'private'
    ? { ...core, chatType: 'direct', peer: { kind: 'direct', id: event.from.id } }
    : {
        ...core,
        chatType: 'group',
        peer: { kind: 'group', id: event.chat.id, name: event.chat.title },
        wasMentioned: event.mentionsMe,
      };
}

const plugin: PluginDefinition = definePlugin({
  name: 'example',
  version: '1.0.0',
  specVersion: 1,
  setup(api) {
    api.registerChannel(createExampleChannel());
  },
});

export default plugin;
