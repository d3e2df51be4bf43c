// The channel conformance driver for Telegram: the suite's users and group, played on a
// FakeTelegram, with the `channels.telegram` block that points the channel at it.
import type {
  ChannelConformanceDriver,
  ConformanceConversation,
  ConformanceUser,
  ObservedReply,
} from '../conformance/index.ts';
import { createFakeTelegram, type FakeTelegram, type SentTelegramMessage } from './fake-telegram.ts';
import type { TelegramChat, TelegramUpdate } from './types.ts';

export interface TelegramConformanceDriverOptions {
  /**
   * `polling` (default): the channel long-polls the fake. `webhook`: the channel registers
   * a webhook and the fake POSTs updates to the gateway's HTTP server.
   */
  readonly mode?: 'polling' | 'webhook';
}

/** The driver, plus the fake behind it for tests that want to look closer. */
export interface TelegramConformanceDriver extends ChannelConformanceDriver {
  readonly fake: FakeTelegram;
}

const userIds: Readonly<Record<ConformanceUser, number>> = { alice: 1001, bob: 1002, mallory: 1003 };
const groupId = -1_001_234_567_890;
const webhookSecret = 'conformance-secret_0123456789';

/** Refers to a message the way the channel does: `<chat id>:<message id>`. */
function messageRef(chatId: number | string, messageId: number): string {
  return `${chatId}:${messageId}`;
}

export function createTelegramConformanceDriver(
  options: TelegramConformanceDriverOptions = {},
): TelegramConformanceDriver {
  const mode = options.mode ?? 'polling';
  const fake = createFakeTelegram();
  const pushed = new Map<string, TelegramUpdate>();
  let group: TelegramChat | undefined;

  const chatOf = (user: ConformanceUser): TelegramChat => {
    fake.user(userIds[user], { firstName: user[0]!.toUpperCase() + user.slice(1), username: user });
    return fake.privateChat(userIds[user]);
  };

  const remember = (update: TelegramUpdate) => {
    const message = update.message!;
    const ref = messageRef(message.chat.id, message.message_id);
    pushed.set(ref, update);
    return ref;
  };

  const observed = (message: SentTelegramMessage): ObservedReply => ({
    text: message.text,
    platformMessageId: messageRef(message.chatId, message.messageId),
    replyToMessageId:
      message.replyToMessageId === undefined
        ? undefined
        : messageRef(message.chatId, message.replyToMessageId),
  });

  const driver: TelegramConformanceDriver = {
    channelId: 'telegram',
    textLimit: 4096,
    fake,
    group: { kind: 'group', id: String(groupId) },
    async start() {
      await fake.start();
      group = fake.groupChat({ id: groupId, title: 'Conformance group' });
      for (const user of Object.keys(userIds) as ConformanceUser[]) chatOf(user);
    },
    stop: () => fake.close(),
    userId: (user) => String(userIds[user]),
    channelConfig(access) {
      return {
        botToken: fake.token,
        apiRoot: fake.apiRoot,
        pollingTimeoutSeconds: 2,
        ...(mode === 'webhook'
          ? {
              webhook: {
                url: 'https://bot.example.test/telegram/default/webhook',
                secretToken: webhookSecret,
              },
            }
          : {}),
        ...access,
      };
    },
    async sendDirect(user, text) {
      const chat = chatOf(user);
      const ref = remember(fake.pushMessage({ chat, text }));
      return { messageId: ref, conversation: { kind: 'direct', id: String(chat.id) } };
    },
    async sendGroup(user, text, mention) {
      chatOf(user);
      const content = mention ? fake.mentionBot(text) : { text };
      const ref = remember(fake.pushMessage({ chat: group!, from: userIds[user], ...content }));
      return { messageId: ref, conversation: driver.group };
    },
    async sendImage(user, caption, image) {
      const chat = chatOf(user);
      const ref = remember(
        fake.pushPhoto({
          chat,
          caption,
          bytes: image.bytes,
          mimeType: image.mimeType,
          fileName: image.fileName,
        }),
      );
      return { messageId: ref, conversation: { kind: 'direct', id: String(chat.id) } };
    },
    async redeliver(messageId) {
      const update = pushed.get(messageId);
      if (update === undefined)
        throw new Error(`redeliver: no message ${messageId} was sent through the driver`);
      fake.redeliver(update);
    },
    replies(conversation: ConformanceConversation) {
      return fake.messagesIn(conversation.id).map(observed);
    },
    async waitForReplies(conversation, count, timeoutMs = 15_000) {
      const messages = await fake.waitForMessages(conversation.id, count, timeoutMs);
      return messages.map(observed);
    },
    rateLimitNextSends(count, retryAfterSeconds) {
      fake.injectFault({ type: 'rate_limit', retryAfterSeconds }, { method: 'sendMessage', times: count });
    },
    rateLimitedSends() {
      return fake.requests.filter(
        (request) =>
          request.status === 429 && request.method.startsWith('send') && request.method !== 'sendChatAction',
      ).length;
    },
    ...(mode === 'webhook'
      ? {
          onGatewayStarted({ httpUrl }: { readonly httpUrl: string }) {
            fake.setWebhookOrigin(httpUrl);
          },
        }
      : {}),
  };
  return driver;
}
