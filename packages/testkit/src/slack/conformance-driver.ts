// The channel conformance driver for Slack: the suite's users and group live in one fake
// workspace; events reach the gateway over HTTP (signed POSTs to the account's route on the
// gateway's own server) or over Socket Mode, depending on `mode`.
import type {
  ChannelConformanceDriver,
  ConformanceConversation,
  ConformanceUser,
  ObservedReply,
} from '../conformance/index.ts';
import { TestkitError } from '../shared/errors.ts';
import { createFakeSlack, type FakeSlack } from './fake-slack.ts';
import type { FakeSlackMessage } from './types.ts';

export interface SlackConformanceDriverOptions {
  /** How the channel receives events: the Events API over HTTP, or Socket Mode. */
  readonly mode: 'http' | 'socket';
  /** The gateway's account id (the HTTP route is `/slack/<accountId>/events`). Default `default`. */
  readonly accountId?: string;
}

/** The conformance driver, plus the fake behind it for extra assertions. */
export interface SlackConformanceDriver extends ChannelConformanceDriver {
  /** The running fake (after `start()`). */
  readonly fake: FakeSlack;
  readonly mode: 'http' | 'socket';
}

const teamId = 'T0CONFORM';
const botUserId = 'U0SWITCHBD';
const userIds: Readonly<Record<ConformanceUser, string>> = {
  alice: 'U0ALICE',
  bob: 'U0BOB',
  mallory: 'U0MALLORY',
};
const groupChannel = 'C0SUITEGRP';
const textLimit = 4000;

/** A conformance driver for `@switchboard/channel-slack` against {@link createFakeSlack}. */
export function createSlackConformanceDriver(options: SlackConformanceDriverOptions): SlackConformanceDriver {
  const accountId = options.accountId ?? 'default';
  let running: FakeSlack | undefined;
  /** The Slack events of each message id the suite was given, for redelivery. */
  const eventsByMessage = new Map<string, string[]>();

  const fake = (): FakeSlack => {
    if (running === undefined) {
      throw new TestkitError('TESTKIT_NOT_STARTED', 'Slack conformance driver: used before start() resolved');
    }
    return running;
  };
  const channelOf = (conversation: ConformanceConversation) =>
    conversation.kind === 'direct' ? fake().directChannel(conversation.id).id : conversation.id;
  const toReply = (message: FakeSlackMessage): ObservedReply => ({
    // As the user sees it: Slack shows its &amp; &lt; &gt; escapes as the characters.
    text: message.text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'),
    replyToMessageId: message.threadTs === undefined ? undefined : `${message.channel}:${message.threadTs}`,
    platformMessageId: `${message.channel}:${message.ts}`,
  });

  async function post(
    user: ConformanceUser,
    channel: string,
    text: string,
    conversation: ConformanceConversation,
    files?: Parameters<FakeSlack['postUserMessage']>[0]['files'],
  ): Promise<{ messageId: string; conversation: ConformanceConversation }> {
    const posted = await fake().postUserMessage({
      user: userIds[user],
      channel,
      text,
      files,
    });
    const messageId = `${posted.message.channel}:${posted.message.ts}`;
    eventsByMessage.set(
      messageId,
      posted.events.map((event) => event.eventId),
    );
    if (!posted.delivered) {
      throw new Error(
        `the gateway did not acknowledge the Slack event(s) of ${messageId}: ${JSON.stringify(
          posted.events.map((event) => event.attempts),
        )}`,
      );
    }
    return { messageId, conversation };
  }

  const driver: SlackConformanceDriver = {
    channelId: 'slack',
    textLimit,
    mode: options.mode,
    get fake() {
      return fake();
    },
    group: { kind: 'group', id: groupChannel },
    async start() {
      running = await createFakeSlack({
        workspaces: [
          {
            teamId,
            teamName: 'Conformance',
            botToken: 'xoxb-conformance-token',
            appToken: 'xapp-conformance-token',
            signingSecret: 'conformance-signing-secret',
            botUserId,
            botId: 'B0SWITCHBD',
            delivery: options.mode,
            // The bot's own posts come back as events, as on Slack: the channel must ignore them.
            echoBotMessages: true,
          },
        ],
        // Long enough to ride out a gateway restart (the crash case).
        http: { retryDelaysMs: [100, 250, 500, 1000, 2000, 4000, 8000] },
        socket: { maxRetries: 5 },
      }).start();
      running.addUser({ id: userIds.alice, name: 'alice', realName: 'Alice Example' });
      running.addUser({ id: userIds.bob, name: 'bob', realName: 'Bob Example' });
      running.addUser({ id: userIds.mallory, name: 'mallory', realName: 'Mallory Example' });
      running.addChannel({ id: groupChannel, name: 'suite-group' });
    },
    async stop() {
      await running?.close();
    },
    userId: (user) => userIds[user],
    channelConfig(access) {
      const workspace = fake().workspace(teamId);
      return {
        mode: options.mode,
        botToken: workspace.botToken,
        slackApiUrl: fake().slackApiUrl,
        ...(options.mode === 'http'
          ? { signingSecret: workspace.signingSecret }
          : { appToken: workspace.appToken }),
        ...access,
      };
    },
    sendDirect(user, text) {
      const conversation: ConformanceConversation = { kind: 'direct', id: userIds[user] };
      return post(user, channelOf(conversation), text, conversation);
    },
    sendGroup(user, text, mention) {
      return post(user, groupChannel, mention ? `<@${botUserId}> ${text}` : text, driver.group);
    },
    sendImage(user, caption, image) {
      const file = fake().uploadUserFile({
        user: userIds[user],
        name: image.fileName,
        mimetype: image.mimeType,
        bytes: image.bytes,
      });
      const conversation: ConformanceConversation = { kind: 'direct', id: userIds[user] };
      return post(user, channelOf(conversation), caption, conversation, [file]);
    },
    async redeliver(messageId) {
      const eventIds = eventsByMessage.get(messageId);
      if (eventIds === undefined) {
        throw new TestkitError(
          'TESTKIT_INVALID_OPTIONS',
          `Slack conformance driver: unknown message id ${messageId}`,
        );
      }
      for (const eventId of eventIds) await fake().redeliver(eventId);
    },
    replies: (conversation) => fake().botMessages(channelOf(conversation)).map(toReply),
    async waitForReplies(conversation, count, timeoutMs = 15_000) {
      const messages = await fake().waitForBotMessages(channelOf(conversation), count, timeoutMs);
      return messages.map(toReply);
    },
    rateLimitNextSends(count, retryAfterSeconds) {
      fake().rateLimit('chat.postMessage', count, retryAfterSeconds);
    },
    rateLimitedSends: () => fake().rateLimitedCount('chat.postMessage'),
    onGatewayStarted({ httpUrl }) {
      if (options.mode === 'http') fake().setRequestUrl(`${httpUrl}/slack/${accountId}/events`, teamId);
    },
  };
  return driver;
}
