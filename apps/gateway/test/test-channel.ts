// A channel plugin for gateway tests: it implements the channel contract in memory, so the
// pipeline's channel path (access, pairing, journal, delivery, receipts) is tested without a
// platform. The real channels are tested against platform fakes in their own packages.
import {
  type ChannelAccount,
  type ChannelPlugin,
  type ChannelStartContext,
  type ConversationTarget,
  defineChannelConfig,
  definePlugin,
  type IgnoredMessageReport,
  type InboundMessage,
  type OutboundMessage,
  type ReceiveOutcome,
  SwitchboardError,
  z,
} from '@switchboard/hooks';

export interface SentMessage {
  readonly accountId: string;
  readonly message: OutboundMessage;
  readonly id: string;
}

export interface TestChannel {
  readonly plugin: ReturnType<typeof definePlugin>;
  readonly sent: SentMessage[];
  readonly typing: ConversationTarget[];
  /** The data directory each started account was given. */
  readonly dataDirectories: Map<string, string>;
  /** Delivers an inbound message as the platform would; resolves with the gateway's answer. */
  receive(message: Partial<InboundMessage> & { text: string }, accountId?: string): Promise<ReceiveOutcome>;
  /** Reports a message the channel's own admission refused, as a channel would (`context.reportIgnored`). */
  reportIgnored(report: IgnoredMessageReport, accountId?: string): void;
  waitForSent(count: number, timeoutMs?: number): Promise<SentMessage[]>;
  /** Makes the next `send` calls fail (platform down); `retryable` marks them safe to retry. */
  failNextSends(count: number, retryable?: boolean): void;
}

let counter = 0;

export function createTestChannel(options: { id?: string; textLimit?: number } = {}): TestChannel {
  const id = options.id ?? 'testchat';
  const contexts = new Map<string, ChannelStartContext>();
  const sent: SentMessage[] = [];
  const typing: ConversationTarget[] = [];
  const dataDirectories = new Map<string, string>();
  const waiters: Array<() => void> = [];
  let failures = 0;
  let failRetryable = false;
  const config = defineChannelConfig(z.object({ label: z.string().optional() }));
  const channel: ChannelPlugin = {
    id,
    label: 'Test chat',
    capabilities: {
      chatTypes: ['direct', 'group'],
      threads: true,
      media: false,
      edits: false,
      typing: true,
      reactions: false,
      textLimit: options.textLimit ?? 500,
      markup: 'markdown',
    },
    config: config as ChannelPlugin['config'],
    async start(context): Promise<ChannelAccount> {
      contexts.set(context.accountId, context as ChannelStartContext);
      dataDirectories.set(context.accountId, context.dataDirectory);
      context.registerHttpRoute({
        path: `/hooks/${id}/${context.accountId}`,
        auth: 'plugin',
        methods: ['POST'],
        handler: (_request, response) => {
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ account: context.accountId }));
        },
      });
      context.setStatus({ state: 'connected', detail: 'in memory' });
      return {
        async send(message) {
          if (failures > 0) {
            failures -= 1;
            if (failRetryable)
              throw new SwitchboardError('TEST_UNAVAILABLE', 'platform unavailable (503)', {
                retryable: true,
                details: { retryAfterMs: 10 },
              });
            throw new Error('platform unavailable');
          }
          counter += 1;
          const messageId = `out-${counter}`;
          sent.push({ accountId: context.accountId, message, id: messageId });
          for (const wake of waiters.splice(0)) wake();
          return { messageIds: [messageId] };
        },
        async typing(target) {
          typing.push(target);
        },
        async stop() {
          contexts.delete(context.accountId);
        },
      };
    },
  };
  const plugin = definePlugin({
    name: `${id}-channel`,
    version: '1.0.0',
    specVersion: 1,
    setup(api) {
      api.registerChannel(channel);
    },
  });
  return {
    plugin,
    sent,
    typing,
    dataDirectories,
    receive(partial, accountId = 'default') {
      const context = contexts.get(accountId);
      if (context === undefined) throw new Error(`account ${accountId} is not started`);
      counter += 1;
      const senderId = partial.sender?.id ?? 'user-1';
      const base = {
        channel: id,
        accountId,
        messageId: partial.messageId ?? `in-${counter}`,
        sender: partial.sender ?? { id: senderId, name: 'Ada' },
        text: partial.text,
        timestamp: Date.now(),
      };
      const message: InboundMessage =
        partial.chatType === 'group' || partial.chatType === 'channel'
          ? ({
              ...base,
              chatType: partial.chatType,
              peer: partial.peer ?? { kind: 'group', id: 'room-1' },
              wasMentioned: (partial as { wasMentioned?: boolean }).wasMentioned ?? false,
              thread: partial.thread,
            } as InboundMessage)
          : { ...base, chatType: 'direct', peer: { kind: 'direct', id: senderId } };
      return context.receive(message);
    },
    reportIgnored(report, accountId = 'default') {
      const context = contexts.get(accountId);
      if (context === undefined) throw new Error(`account ${accountId} is not started`);
      context.reportIgnored(report);
    },
    async waitForSent(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (sent.length < count) {
        const remaining = deadline - Date.now();
        if (remaining <= 0)
          throw new Error(
            `expected ${count} sent messages, have ${sent.length}: ${JSON.stringify(sent.map((entry) => entry.message))}`,
          );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, remaining);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return sent.slice(0, count);
    },
    failNextSends(count, retryable = false) {
      failures = count;
      failRetryable = retryable;
    },
  };
}

/** The text of a sent message (empty for media or a missing entry). */
export function sentText(entry: SentMessage | undefined): string {
  return entry?.message.kind === 'text' ? entry.message.text : '';
}
