// The Events API over HTTP, through bolt's HTTPReceiver mounted on a stand-in of the gateway's
// server, against the fake Slack: signatures, retries, chat types, threads, mentions, files.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { InboundMessage } from '@switchboard/hooks';
import { createFakeSlack, type FakeSlack } from '@switchboard/testkit/slack';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, startRouteServer } from './harness.ts';

const pixel = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  ),
);

describe('Slack over the Events API (HTTP)', () => {
  let fake: FakeSlack;
  let harness: Harness;
  let teamId: string;
  let botUserId: string;

  async function start(overrides: Record<string, unknown> = {}, echoBotMessages = false) {
    fake = await createFakeSlack({
      workspaces: [{ teamId: 'T0HTTP', teamName: 'Http Co', echoBotMessages }],
      http: { retryDelaysMs: [20, 50] },
    }).start();
    const workspace = fake.workspace();
    teamId = workspace.teamId;
    botUserId = workspace.botUserId;
    fake.addUser({ id: 'U0ALICE', name: 'alice', realName: 'Alice Example' });
    fake.addUser({ id: 'U0BOB', name: 'bob' });
    fake.addChannel({ id: 'C0GENERAL', name: 'general' });
    harness = await startHarness({
      config: {
        mode: 'http',
        botToken: workspace.botToken,
        signingSecret: workspace.signingSecret,
        slackApiUrl: fake.slackApiUrl,
        ...overrides,
      },
    });
    fake.setRequestUrl(`${harness.httpUrl}/slack/default/events`);
  }

  beforeEach(() => start());
  afterEach(async () => {
    await harness?.stop();
    await fake?.close();
  });

  it('mounts /slack/<account>/events and reports the bot identity', async () => {
    expect(harness.routes.map((route) => [route.path, route.auth, route.methods])).toEqual([
      ['/slack/default/events', 'plugin', ['POST']],
    ]);
    const status = harness.statuses.at(-1);
    expect(status?.state).toBe('connected');
    expect(status?.identity?.id).toBe(botUserId);
    expect(status?.detail).toContain('T0HTTP');
    expect(fake.callsTo('auth.test')).toHaveLength(1);
  });

  it('hands a DM to the gateway with the sender, the DM peer and a channel-scoped message id', async () => {
    const dm = fake.directChannel('U0ALICE');
    const posted = await fake.postUserMessage({
      user: 'U0ALICE',
      channel: dm.id,
      text: 'hello &amp; welcome',
    });
    expect(posted.delivered).toBe(true);
    const [message] = await harness.waitForJournaled(1);
    expect(message).toMatchObject({
      channel: 'slack',
      accountId: 'default',
      chatType: 'direct',
      peer: { kind: 'direct', id: 'U0ALICE' },
      sender: { id: 'U0ALICE', name: 'alice', username: 'alice' },
      messageId: `${dm.id}:${posted.message.ts}`,
      text: 'hello & welcome',
    });
    expect(message?.timestamp).toBe(Math.round(Number(posted.message.ts) * 1000));
    expect(message && 'teamId' in message).toBe(false);

    await harness.account.send({
      kind: 'text',
      channel: 'slack',
      accountId: 'default',
      peer: message!.peer,
      text: 'Hi **Alice**, see [the docs](https://example.com/a_b).',
    });
    const [reply] = fake.botMessages(dm.id);
    expect(reply?.text).toBe('Hi *Alice*, see <https://example.com/a_b|the docs>.');
    expect(reply?.threadTs).toBeUndefined();
  });

  it('sets wasMentioned, teamId and mentions for a channel mention, and the app_mention event is a duplicate', async () => {
    const posted = await fake.postUserMessage({
      user: 'U0BOB',
      channel: 'C0GENERAL',
      text: `<@${botUserId}> what is 2+2? cc <@U0ALICE>`,
    });
    expect(posted.events.map((event) => event.type)).toEqual(['message', 'app_mention']);
    expect(posted.delivered).toBe(true);
    expect(harness.received).toHaveLength(2);
    expect(harness.journaled).toHaveLength(1);
    const message = harness.journaled[0] as Extract<InboundMessage, { chatType: 'channel' | 'group' }>;
    expect(message).toMatchObject({
      chatType: 'channel',
      peer: { kind: 'channel', id: 'C0GENERAL', name: 'general' },
      wasMentioned: true,
      teamId,
      mentions: [botUserId, 'U0ALICE'],
      text: 'what is 2+2? cc @alice',
    });
    expect(harness.received[1]?.messageId).toBe(message.messageId);
  });

  it('does not mark an unmentioned channel message as mentioned', async () => {
    await fake.postUserMessage({ user: 'U0BOB', channel: 'C0GENERAL', text: 'just humans here' });
    const [message] = await harness.waitForJournaled(1);
    expect(message).toMatchObject({ chatType: 'channel', wasMentioned: false });
    expect(fake.events.map((event) => event.type)).toEqual(['message']);
  });

  it('carries thread_ts as the thread, counts a reply in the bot thread as a mention, and replies in the thread', async () => {
    const top = await fake.postUserMessage({
      user: 'U0BOB',
      channel: 'C0GENERAL',
      text: `<@${botUserId}> start`,
    });
    const first = harness.journaled[0]!;
    const sent = await harness.account.send({
      kind: 'text',
      channel: 'slack',
      accountId: 'default',
      peer: first.peer,
      replyToMessageId: first.messageId,
      text: 'in the thread',
    });
    const [botReply] = fake.botMessages('C0GENERAL');
    expect(botReply?.threadTs).toBe(top.message.ts);
    expect(sent.messageIds).toEqual([`C0GENERAL:${botReply?.ts}`]);

    // A human answers in the thread without mentioning the bot: the thread is the bot's.
    await fake.postUserMessage({
      user: 'U0BOB',
      channel: 'C0GENERAL',
      text: 'and then?',
      threadTs: top.message.ts,
    });
    const threaded = (await harness.waitForJournaled(2))[1]!;
    expect(threaded.thread).toEqual({ id: top.message.ts });
    expect(threaded.replyTo?.messageId).toBe(`C0GENERAL:${top.message.ts}`);
    expect(threaded).toMatchObject({ wasMentioned: false });

    await harness.account.send({
      kind: 'text',
      channel: 'slack',
      accountId: 'default',
      peer: threaded.peer,
      threadId: threaded.thread!.id,
      replyToMessageId: threaded.messageId,
      text: 'still in the thread',
    });
    expect(fake.botMessages('C0GENERAL').at(-1)?.threadTs).toBe(top.message.ts);
  });

  it('rejects a bad signature and a stale timestamp with 401 and processes nothing', async () => {
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: teamId,
      event_id: 'Ev0FORGED',
      event: {
        type: 'message',
        channel: 'C0GENERAL',
        channel_type: 'channel',
        user: 'U0BOB',
        text: 'x',
        ts: '1.000001',
      },
    });
    const url = `${harness.httpUrl}/slack/default/events`;
    const secret = fake.workspace().signingSecret;
    const wrongSecret = await fake.postSigned(url, body, { signingSecret: 'not-the-secret' });
    const stale = await fake.postSigned(url, body, {
      signingSecret: secret,
      timestampSeconds: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    const tampered = await fake.postSigned(url, body, {
      signingSecret: secret,
      signature: 'v0=0000000000000000000000000000000000000000000000000000000000000000',
    });
    expect([wrongSecret.status, stale.status, tampered.status]).toEqual([401, 401, 401]);
    expect(harness.received).toHaveLength(0);

    const good = await fake.postSigned(url, body, { signingSecret: secret });
    expect(good.status).toBe(200);
    expect(harness.received).toHaveLength(1);
  });

  it('answers url_verification with the challenge', async () => {
    const answer = await fake.postSigned(
      `${harness.httpUrl}/slack/default/events`,
      JSON.stringify({ type: 'url_verification', token: 't', challenge: 'challenge-123' }),
      { signingSecret: fake.workspace().signingSecret },
    );
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('challenge-123');
  });

  it('answers a Slack retry (X-Slack-Retry-Num) of a handled event without handing it over again', async () => {
    const dm = fake.directChannel('U0ALICE');
    const posted = await fake.postUserMessage({ user: 'U0ALICE', channel: dm.id, text: 'once' });
    const again = await fake.redeliver(posted.events[0]!.eventId);
    expect(again.status).toBe('delivered');
    expect(again.attempts.at(-1)).toMatchObject({
      retryNum: 1,
      retryReason: 'http_timeout',
      outcome: 'acked',
    });
    expect(harness.received).toHaveLength(1);
  });

  it('ignores the bot’s own messages coming back as events', async () => {
    await harness.stop();
    await fake.close();
    await start({}, true);
    const dm = fake.directChannel('U0ALICE');
    await fake.postUserMessage({ user: 'U0ALICE', channel: dm.id, text: 'ping' });
    await harness.account.send({
      kind: 'text',
      channel: 'slack',
      accountId: 'default',
      peer: { kind: 'direct', id: 'U0ALICE' },
      text: 'pong',
    });
    const echo = fake.events.find((event) => (event.body.event as { bot_id?: string }).bot_id !== undefined);
    expect(echo).toBeDefined();
    await expect.poll(() => fake.events.every((event) => event.status !== 'pending')).toBe(true);
    expect(fake.events.find((event) => event.eventId === echo?.eventId)?.status).toBe('delivered');
    expect(harness.received.map((message) => message.text)).toEqual(['ping']);
  });

  it('answers 500 when the gateway cannot journal, so Slack retries, and hands the retry over', async () => {
    await harness.stop();
    let failures = 1;
    const workspace = fake.workspace();
    harness = await startHarness({
      config: {
        mode: 'http',
        botToken: workspace.botToken,
        signingSecret: workspace.signingSecret,
        slackApiUrl: fake.slackApiUrl,
      },
      async receive() {
        if (failures > 0) {
          failures -= 1;
          throw new Error('the journal is unavailable');
        }
        return { status: 'journaled' };
      },
    });
    fake.setRequestUrl(`${harness.httpUrl}/slack/default/events`);
    const dm = fake.directChannel('U0ALICE');
    const posted = await fake.postUserMessage({ user: 'U0ALICE', channel: dm.id, text: 'keep me' });
    expect(posted.delivered).toBe(true);
    expect(
      posted.events[0]?.attempts.map((attempt) => [attempt.outcome, attempt.status, attempt.retryNum]),
    ).toEqual([
      ['rejected', 500, 0],
      ['acked', 200, 1],
    ]);
    expect(harness.received.map((message) => message.messageId)).toEqual([
      `${dm.id}:${posted.message.ts}`,
      `${dm.id}:${posted.message.ts}`,
    ]);
    expect(harness.journaled).toHaveLength(1);
  });

  it('describes a shared file without downloading it; downloadMedia fetches it with the bot token', async () => {
    const file = fake.uploadUserFile({
      user: 'U0ALICE',
      name: 'pixel.png',
      mimetype: 'image/png',
      bytes: pixel,
    });
    const dm = fake.directChannel('U0ALICE');
    await fake.postUserMessage({ user: 'U0ALICE', channel: dm.id, text: 'what is this?', files: [file] });
    const [message] = await harness.waitForJournaled(1);
    expect(message?.text).toBe('what is this?');
    const media = message?.media?.[0];
    expect(media).toMatchObject({
      kind: 'image',
      mimeType: 'image/png',
      fileName: 'pixel.png',
      sizeBytes: pixel.length,
      reference: { fileId: file.id },
    });
    expect(media?.path).toBeUndefined();
    expect(fake.fileDownloads).toEqual([]);
    expect(existsSync(join(harness.dataDirectory, 'media'))).toBe(false);

    // Through JSON, as a journaled message comes back after a restart.
    const downloaded = await harness.account.downloadMedia!(JSON.parse(JSON.stringify(media)), {
      maxBytes: 1024 * 1024,
      signal: new AbortController().signal,
    });
    expect(downloaded).toMatchObject({ sizeBytes: pixel.length, mimeType: 'image/png' });
    expect(downloaded.path.startsWith(join(harness.dataDirectory, 'media'))).toBe(true);
    expect(new Uint8Array(readFileSync(downloaded.path))).toEqual(pixel);
    expect(statSync(downloaded.path).mode & 0o777).toBe(0o600);
    // One authenticated download (the fake answers 403 without the workspace's bot token).
    expect(fake.fileDownloads.map((download) => [download.fileId, download.status])).toEqual([
      [file.id, 200],
    ]);
  });

  it('refuses a file over mediaMaxMb before fetching a byte, naming its size and the limit', async () => {
    await harness.stop();
    const workspace = fake.workspace();
    harness = await startHarness({
      config: {
        mode: 'http',
        botToken: workspace.botToken,
        signingSecret: workspace.signingSecret,
        slackApiUrl: fake.slackApiUrl,
        mediaMaxMb: 0.00001,
      },
    });
    fake.setRequestUrl(`${harness.httpUrl}/slack/default/events`);
    const file = fake.uploadUserFile({
      user: 'U0ALICE',
      name: 'big.png',
      mimetype: 'image/png',
      bytes: new Uint8Array(64),
    });
    await fake.postUserMessage({
      user: 'U0ALICE',
      channel: fake.directChannel('U0ALICE').id,
      text: 'big',
      files: [file],
    });
    const [message] = await harness.waitForJournaled(1);
    expect(message?.text).toBe('big');
    expect(message?.media?.[0]).toMatchObject({ kind: 'image', fileName: 'big.png', sizeBytes: 64 });
    await expect(
      harness.account.downloadMedia!(message!.media![0]!, {
        maxBytes: 1024 * 1024,
        signal: new AbortController().signal,
      }),
    ).rejects.toMatchObject({
      code: 'MEDIA_TOO_LARGE',
      message: expect.stringContaining('big.png'),
      details: { sizeBytes: 64, maxBytes: 10 },
    });
    expect(fake.fileDownloads).toEqual([]);
  });

  it('mounts two accounts on one server, each with its own path and signing secret', async () => {
    await harness.stop();
    await fake.close();
    fake = await createFakeSlack({ workspaces: [{ teamId: 'T0ONE' }, { teamId: 'T0TWO' }] }).start();
    const [one, two] = fake.workspaces;
    fake.addUser({ id: 'U0ONE', teamId: 'T0ONE' });
    fake.addUser({ id: 'U0TWO', teamId: 'T0TWO' });
    const server = await startRouteServer();
    const config = {
      mode: 'http',
      slackApiUrl: fake.slackApiUrl,
      accounts: {
        one: { botToken: one!.botToken, signingSecret: one!.signingSecret },
        two: { botToken: two!.botToken, signingSecret: two!.signingSecret, webhookPath: '/hooks/slack-two' },
      },
    };
    const first = await startHarness({ config, accountId: 'one', routeServer: server });
    const second = await startHarness({ config, accountId: 'two', routeServer: server });
    harness = first;
    try {
      expect(server.routes.map((route) => route.path)).toEqual(['/slack/one/events', '/hooks/slack-two']);
      fake.setRequestUrl(`${server.url}/slack/one/events`, 'T0ONE');
      fake.setRequestUrl(`${server.url}/hooks/slack-two`, 'T0TWO');
      await fake.postUserMessage({
        teamId: 'T0ONE',
        user: 'U0ONE',
        channel: fake.directChannel('U0ONE', 'T0ONE').id,
        text: 'one',
      });
      await fake.postUserMessage({
        teamId: 'T0TWO',
        user: 'U0TWO',
        channel: fake.directChannel('U0TWO', 'T0TWO').id,
        text: 'two',
      });
      expect(first.journaled.map((message) => [message.accountId, message.text])).toEqual([['one', 'one']]);
      expect(second.journaled.map((message) => [message.accountId, message.text])).toEqual([['two', 'two']]);
      // The second workspace's event signed for the first account's route: wrong secret.
      const crossed = await fake.postSigned(
        `${server.url}/slack/one/events`,
        JSON.stringify({ type: 'event_callback' }),
        {
          signingSecret: two!.signingSecret,
        },
      );
      expect(crossed.status).toBe(401);
    } finally {
      await second.stop();
      await server.close();
    }
  });
});
