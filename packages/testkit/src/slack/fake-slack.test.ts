// The fake Slack, driven by the real @slack/bolt: the Web API through bolt's WebClient, the
// Events API into an HTTPReceiver (signatures checked by bolt), Socket Mode into a
// SocketModeReceiver, files upload v2, faults.
import type { AddressInfo } from 'node:net';
import { App, isValidSlackRequest, type Logger, LogLevel, webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackConformanceDriver } from './conformance-driver.ts';
import { createFakeSlack, type FakeSlack } from './fake-slack.ts';
import { signSlackRequest } from './signing.ts';

const silent: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};

interface Received {
  readonly type: string;
  readonly text?: string;
  readonly retryNum?: number;
  readonly retryReason?: string;
}

describe('FakeSlack', () => {
  let fake: FakeSlack;
  const apps: App[] = [];

  afterEach(async () => {
    for (const app of apps.splice(0)) await app.stop().catch(() => undefined);
    await fake?.close();
  });

  async function started(options: Parameters<typeof createFakeSlack>[0] = {}) {
    fake = await createFakeSlack(options).start();
    fake.addUser({ id: 'U0ALICE', name: 'alice', realName: 'Alice Example' });
    fake.addChannel({ id: 'C0ROOM', name: 'room' });
    return fake;
  }

  function webClient(token = fake.workspace().botToken, rejectRateLimitedCalls = true) {
    return new webApi.WebClient(token, {
      slackApiUrl: fake.slackApiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls,
      logger: silent,
    });
  }

  /** A bolt App on its own HTTPReceiver (port 0), recording message and app_mention events. */
  async function httpApp(signingSecret = fake.workspace().signingSecret, respond?: () => Promise<void>) {
    const received: Received[] = [];
    const app = new App({
      token: fake.workspace().botToken,
      signingSecret,
      logger: silent,
      processBeforeResponse: true,
      clientOptions: { slackApiUrl: fake.slackApiUrl, retryConfig: { retries: 0 } },
    });
    for (const type of ['message', 'app_mention'] as const) {
      app.event(type, async ({ event, context }) => {
        await respond?.();
        received.push({
          type: event.type,
          text: (event as { text?: string }).text,
          retryNum: context.retryNum,
          retryReason: context.retryReason,
        });
      });
    }
    app.error(async (error) => {
      throw error;
    });
    const server = (await app.start(0)) as { address(): AddressInfo };
    apps.push(app);
    fake.setRequestUrl(`http://127.0.0.1:${server.address().port}/slack/events`);
    return { app, received };
  }

  describe('the Web API', () => {
    it('answers auth.test with the bot identity, which bolt fires from its constructor', async () => {
      await started();
      const app = new App({
        token: fake.workspace().botToken,
        signingSecret: 'x',
        logger: silent,
        clientOptions: { slackApiUrl: fake.slackApiUrl, retryConfig: { retries: 0 } },
      });
      apps.push(app);
      await fake.waitForCalls('auth.test', 1);
      const result = await app.client.auth.test();
      expect(result).toMatchObject({
        ok: true,
        team_id: fake.workspace().teamId,
        user_id: fake.workspace().botUserId,
        bot_id: fake.workspace().botId,
      });
      expect(fake.callsTo('auth.test')[0]).toMatchObject({
        tokenType: 'bot',
        ok: true,
        teamId: fake.workspace().teamId,
      });
    });

    it('posts, threads and updates messages, as bolt sends them (form-encoded)', async () => {
      await started();
      const client = webClient();
      const parent = await client.chat.postMessage({ channel: 'C0ROOM', text: 'parent *bold*' });
      expect(parent).toMatchObject({ ok: true, channel: 'C0ROOM', message: { text: 'parent *bold*' } });
      await client.chat.postMessage({
        channel: 'C0ROOM',
        text: 'child',
        thread_ts: parent.ts!,
        mrkdwn: false,
      });
      await client.chat.update({ channel: 'C0ROOM', ts: parent.ts!, text: 'parent, edited' });
      expect(
        fake
          .botMessages('C0ROOM')
          .map((message) => [message.text, message.threadTs, message.edits, message.mrkdwn]),
      ).toEqual([
        ['parent, edited', undefined, ['parent *bold*'], true],
        ['child', parent.ts, [], false],
      ]);
      expect(fake.callsTo('chat.postMessage')[1]?.params).toMatchObject({
        thread_ts: parent.ts,
        mrkdwn: 'false',
      });
    });

    it('posts to a user id as the DM with that user, and opens DMs', async () => {
      await started();
      const client = webClient();
      const posted = await client.chat.postMessage({ channel: 'U0ALICE', text: 'hi' });
      const dm = fake.directChannel('U0ALICE');
      expect(posted.channel).toBe(dm.id);
      expect(await client.conversations.open({ users: 'U0ALICE' })).toMatchObject({ channel: { id: dm.id } });
      expect(fake.botMessages(dm.id).map((message) => message.text)).toEqual(['hi']);
    });

    it('describes users and conversations', async () => {
      await started();
      const client = webClient();
      expect(await client.users.info({ user: 'U0ALICE' })).toMatchObject({
        user: { id: 'U0ALICE', name: 'alice', real_name: 'Alice Example', is_bot: false },
      });
      expect(await client.conversations.info({ channel: 'C0ROOM' })).toMatchObject({
        channel: { id: 'C0ROOM', name: 'room', is_channel: true, is_im: false },
      });
      await expect(client.users.info({ user: 'U0NOBODY' })).rejects.toMatchObject({
        code: webApi.ErrorCode.PlatformError,
        data: { error: 'user_not_found' },
      });
    });

    it('refuses what Slack refuses', async () => {
      await started();
      fake.addChannel({ id: 'C0OUTSIDE', botIsMember: false });
      const client = webClient();
      const refusal = (promise: Promise<unknown>) =>
        promise.then(
          () => 'ok',
          (error: { data?: { error?: string } }) => error.data?.error,
        );
      expect(await refusal(client.chat.postMessage({ channel: 'C0NOPE', text: 'x' }))).toBe(
        'channel_not_found',
      );
      expect(await refusal(client.chat.postMessage({ channel: 'C0OUTSIDE', text: 'x' }))).toBe(
        'not_in_channel',
      );
      expect(await refusal(client.chat.postMessage({ channel: 'C0ROOM', text: 'x'.repeat(40_001) }))).toBe(
        'msg_too_long',
      );
      expect(
        await refusal(client.chat.postMessage({ channel: 'C0ROOM', text: 'x', thread_ts: '1.000000' })),
      ).toBe('thread_not_found');
      expect(await refusal(client.chat.update({ channel: 'C0ROOM', ts: '1.000000', text: 'x' }))).toBe(
        'message_not_found',
      );
      expect(await refusal(webClient('xoxb-unknown').auth.test())).toBe('invalid_auth');
      expect(await refusal(webClient(fake.workspace().appToken).auth.test())).toBe('not_allowed_token_type');
      expect(await refusal(client.apps.connections.open())).toBe('not_allowed_token_type');
      expect(await refusal(client.apiCall('emoji.list'))).toBe('unknown_method');
    });

    it('injects rate limits with Retry-After, errors, HTTP failures and revoked tokens', async () => {
      await started();
      const client = webClient();
      fake.rateLimit('chat.postMessage', 1, 7);
      await expect(client.chat.postMessage({ channel: 'C0ROOM', text: 'x' })).rejects.toMatchObject({
        code: webApi.ErrorCode.RateLimitedError,
        retryAfter: 7,
      });
      expect(fake.rateLimitedCount('chat.postMessage')).toBe(1);
      fake.fail('*', { type: 'http', status: 503 });
      await expect(client.auth.test()).rejects.toMatchObject({
        code: webApi.ErrorCode.HTTPError,
        statusCode: 503,
      });
      fake.fail('chat.postMessage', { type: 'error', error: 'is_archived' }, 2);
      for (let index = 0; index < 2; index += 1) {
        await expect(client.chat.postMessage({ channel: 'C0ROOM', text: 'x' })).rejects.toMatchObject({
          data: { error: 'is_archived' },
        });
      }
      await expect(
        client.chat.postMessage({ channel: 'C0ROOM', text: 'works again' }),
      ).resolves.toMatchObject({ ok: true });
      fake.revokeToken(fake.workspace().botToken, 'account_inactive');
      await expect(client.auth.test()).rejects.toMatchObject({ data: { error: 'account_inactive' } });
    });

    it('takes files upload v2 and serves private files only with the workspace’s bot token', async () => {
      await started();
      const client = webClient();
      const upload = await client.filesUploadV2({
        channel_id: 'C0ROOM',
        initial_comment: 'a report',
        file: Buffer.from('report body'),
        filename: 'report.txt',
      });
      const fileId = (upload.files[0] as { files?: Array<{ id?: string }> }).files?.[0]?.id;
      const [shared] = fake.botMessages('C0ROOM');
      expect(shared).toMatchObject({
        text: 'a report',
        files: [{ id: fileId, name: 'report.txt', mimetype: 'text/plain' }],
      });
      const stored = fake.file(fileId!);
      expect(Buffer.from(stored!.bytes!).toString()).toBe('report body');

      const anonymous = await fetch(stored!.urlPrivateDownload);
      expect(anonymous.status).toBe(403);
      const authorized = await fetch(stored!.urlPrivateDownload, {
        headers: { authorization: `Bearer ${fake.workspace().botToken}` },
      });
      expect(authorized.status).toBe(200);
      expect(await authorized.text()).toBe('report body');
    });
  });

  describe('the Events API over HTTP', () => {
    it('delivers signed message and app_mention events that bolt verifies and routes', async () => {
      await started();
      const { received } = await httpApp();
      const botUserId = fake.workspace().botUserId;
      const dm = await fake.postUserMessage({
        user: 'U0ALICE',
        channel: fake.directChannel('U0ALICE').id,
        text: 'in a DM',
      });
      const mention = await fake.postUserMessage({
        user: 'U0ALICE',
        channel: 'C0ROOM',
        text: `<@${botUserId}> in a room`,
      });
      expect([dm.delivered, mention.delivered]).toEqual([true, true]);
      expect(received).toEqual([
        { type: 'message', text: 'in a DM' },
        { type: 'message', text: `<@${botUserId}> in a room` },
        { type: 'app_mention', text: `<@${botUserId}> in a room` },
      ]);
      const body = mention.events[0]!.body as {
        event: Record<string, unknown>;
        team_id: string;
        authorizations: unknown[];
      };
      expect(body.team_id).toBe(fake.workspace().teamId);
      expect(body.event).toMatchObject({
        channel: 'C0ROOM',
        channel_type: 'channel',
        user: 'U0ALICE',
        team: body.team_id,
      });
      expect(dm.events[0]?.body).toMatchObject({ event: { channel_type: 'im' } });
    });

    it('signs the way bolt verifies: v0 = HMAC-SHA256 of v0:<timestamp>:<body>', () => {
      const body = '{"type":"event_callback"}';
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = (secret: string, at = timestamp) => ({
        'x-slack-signature': signSlackRequest(secret, at, body),
        'x-slack-request-timestamp': at,
      });
      expect(isValidSlackRequest({ signingSecret: 'secret', body, headers: headers('secret') })).toBe(true);
      expect(isValidSlackRequest({ signingSecret: 'secret', body, headers: headers('other') })).toBe(false);
      expect(
        isValidSlackRequest({ signingSecret: 'secret', body, headers: headers('secret', timestamp - 600) }),
      ).toBe(false);
      expect(signSlackRequest('secret', 1, 'x')).toMatch(/^v0=[0-9a-f]{64}$/);
    });

    it('retries an app that answers with an error, with X-Slack-Retry-Num and reason, then gives up', async () => {
      await started({ http: { retryDelaysMs: [10, 10] } });
      const { received } = await httpApp('the-wrong-secret');
      const posted = await fake.postUserMessage({ user: 'U0ALICE', channel: 'C0ROOM', text: 'nobody hears' });
      expect(posted.delivered).toBe(false);
      expect(posted.events[0]?.status).toBe('failed');
      expect(
        posted.events[0]?.attempts.map((attempt) => [attempt.retryNum, attempt.retryReason, attempt.status]),
      ).toEqual([
        [0, '', 401],
        [1, 'http_error', 401],
        [2, 'http_error', 401],
      ]);
      expect(received).toEqual([]);
    });

    it('retries after a timeout with http_timeout, and redelivers on demand with the same event id', async () => {
      // The retry has to finish inside the same timeout, so keep it roomy for a busy machine.
      await started({ http: { timeoutMs: 400, retryDelaysMs: [10] } });
      let slow = true;
      const { received } = await httpApp(undefined, async () => {
        if (slow) {
          slow = false;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      });
      const posted = await fake.postUserMessage({ user: 'U0ALICE', channel: 'C0ROOM', text: 'slowly' });
      expect(posted.events[0]?.attempts.map((attempt) => [attempt.outcome, attempt.retryNum])).toEqual([
        ['timeout', 0],
        ['acked', 1],
      ]);
      await expect.poll(() => received.length).toBe(2);
      expect(received.map((event) => event.retryNum)).toContain(1);
      expect(received.find((event) => event.retryNum === 1)?.retryReason).toBe('http_timeout');

      const again = await fake.redeliver(posted.events[0]!.eventId);
      expect(again.eventId).toBe(posted.events[0]!.eventId);
      expect(again.attempts.at(-1)).toMatchObject({
        retryNum: 2,
        retryReason: 'http_timeout',
        outcome: 'acked',
      });
    });

    it('echoes the bot’s own posts when asked, and bolt’s ignoreSelf drops them', async () => {
      await started({ workspaces: [{ echoBotMessages: true }] });
      const { app, received } = await httpApp();
      await app.client.chat.postMessage({ channel: 'C0ROOM', text: 'my own words' });
      await expect.poll(() => fake.events.at(-1)?.status).toBe('delivered');
      expect(fake.events.map((event) => (event.body.event as { bot_id?: string }).bot_id)).toEqual([
        fake.workspace().botId,
      ]);
      expect(received).toEqual([]);
    });
  });

  describe('Socket Mode', () => {
    async function socketApp(options: { ack?: boolean } = {}) {
      const received: Received[] = [];
      const app = new App({
        token: fake.workspace().botToken,
        appToken: fake.workspace().appToken,
        socketMode: true,
        logger: silent,
        clientOptions: { slackApiUrl: fake.slackApiUrl, retryConfig: { retries: 0 } },
      });
      app.event('message', async ({ event, context }) => {
        received.push({
          type: event.type,
          text: (event as { text?: string }).text,
          retryNum: context.retryNum,
        });
      });
      if (options.ack === false) {
        // Swallow envelopes before bolt can ack them, as an app that crashed mid-event would.
        const receiver = (
          app as unknown as { receiver: { client: { removeAllListeners(event: string): void } } }
        ).receiver;
        receiver.client.removeAllListeners('slack_event');
      }
      await app.start();
      apps.push(app);
      return { app, received };
    }

    it('opens a socket with the app token and delivers events that bolt acknowledges', async () => {
      await started({ socket: { pingIntervalMs: 50 } });
      const { received } = await socketApp();
      expect(fake.callsTo('apps.connections.open')).toMatchObject([{ tokenType: 'app', ok: true }]);
      expect(fake.socketConnections()).toBe(1);
      const posted = await fake.postUserMessage({
        user: 'U0ALICE',
        channel: 'C0ROOM',
        text: 'over the socket',
      });
      expect(posted.events[0]?.attempts).toMatchObject([
        { transport: 'socket', outcome: 'acked', retryNum: 0 },
      ]);
      expect(received).toEqual([{ type: 'message', text: 'over the socket', retryNum: 0 }]);
      // Server pings keep flowing without upsetting the client.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(fake.socketConnections()).toBe(1);
    });

    it('sends an unacknowledged envelope again with retry_attempt, then gives up', async () => {
      await started({ socket: { ackTimeoutMs: 50, maxRetries: 2 } });
      await socketApp({ ack: false });
      const posted = await fake.postUserMessage({ user: 'U0ALICE', channel: 'C0ROOM', text: 'lost' });
      expect(posted.delivered).toBe(false);
      expect(
        posted.events[0]?.attempts.map((attempt) => [attempt.outcome, attempt.retryNum, attempt.retryReason]),
      ).toEqual([
        ['timeout', 0, ''],
        ['timeout', 1, 'timeout'],
        ['timeout', 2, 'timeout'],
      ]);
    });

    it('holds events until a socket connects, and resends what a dropped socket left unacknowledged', async () => {
      await started();
      const waiting = fake.postUserMessage({ user: 'U0ALICE', channel: 'C0ROOM', text: 'early' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fake.events[0]?.status).toBe('pending');
      const { received } = await socketApp();
      expect((await waiting).delivered).toBe(true);
      expect(received.map((event) => event.text)).toEqual(['early']);
      fake.dropSocketConnections({ graceful: true });
      await expect.poll(() => fake.socketConnections()).toBe(0);
    });
  });

  describe('the driver surface', () => {
    it('validates options and refuses use before start', async () => {
      expect(() => createFakeSlack({ http: { retryDelaysMs: [-1] } })).toThrow(
        /http\.retryDelaysMs\[0\] must be a number >= 0/,
      );
      expect(() => createFakeSlack({ workspaces: [{ teamId: 'T1' }, { teamId: 'T1' }] })).toThrow(
        /workspace T1 exists already/,
      );
      const unstarted = createFakeSlack();
      expect(() => unstarted.slackApiUrl).toThrow(expect.objectContaining({ code: 'TESTKIT_NOT_STARTED' }));
      await expect(unstarted.postUserMessage({ user: 'U1', channel: 'C1', text: 'x' })).rejects.toMatchObject(
        { code: 'TESTKIT_NOT_STARTED' },
      );
      await started();
      await expect(fake.postUserMessage({ user: 'U0NOBODY', channel: 'C0ROOM' })).rejects.toThrow(
        /no user U0NOBODY/,
      );
      await expect(fake.waitForBotMessages('C0ROOM', 1, 20)).rejects.toMatchObject({
        code: 'TESTKIT_WAIT_TIMEOUT',
      });
    });

    it('keeps workspaces apart: tokens, users, conversations and events', async () => {
      await started({ workspaces: [{ teamId: 'T0A' }, { teamId: 'T0B' }] });
      fake.addUser({ id: 'U0BEE', teamId: 'T0B' });
      fake.addChannel({ id: 'C0BEE', teamId: 'T0B' });
      const a = webClient(fake.workspace('T0A').botToken);
      const b = webClient(fake.workspace('T0B').botToken);
      await expect(a.chat.postMessage({ channel: 'C0BEE', text: 'x' })).rejects.toMatchObject({
        data: { error: 'channel_not_found' },
      });
      await b.chat.postMessage({ channel: 'C0BEE', text: 'from b' });
      expect(fake.botMessages('C0BEE')).toMatchObject([
        { teamId: 'T0B', user: fake.workspace('T0B').botUserId },
      ]);
    });

    it('gives the conformance driver a channel config per mode', async () => {
      const http = createSlackConformanceDriver({ mode: 'http' });
      const socket = createSlackConformanceDriver({ mode: 'socket' });
      await http.start();
      await socket.start();
      try {
        expect(http.channelConfig({ dmPolicy: 'pairing' })).toEqual({
          mode: 'http',
          botToken: 'xoxb-conformance-token',
          signingSecret: 'conformance-signing-secret',
          slackApiUrl: http.fake.slackApiUrl,
          dmPolicy: 'pairing',
        });
        expect(socket.channelConfig({})).toMatchObject({
          mode: 'socket',
          appToken: 'xapp-conformance-token',
        });
        expect(http.userId('alice')).not.toBe(http.userId('bob'));
      } finally {
        await http.stop();
        await socket.stop();
      }
    });
  });
});
