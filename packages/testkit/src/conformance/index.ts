// The channel conformance suite: one table of cases every channel package passes against its
// platform fake, through the real gateway pipeline. A channel contributes a driver for its
// fake; the gateway's tests provide the running gateway. Cases use node:assert, so they run
// under any test runner.
import assert from 'node:assert/strict';
import { sleep } from '@switchboard/hooks';

/** A conversation as the suite addresses it. */
export interface ConformanceConversation {
  readonly kind: 'direct' | 'group';
  /** The platform's id of the conversation (chat id, channel id, JID). */
  readonly id: string;
}

/** A message the bot sent to the platform, as the fake recorded it. */
export interface ObservedReply {
  readonly text: string;
  /** The platform message id the reply quotes or threads to, when it does. */
  readonly replyToMessageId?: string;
  readonly platformMessageId: string;
}

/** A user of the suite; the driver maps each to a platform user id. */
export type ConformanceUser = 'alice' | 'bob' | 'mallory';

/** Drives one channel's platform fake. Each channel package implements it for its fake. */
export interface ChannelConformanceDriver {
  /** The channel id (`telegram`): the key under `channels.` in the gateway config. */
  readonly channelId: string;
  /** The most characters one outbound message may have on this platform. */
  readonly textLimit: number;
  /** Starts the platform fake. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The platform user id of a suite user (allowlists are written with these). */
  userId(user: ConformanceUser): string;
  /** The group conversation the suite uses. */
  readonly group: ConformanceConversation;
  /**
   * The `channels.<id>` block pointing the channel at the fake (API base URL, token),
   * with `access` (dmPolicy, allowFrom, groups, …) merged in.
   */
  channelConfig(access: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** A user writes a DM to the bot. Resolves once the platform accepted the message. */
  sendDirect(
    user: ConformanceUser,
    text: string,
  ): Promise<{ messageId: string; conversation: ConformanceConversation }>;
  /** A user writes in the suite's group, mentioning the bot or not. */
  sendGroup(
    user: ConformanceUser,
    text: string,
    mention: boolean,
  ): Promise<{ messageId: string; conversation: ConformanceConversation }>;
  /** A user sends an image with a caption in a DM. */
  sendImage(
    user: ConformanceUser,
    caption: string,
    image: { readonly bytes: Uint8Array; readonly mimeType: string; readonly fileName: string },
  ): Promise<{ messageId: string; conversation: ConformanceConversation }>;
  /** The platform delivers an already-delivered message again (same id). */
  redeliver(messageId: string): Promise<void>;
  /** Every reply the bot sent to the conversation so far, in order. */
  replies(conversation: ConformanceConversation): readonly ObservedReply[];
  /** Resolves once the bot sent at least `count` replies to the conversation. */
  waitForReplies(
    conversation: ConformanceConversation,
    count: number,
    timeoutMs?: number,
  ): Promise<readonly ObservedReply[]>;
  /** The next `count` sends get the platform's rate-limit answer with this retry-after. */
  rateLimitNextSends(count: number, retryAfterSeconds: number): void;
  /** How many sends the platform refused with a rate limit so far. */
  rateLimitedSends(): number;
  /**
   * Called after every (re)start of the gateway with its HTTP base URL, for platforms that
   * push events to the gateway (webhooks): point the fake's webhook target there.
   */
  onGatewayStarted?(gateway: { readonly httpUrl: string }): void | Promise<void>;
  /** Extra environment variables for the gateway process (test-only switches of a channel). */
  environment?(): Readonly<Record<string, string>>;
}

/** What the gateway's `status` says about messages it did not answer (`notAnswered`). */
export interface ConformanceNotAnswered {
  /** Counts by `reason:detail` since start (`admission:not-mentioned`). */
  readonly counts: Readonly<Record<string, number>>;
  /** The newest decisions first. */
  readonly recent: ReadonlyArray<{
    readonly reason: string;
    readonly detail: string;
    readonly channel: string;
    readonly chatId?: string;
    readonly senderId?: string;
    readonly messageId?: string;
  }>;
}

/** The running gateway, as the harness in the gateway's tests provides it. */
export interface ConformanceGateway {
  /** Approves a pairing code over the gateway protocol (as `switchboard pairing approve`). */
  approvePairing(channel: string, code: string): Promise<void>;
  /** SIGKILLs the gateway process and starts it again on the same state directory. */
  crashAndRestart(): Promise<void>;
  /** Resolves when the gateway has no run running or queued. */
  settle(): Promise<void>;
  /** The `notAnswered` part of the gateway's `status` (as `switchboard status` shows it). */
  notAnswered(): Promise<ConformanceNotAnswered>;
}

/** The model behind the gateway (testkit's fake Anthropic), as the cases need it. */
export interface ConformanceModel {
  /** Scripts the next replies; when none is scripted the fake echoes the user's text. */
  script(turns: ReadonlyArray<{ readonly text: string; readonly delayMs?: number }>): void;
  /** The last user text of every model request so far, in order. */
  prompts(): readonly string[];
  /** Every model request's user content blocks of the last message (to see images). */
  lastUserContent(): unknown;
}

export interface ConformanceContext {
  readonly driver: ChannelConformanceDriver;
  readonly gateway: ConformanceGateway;
  readonly model: ConformanceModel;
}

export interface ConformanceCase {
  readonly name: string;
  run(context: ConformanceContext): Promise<void>;
}

/**
 * The access configuration the suite runs with: DM pairing (the default) with alice on the
 * allowlist, the suite's group allowlisted with mentions required.
 */
export function conformanceAccess(driver: ChannelConformanceDriver): Record<string, unknown> {
  return {
    dmPolicy: 'pairing',
    allowFrom: [driver.userId('alice')],
    groups: { [driver.group.id]: {} },
    requireMention: true,
  };
}

const pause = (ms: number) => sleep(ms);

/**
 * Resolves with the first reply in the conversation whose text matches `pattern`, waiting
 * for it. Cases wait on content rather than counts: a conversation keeps the replies of the
 * cases before it, so "at least N replies" can be true before the awaited answer arrives.
 */
export async function waitForReplyMatching(
  driver: ChannelConformanceDriver,
  conversation: ConformanceConversation,
  pattern: RegExp,
  timeoutMs = 15_000,
): Promise<ObservedReply> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const replies = driver.replies(conversation);
    const found = replies.find((reply) => pattern.test(reply.text));
    if (found !== undefined) return found;
    if (Date.now() >= deadline) {
      const recent = replies.slice(-3).map((reply) => reply.text.slice(0, 120));
      throw new assert.AssertionError({
        message: `no reply matching ${pattern} in ${conversation.kind} ${conversation.id} within ${timeoutMs} ms; last replies: ${JSON.stringify(recent)}`,
      });
    }
    await pause(25);
  }
}

function fenceBalanced(text: string): boolean {
  return (text.match(/^```/gm) ?? []).length % 2 === 0;
}

/** The cases every channel passes. */
export const channelConformanceCases: readonly ConformanceCase[] = [
  {
    name: 'echoes in a DM',
    async run({ driver, gateway, model }) {
      const { conversation } = await driver.sendDirect('alice', 'echo: the quick brown fox');
      const reply = await waitForReplyMatching(driver, conversation, /the quick brown fox/);
      assert.match(reply.text, /the quick brown fox/);
      await gateway.settle();
      assert.equal(model.prompts().at(-1), 'echo: the quick brown fox');
    },
  },
  {
    name: 'splits a long reply at the platform limit without breaking a code block',
    async run({ driver, gateway, model }) {
      const code = Array.from(
        { length: 120 },
        (_, line) => `  const value${line} = compute(${line}); // step ${line}`,
      ).join('\n');
      const prose = Array.from(
        { length: 40 },
        (_, index) => `Paragraph ${index}: ${'lorem ipsum dolor sit amet '.repeat(6)}`,
      ).join('\n\n');
      const long = `${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThat is all.`;
      assert.ok(long.length > driver.textLimit * 2, 'the scripted reply must exceed two messages');
      model.script([{ text: long }]);
      const { conversation } = await driver.sendDirect('alice', 'write a lot');
      // The last piece carries the closing sentence; everything before it is sent first.
      await waitForReplyMatching(driver, conversation, /That is all\./, 30_000);
      await gateway.settle();
      const all = driver.replies(conversation);
      const start = all.findIndex((reply) => /Paragraph 0:/.test(reply.text));
      assert.ok(start !== -1, 'the first piece of the long reply never arrived');
      const replies = all.slice(start);
      assert.ok(replies.length >= 3, `expected the reply to be split, got ${replies.length} message(s)`);
      for (const reply of replies) {
        assert.ok(
          reply.text.length <= driver.textLimit,
          `a message of ${reply.text.length} characters exceeds ${driver.textLimit}`,
        );
        assert.ok(fenceBalanced(reply.text), `a message breaks a code block:\n${reply.text.slice(0, 200)}`);
      }
      const joined = replies.map((reply) => reply.text).join('\n');
      assert.match(joined, /value0 = compute\(0\)/);
      assert.match(joined, /value119 = compute\(119\)/);
      assert.match(joined, /That is all\./);
    },
  },
  {
    name: 'gives an unknown DM sender a pairing code and never reaches the model',
    async run({ driver, gateway, model }) {
      const promptsBefore = model.prompts().length;
      const { conversation } = await driver.sendDirect('mallory', 'let me in');
      const [pairing] = await driver.waitForReplies(conversation, 1);
      assert.ok(pairing !== undefined);
      const code = /\b([A-HJ-NP-Z2-9]{8})\b/.exec(pairing.text)?.[1];
      assert.ok(code !== undefined, `no pairing code in: ${pairing.text}`);
      await driver.sendDirect('mallory', 'still there?');
      await gateway.settle();
      await pause(200);
      assert.equal(
        driver.replies(conversation).length,
        1,
        'a second message while pending must not get a new code',
      );
      assert.equal(
        model.prompts().length,
        promptsBefore,
        'nothing from an unpaired sender may reach the model',
      );
      await gateway.approvePairing(driver.channelId, code);
      await driver.sendDirect('mallory', 'paired now');
      const replies = await driver.waitForReplies(conversation, 2);
      assert.match(replies[1]?.text ?? '', /paired now/);
    },
  },
  {
    name: 'ignores a group message without a mention and answers one with a mention in the thread',
    async run({ driver, gateway, model }) {
      const before = driver.replies(driver.group).length;
      const promptsBefore = model.prompts().length;
      await driver.sendGroup('bob', 'just chatting among humans', false);
      await gateway.settle();
      await pause(200);
      assert.equal(driver.replies(driver.group).length, before);
      assert.equal(model.prompts().length, promptsBefore);
      // The operator can see why: the ignored message is in `status` with its reason.
      const { counts, recent } = await gateway.notAnswered();
      const ignored = recent.find(
        (entry) => entry.channel === driver.channelId && entry.chatId === driver.group.id,
      );
      assert.ok(
        ignored !== undefined,
        `the ignored group message is not in status: ${JSON.stringify(recent.slice(0, 3))}`,
      );
      assert.equal(`${ignored.reason}:${ignored.detail}`, 'admission:not-mentioned');
      assert.ok((counts['admission:not-mentioned'] ?? 0) >= 1);
      const { messageId } = await driver.sendGroup('bob', 'hey bot, what is 2+2?', true);
      const replies = await driver.waitForReplies(driver.group, before + 1);
      const reply = replies[before];
      assert.ok(reply !== undefined);
      assert.equal(
        reply.replyToMessageId,
        messageId,
        'a group reply threads to the message that triggered it',
      );
      assert.match(model.prompts().at(-1) ?? '', /what is 2\+2/);
    },
  },
  {
    name: 'takes media in',
    async run({ driver, gateway, model }) {
      const bytes = Uint8Array.from(
        Buffer.from(
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
          'base64',
        ),
      );
      const { conversation } = await driver.sendImage('alice', 'what is in this picture?', {
        bytes,
        mimeType: 'image/png',
        fileName: 'pixel.png',
      });
      await waitForReplyMatching(driver, conversation, /what is in this picture\?/);
      await gateway.settle();
      const content = JSON.stringify(model.lastUserContent());
      assert.match(content, /what is in this picture\?/);
      assert.match(
        content,
        /"type":"image"|pixel\.png/,
        `the model did not see the image: ${content.slice(0, 300)}`,
      );
    },
  },
  {
    name: 'retries a rate-limited send and delivers the reply',
    async run({ driver, gateway }) {
      const limitedBefore = driver.rateLimitedSends();
      driver.rateLimitNextSends(1, 1);
      const { conversation } = await driver.sendDirect('alice', 'rate limit me');
      const reply = await waitForReplyMatching(driver, conversation, /rate limit me/, 20_000);
      await gateway.settle();
      assert.ok(driver.rateLimitedSends() > limitedBefore, 'the platform never rate-limited a send');
      assert.match(reply.text, /rate limit me/);
      assert.equal(
        driver.replies(conversation).filter((candidate) => /rate limit me/.test(candidate.text)).length,
        1,
        'the retried reply was delivered more than once',
      );
    },
  },
  {
    name: 'answers the same platform message delivered twice only once',
    async run({ driver, gateway, model }) {
      const promptsBefore = model.prompts().length;
      const { messageId, conversation } = await driver.sendDirect('alice', 'deliver me twice');
      await waitForReplyMatching(driver, conversation, /deliver me twice/);
      await gateway.settle();
      const before = driver.replies(conversation).length;
      await driver.redeliver(messageId);
      await gateway.settle();
      await pause(300);
      const answers = driver.replies(conversation).filter((reply) => /deliver me twice/.test(reply.text));
      assert.equal(answers.length, 1, `answered ${answers.length} times`);
      assert.equal(driver.replies(conversation).length, before);
      assert.equal(model.prompts().filter((prompt) => prompt === 'deliver me twice').length, 1);
      assert.ok(model.prompts().length >= promptsBefore + 1);
    },
  },
  {
    name: 'survives a gateway crash mid-conversation without loss or duplicates',
    async run({ driver, gateway, model }) {
      model.script([{ text: 'slow answer to the first question', delayMs: 1500 }]);
      const { conversation } = await driver.sendDirect('alice', 'first question before the crash');
      const before = driver.replies(conversation).length;
      await pause(400);
      await gateway.crashAndRestart();
      await driver.waitForReplies(conversation, before + 1, 30_000);
      await driver.sendDirect('alice', 'second question after the restart');
      await driver.waitForReplies(conversation, before + 2, 30_000);
      await gateway.settle();
      await pause(300);
      const texts = driver
        .replies(conversation)
        .slice(before)
        .map((reply) => reply.text);
      assert.equal(texts.length, 2, `expected exactly two answers, got ${JSON.stringify(texts)}`);
      assert.equal(texts.filter((text) => /second question after the restart/.test(text)).length, 1);
    },
  },
];
