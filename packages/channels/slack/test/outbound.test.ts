// Sending through bolt's WebClient to the fake Slack: mrkdwn and splitting, threads, edits
// (throttled), files upload v2, the typing status, rate limits and dead tokens.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OutboundMessage, sendWithRetry } from '@switchboard/hooks';
import { createFakeSlack, type FakeSlack } from '@switchboard/testkit/slack';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackChannelOptions } from '../src/index.ts';
import { type Harness, startHarness } from './harness.ts';

const text = (peerId: string, body: string, extra: Partial<OutboundMessage> = {}): OutboundMessage =>
  ({
    kind: 'text',
    channel: 'slack',
    accountId: 'default',
    peer: peerId.startsWith('U') ? { kind: 'direct', id: peerId } : { kind: 'channel', id: peerId },
    text: body,
    ...extra,
  }) as OutboundMessage;

describe('sending to Slack', () => {
  let fake: FakeSlack;
  let harness: Harness;
  /** The injected clock and sleep: waits are recorded and advance the clock, nothing sleeps. */
  let clock: number;
  let waits: number[];

  async function start(channel: SlackChannelOptions = {}) {
    const workspace = fake.workspace();
    harness = await startHarness({
      config: {
        mode: 'http',
        botToken: workspace.botToken,
        signingSecret: workspace.signingSecret,
        slackApiUrl: fake.slackApiUrl,
      },
      channel: {
        now: () => clock,
        sleep: async (milliseconds) => {
          waits.push(milliseconds);
          clock += milliseconds;
        },
        ...channel,
      },
    });
    fake.setRequestUrl(`${harness.httpUrl}/slack/default/events`);
  }

  beforeEach(async () => {
    clock = 1_700_000_000_000;
    waits = [];
    fake = await createFakeSlack({ workspaces: [{ teamId: 'T0OUT' }] }).start();
    fake.addUser({ id: 'U0ALICE', name: 'alice' });
    fake.addChannel({ id: 'C0ROOM', name: 'room' });
    await start();
  });
  afterEach(async () => {
    await harness?.stop();
    await fake?.close();
  });

  it('opens the DM of a user it never heard from and posts mrkdwn there', async () => {
    const result = await harness.account.send(text('U0ALICE', '# Hi\n**bold** & _it_'));
    expect(fake.callsTo('conversations.open')).toMatchObject([{ ok: true, params: { users: 'U0ALICE' } }]);
    const dm = fake.directChannel('U0ALICE').id;
    expect(fake.botMessages(dm).map((message) => [message.text, message.mrkdwn])).toEqual([
      ['*Hi*\n*bold* &amp; _it_', true],
    ]);
    expect(result.messageIds).toEqual([`${dm}:${fake.botMessages(dm)[0]?.ts}`]);
    await harness.account.send(text('U0ALICE', 'again'));
    expect(fake.callsTo('conversations.open')).toHaveLength(1);
  });

  it('splits text that grows past 4000 characters in mrkdwn, keeping code blocks whole', async () => {
    // 3900 characters of Markdown that escaping makes longer than Slack's 4000.
    const code = Array.from({ length: 250 }, (_, index) => `a<b&&c>${index}`).join('\n');
    const markdown = `intro\n\n\`\`\`js\n${code}\n\`\`\`\n\nthe end`;
    expect(markdown.length).toBeLessThanOrEqual(4000);
    const result = await harness.account.send(text('C0ROOM', markdown));
    const messages = fake.botMessages('C0ROOM');
    expect(messages.length).toBeGreaterThan(1);
    expect(result.messageIds).toHaveLength(messages.length);
    for (const message of messages) {
      expect(message.text.length).toBeLessThanOrEqual(4000);
      expect((message.text.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    expect(messages.at(-1)?.text.endsWith('the end')).toBe(true);
  });

  it('threads a reply under replyToMessageId and posts into threadId', async () => {
    const parent = await harness.account.send(text('C0ROOM', 'parent'));
    const parentTs = parent.messageIds[0]!.split(':')[1]!;
    await harness.account.send(text('C0ROOM', 'child', { replyToMessageId: parent.messageIds[0]! }));
    await harness.account.send(text('C0ROOM', 'grandchild', { threadId: parentTs }));
    expect(fake.botMessages('C0ROOM').map((message) => [message.text, message.threadTs])).toEqual([
      ['parent', undefined],
      ['child', parentTs],
      ['grandchild', parentTs],
    ]);
  });

  it('edits with chat.update, and coalesces rapid edits of one message (throttled streaming)', async () => {
    const [messageId] = (await harness.account.send(text('C0ROOM', 'draft'))).messageIds;
    const target = { peer: { kind: 'channel' as const, id: 'C0ROOM' }, messageId: messageId! };
    await harness.account.edit!({ ...target, text: 'draft **one**' });
    // Two more edits while the interval since the first has not passed: only the newest is written.
    const second = harness.account.edit!({ ...target, text: 'draft two' });
    const third = harness.account.edit!({ ...target, text: 'final' });
    await expect(Promise.all([second, third])).resolves.toEqual([{ messageId }, { messageId }]);
    const [message] = fake.botMessages('C0ROOM');
    expect(message?.text).toBe('final');
    expect(message?.edits).toEqual(['draft', 'draft *one*']);
    expect(fake.callsTo('chat.update')).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it('rejects an edit of an id that is not <channel>:<ts>', async () => {
    await expect(
      harness.account.edit!({ peer: { kind: 'channel', id: 'C0ROOM' }, messageId: 'not-a-ts', text: 'x' }),
    ).rejects.toMatchObject({ code: 'SLACK_INVALID_TARGET', retryable: false });
  });

  it('uploads files with files upload v2, with the caption and in the thread', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'slack-upload-'));
    const path = join(directory, 'notes.txt');
    writeFileSync(path, 'file on disk');
    const parent = await harness.account.send(text('C0ROOM', 'parent'));
    const parentTs = parent.messageIds[0]!.split(':')[1]!;
    const result = await harness.account.send({
      kind: 'media',
      channel: 'slack',
      accountId: 'default',
      peer: { kind: 'channel', id: 'C0ROOM' },
      threadId: parentTs,
      caption: 'two **files**',
      media: [
        {
          kind: 'image',
          source: { type: 'bytes', data: new Uint8Array([137, 80, 78, 71]) },
          mimeType: 'image/png',
        },
        { kind: 'document', source: { type: 'path', path } },
      ],
    });
    expect(fake.callsTo('files.getUploadURLExternal').map((call) => call.params.filename)).toEqual([
      'attachment-1.png',
      'notes.txt',
    ]);
    const shared = fake.botMessages('C0ROOM').slice(1);
    expect(
      shared.map((message) => [message.text, message.threadTs, message.files.map((file) => file.name)]),
    ).toEqual([
      ['two *files*', parentTs, ['attachment-1.png']],
      ['', parentTs, ['notes.txt']],
    ]);
    expect(Buffer.from(shared[1]!.files[0]!.bytes!).toString()).toBe('file on disk');
    expect(shared[0]?.files[0]?.mimetype).toBe('image/png');
    expect(result.messageIds).toEqual(shared.map((message) => message.files[0]!.id));
  });

  it('fails an unreadable attachment with SLACK_MEDIA_FAILED before calling Slack', async () => {
    await expect(
      harness.account.send({
        kind: 'media',
        channel: 'slack',
        accountId: 'default',
        peer: { kind: 'channel', id: 'C0ROOM' },
        media: [{ kind: 'document', source: { type: 'path', path: '/nonexistent/file.pdf' } }],
      }),
    ).rejects.toMatchObject({ code: 'SLACK_MEDIA_FAILED', message: expect.stringContaining('file.pdf') });
    expect(fake.callsTo('files.getUploadURLExternal')).toHaveLength(0);
  });

  it('shows the typing status in the thread of the last message, and stops trying when the app cannot', async () => {
    await fake.postUserMessage({
      user: 'U0ALICE',
      channel: 'C0ROOM',
      text: `<@${fake.workspace().botUserId}> hi`,
    });
    const [trigger] = await harness.waitForJournaled(1);
    const ts = trigger!.messageId.split(':')[1];
    await harness.account.typing!({ peer: { kind: 'channel', id: 'C0ROOM' } });
    expect(fake.statuses('C0ROOM')).toEqual([{ threadTs: ts, status: 'is typing…' }]);
    // A DM without a thread has no assistant thread to show a status in.
    await harness.account.typing!({ peer: { kind: 'direct', id: 'U0ALICE' } });
    expect(fake.callsTo('assistant.threads.setStatus')).toHaveLength(1);

    fake.fail('assistant.threads.setStatus', { type: 'error', error: 'missing_scope' });
    await harness.account.typing!({ peer: { kind: 'channel', id: 'C0ROOM' } });
    await harness.account.typing!({ peer: { kind: 'channel', id: 'C0ROOM' } });
    expect(fake.callsTo('assistant.threads.setStatus')).toHaveLength(2);
  });

  /** Sends the way the gateway does: through `sendWithRetry`, the one retry layer, on the test clock. */
  const sendRetried = (message: OutboundMessage) =>
    sendWithRetry(harness.account, message, {
      sleep: async (milliseconds) => {
        waits.push(milliseconds);
        clock += milliseconds;
      },
    });

  it("makes one call on a rate limit and fails retryable with Slack's Retry-After, never waiting itself", async () => {
    fake.rateLimit('chat.postMessage', 1, 3);
    await expect(harness.account.send(text('C0ROOM', 'once'))).rejects.toMatchObject({
      code: 'SLACK_RATE_LIMITED',
      retryable: true,
      details: { retryAfterMs: 3000 },
    });
    expect(waits).toEqual([]);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(harness.account.sendRetry).toEqual({ attempts: 4, maxWaitMs: 60_000 });
  });

  it('waits out a rate limit for as long as Slack asks, then delivers', async () => {
    fake.rateLimit('chat.postMessage', 2, 3);
    await sendRetried(text('C0ROOM', 'patience'));
    expect(waits).toEqual([3000, 3000]);
    expect(fake.rateLimitedCount('chat.postMessage')).toBe(2);
    expect(fake.botMessages('C0ROOM').map((message) => message.text)).toEqual(['patience']);
    expect(
      harness.statuses.some((status) =>
        /rate limited by Slack on chat\.postMessage/.test(status.detail ?? ''),
      ),
    ).toBe(true);
    expect(harness.statuses.at(-1)?.detail).toMatch(/^Events API at \/slack\/default\/events/);
  });

  it('gives up on a rate limit after the bounded retries, or at once when the wait is too long, as retryable', async () => {
    fake.rateLimit('chat.postMessage', 4, 1);
    await expect(sendRetried(text('C0ROOM', 'x'))).rejects.toMatchObject({
      code: 'SLACK_RATE_LIMITED',
      retryable: true,
    });
    expect(waits).toEqual([1000, 1000, 1000]);
    expect(fake.rateLimitedCount('chat.postMessage')).toBe(4);

    waits.length = 0;
    fake.rateLimit('chat.postMessage', 1, 600);
    await expect(sendRetried(text('C0ROOM', 'y'))).rejects.toMatchObject({
      code: 'SLACK_RATE_LIMITED',
      retryable: true,
      details: { retryAfterMs: 600_000 },
    });
    expect(waits).toEqual([]);
    expect(fake.botMessages('C0ROOM')).toEqual([]);
  });

  it('tells the gateway which failures are worth retrying', async () => {
    fake.fail('chat.postMessage', { type: 'error', error: 'channel_not_found' });
    await expect(harness.account.send(text('C0ROOM', 'x'))).rejects.toMatchObject({
      code: 'SLACK_SEND_REJECTED',
      retryable: false,
      message: expect.stringContaining('channel_not_found'),
    });
    fake.fail('chat.postMessage', { type: 'http', status: 503 });
    await expect(harness.account.send(text('C0ROOM', 'x'))).rejects.toMatchObject({
      code: 'SLACK_API_UNAVAILABLE',
      retryable: true,
    });
    fake.fail('chat.postMessage', { type: 'error', error: 'missing_scope' });
    await expect(harness.account.send(text('C0ROOM', 'x'))).rejects.toMatchObject({
      code: 'SLACK_API_ERROR',
      retryable: false,
      message: expect.stringContaining('add the scope'),
    });
  });

  it.each(['invalid_auth', 'account_inactive', 'token_revoked'])(
    'stops the account for good when a send gets %s',
    async (error) => {
      fake.revokeToken(fake.workspace().botToken, error);
      await expect(harness.account.send(text('C0ROOM', 'x'))).rejects.toMatchObject({
        code: 'SLACK_AUTH_FAILED',
        retryable: false,
        message: expect.stringContaining(`refused with ${error}`),
      });
      expect(harness.statuses.at(-1)).toMatchObject({
        state: 'error',
        detail: expect.stringContaining('not retrying'),
      });
      const calls = fake.calls.length;
      await expect(harness.account.send(text('C0ROOM', 'y'))).rejects.toMatchObject({
        code: 'SLACK_AUTH_FAILED',
      });
      expect(fake.calls.length).toBe(calls);
      // Events that still arrive are acknowledged and not handed over.
      const posted = await fake.postUserMessage({ user: 'U0ALICE', channel: 'C0ROOM', text: 'anyone?' });
      expect(posted.delivered).toBe(true);
      expect(harness.received).toHaveLength(0);
    },
  );

  it('refuses to start when auth.test says the bot token is dead', async () => {
    await harness.stop();
    fake.revokeToken(fake.workspace().botToken, 'account_inactive');
    const failure = await start().catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'SLACK_AUTH_FAILED',
      retryable: false,
      message: expect.stringMatching(/auth\.test \(account "default"\) was refused with account_inactive/),
    });
  });

  it('fails after stop with SLACK_ACCOUNT_STOPPED', async () => {
    await harness.stop();
    await expect(harness.account.send(text('C0ROOM', 'late'))).rejects.toMatchObject({
      code: 'SLACK_ACCOUNT_STOPPED',
    });
  });
});
