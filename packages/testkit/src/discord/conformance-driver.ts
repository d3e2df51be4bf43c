// The channel conformance driver for Discord: the suite's users, DMs and group mapped onto a
// FakeDiscord. The group is a guild text channel; a mention is `<@botId>` in the content, as
// the Discord client writes it, and the fake lists the bot in `mentions`.
import type {
  ChannelConformanceDriver,
  ConformanceConversation,
  ConformanceUser,
  ObservedReply,
} from '../conformance/index.ts';
import {
  createFakeDiscord,
  discordContentLimit,
  type FakeDiscord,
  type FakeDiscordGuild,
  type FakeDiscordOptions,
} from './fake-discord.ts';
import type { DiscordApiMessage } from './types.ts';

export interface DiscordConformanceDriverOptions {
  /** Options of the FakeDiscord behind the driver. */
  readonly fake?: FakeDiscordOptions;
  /**
   * How long a user's message waits for the bot to be connected to the fake's gateway
   * (Discord only delivers to connected bots). Default 20 s.
   */
  readonly sessionWaitMs?: number;
}

/** The driver, plus the fake and its world for tests that go beyond the suite. */
export interface DiscordConformanceDriver extends ChannelConformanceDriver {
  readonly fake: FakeDiscord;
  readonly guild: FakeDiscordGuild;
}

const sendPath = /^\/channels\/\d+\/messages$/;

/** Creates the Discord conformance driver (its fake starts with `start()`). */
export function createDiscordConformanceDriver(
  options: DiscordConformanceDriverOptions = {},
): DiscordConformanceDriver {
  const fake = createFakeDiscord(options.fake);
  const sessionWaitMs = options.sessionWaitMs ?? 20_000;
  const users: Record<ConformanceUser, string> = {
    alice: fake.addUser({ username: 'alice', globalName: 'Alice' }).id,
    bob: fake.addUser({ username: 'bob', globalName: 'Bob' }).id,
    mallory: fake.addUser({ username: 'mallory', globalName: 'Mallory' }).id,
  };
  const guild = fake.addGuild({ name: 'Conformance', channels: [{ name: 'general' }] });
  const groupChannelId = guild.channels.general!;
  for (const user of Object.values(users)) fake.setMember(guild.id, user);
  const group: ConformanceConversation = { kind: 'group', id: groupChannelId };

  const channelOf = (conversation: ConformanceConversation): string =>
    conversation.kind === 'direct' ? fake.dmChannel(conversation.id).id : conversation.id;
  const observed = (message: DiscordApiMessage): ObservedReply => ({
    text: message.content,
    platformMessageId: message.id,
    replyToMessageId: message.message_reference?.message_id,
  });
  const connected = () => fake.waitForSession({ timeoutMs: sessionWaitMs });
  /** The newest message per channel that the bot is expected to answer (DMs, mentions). */
  const awaitingAnswer = new Map<string, string>();
  const expectAnswer = (message: DiscordApiMessage): void => {
    awaitingAnswer.set(message.channel_id, message.id);
  };
  /** True once the bot posted something after the newest message it is expected to answer. */
  const answered = (channelId: string): boolean => {
    const expected = awaitingAnswer.get(channelId);
    if (expected === undefined) return true;
    const messages = fake.messages(channelId);
    const index = messages.findIndex((message) => message.id === expected);
    return messages.slice(index + 1).some((message) => message.author.id === fake.bot.id);
  };

  return {
    channelId: 'discord',
    textLimit: discordContentLimit,
    fake,
    guild,
    group,
    async start() {
      await fake.start();
    },
    stop: () => fake.close(),
    userId: (user) => users[user],
    channelConfig(access) {
      return { token: fake.token, restApi: fake.restApi, ...access };
    },
    async sendDirect(user, text) {
      await connected();
      const message = fake.sendDirect(users[user], text);
      expectAnswer(message);
      return { messageId: message.id, conversation: { kind: 'direct', id: users[user] } };
    },
    async sendGroup(user, text, mention) {
      await connected();
      const content = mention ? `<@${fake.bot.id}> ${text}` : text;
      const message = fake.sendToChannel(groupChannelId, users[user], content);
      if (mention) expectAnswer(message);
      return { messageId: message.id, conversation: group };
    },
    async sendImage(user, caption, image) {
      await connected();
      const message = fake.sendDirect(users[user], caption, {
        attachments: [{ bytes: image.bytes, fileName: image.fileName, contentType: image.mimeType }],
      });
      expectAnswer(message);
      return { messageId: message.id, conversation: { kind: 'direct', id: users[user] } };
    },
    async redeliver(messageId) {
      await connected();
      fake.redeliver(messageId);
    },
    replies: (conversation) => fake.botMessages(channelOf(conversation)).map(observed),
    // At least `count` replies, and (so a case that counts from 1 in a long conversation
    // sees the answer to what it just sent) a reply after the newest message the bot is
    // expected to answer.
    async waitForReplies(conversation, count, timeoutMs = 15_000) {
      const channelId = channelOf(conversation);
      await fake.waitFor(
        () => fake.botMessages(channelId).length >= count && answered(channelId),
        `${count} repl(ies) in ${conversation.kind} ${conversation.id}, the newest message answered`,
        { timeoutMs },
      );
      return fake.botMessages(channelId).map(observed);
    },
    rateLimitNextSends(count, retryAfterSeconds) {
      fake.rateLimitNext({ count, retryAfterSeconds, method: 'POST', path: sendPath });
    },
    rateLimitedSends: () => fake.rateLimitedCount,
  };
}
