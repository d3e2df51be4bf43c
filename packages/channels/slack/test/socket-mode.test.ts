// Socket Mode through bolt's SocketModeReceiver against the fake's WebSocket: acks only after
// the gateway journaled, redelivery when it could not, reconnects, and dead tokens.
import type { ReceiveOutcome } from '@switchboard/hooks';
import { createFakeSlack, type FakeSlack } from '@switchboard/testkit/slack';
import { afterEach, describe, expect, it } from 'vitest';
import type { SlackChannelError } from '../src/index.ts';
import { type Harness, type HarnessOptions, startHarness } from './harness.ts';

describe('Slack over Socket Mode', () => {
  let fake: FakeSlack;
  let harness: Harness | undefined;

  async function start(options: Partial<HarnessOptions> & { ackTimeoutMs?: number } = {}) {
    fake = await createFakeSlack({
      workspaces: [{ teamId: 'T0SOCK', delivery: 'socket' }],
      socket: { ackTimeoutMs: options.ackTimeoutMs ?? 3000, pingIntervalMs: 0 },
    }).start();
    fake.addUser({ id: 'U0ALICE', name: 'alice' });
    const workspace = fake.workspace();
    harness = await startHarness({
      config: {
        mode: 'socket',
        botToken: workspace.botToken,
        appToken: workspace.appToken,
        slackApiUrl: fake.slackApiUrl,
        ...options.config,
      },
      channel: { reconnectBaseMs: 20, reconnectMaxMs: 100, ...options.channel },
      receive: options.receive,
    });
    return harness;
  }

  afterEach(async () => {
    await harness?.stop();
    harness = undefined;
    await fake?.close();
  });

  it('connects through apps.connections.open with the app token and receives a DM', async () => {
    const running = await start();
    expect(running.statuses.at(-1)).toMatchObject({
      state: 'connected',
      detail: expect.stringContaining('Socket Mode'),
    });
    expect(fake.callsTo('apps.connections.open')).toMatchObject([{ tokenType: 'app', ok: true }]);
    expect(fake.socketConnections()).toBe(1);
    expect(running.routes).toEqual([]);
    const dm = fake.directChannel('U0ALICE');
    const posted = await fake.postUserMessage({ user: 'U0ALICE', channel: dm.id, text: 'over the socket' });
    expect(posted.delivered).toBe(true);
    expect(running.journaled.map((message) => [message.chatType, message.text])).toEqual([
      ['direct', 'over the socket'],
    ]);
  });

  it('acknowledges the envelope only after the gateway journaled the message', async () => {
    let release: (outcome: ReceiveOutcome) => void = () => {};
    const running = await start({
      receive: () =>
        new Promise<ReceiveOutcome>((resolve) => {
          release = resolve;
        }),
    });
    const delivery = fake.postUserMessage({
      user: 'U0ALICE',
      channel: fake.directChannel('U0ALICE').id,
      text: 'wait',
    });
    await expect.poll(() => running.received.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.events[0]?.status).toBe('pending');
    release({ status: 'journaled' });
    const posted = await delivery;
    expect(posted.events[0]?.attempts.map((attempt) => attempt.outcome)).toEqual(['acked']);
  });

  it('leaves the envelope unacknowledged when the gateway fails, so Slack sends it again', async () => {
    let failures = 1;
    const running = await start({
      ackTimeoutMs: 500,
      async receive() {
        if (failures > 0) {
          failures -= 1;
          throw new Error('disk full');
        }
        return { status: 'journaled' };
      },
    });
    const posted = await fake.postUserMessage({
      user: 'U0ALICE',
      channel: fake.directChannel('U0ALICE').id,
      text: 'again',
    });
    expect(posted.delivered).toBe(true);
    expect(posted.events[0]?.attempts.map((attempt) => [attempt.outcome, attempt.retryNum])).toEqual([
      ['timeout', 0],
      ['acked', 1],
    ]);
    expect(running.received).toHaveLength(2);
    expect(running.journaled).toHaveLength(1);
  });

  it('reconnects after the socket drops and after a graceful disconnect frame', async () => {
    const running = await start();
    fake.dropSocketConnections();
    await fake.waitForSocketConnections(2);
    expect(running.statuses.some((status) => status.state === 'reconnecting')).toBe(true);
    await running.waitForStatus((status) => status.state === 'connected');
    await fake.postUserMessage({
      user: 'U0ALICE',
      channel: fake.directChannel('U0ALICE').id,
      text: 'after a drop',
    });

    fake.dropSocketConnections({ graceful: true });
    await fake.waitForSocketConnections(3);
    await running.waitForStatus((status) => status.state === 'connected');
    await fake.postUserMessage({
      user: 'U0ALICE',
      channel: fake.directChannel('U0ALICE').id,
      text: 'after a refresh',
    });
    expect(running.journaled.map((message) => message.text)).toEqual(['after a drop', 'after a refresh']);
    expect(fake.callsTo('apps.connections.open')).toHaveLength(3);
  });

  it('keeps retrying with backoff while apps.connections.open fails, then connects', async () => {
    const waits: number[] = [];
    const running = await start({
      channel: {
        reconnectBaseMs: 1000,
        reconnectMaxMs: 4000,
        // Tests never sleep on real timers: record the backoff and go on at once.
        sleep: async (milliseconds) => {
          waits.push(milliseconds);
        },
      },
    });
    fake.fail('apps.connections.open', { type: 'http', status: 503 }, 3);
    fake.dropSocketConnections();
    await fake.waitForSocketConnections(2);
    await running.waitForStatus((status) => status.state === 'connected');
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(fake.callsTo('apps.connections.open').map((call) => call.status)).toEqual([
      200, 503, 503, 503, 200,
    ]);
    expect(
      running.statuses.some(
        (status) => status.state === 'reconnecting' && /HTTP 503/.test(status.error ?? ''),
      ),
    ).toBe(true);
  });

  it('refuses to start with a bad app token, with a clear fatal error', async () => {
    fake = await createFakeSlack({ workspaces: [{ teamId: 'T0SOCK' }] }).start();
    const workspace = fake.workspace();
    const failure = await startHarness({
      config: {
        mode: 'socket',
        botToken: workspace.botToken,
        appToken: 'xapp-wrong',
        slackApiUrl: fake.slackApiUrl,
      },
    }).catch((error: SlackChannelError) => error);
    expect(failure).toMatchObject({ code: 'SLACK_AUTH_FAILED', retryable: false });
    expect((failure as Error).message).toMatch(
      /app-level token of account "default" \(invalid_auth\).*appToken/,
    );
  });

  it('stops the account for good when the app token is revoked while it runs', async () => {
    const running = await start();
    fake.revokeToken(fake.workspace().appToken, 'account_inactive');
    fake.dropSocketConnections();
    const status = await running.waitForStatus((next) => next.state === 'error');
    expect(status.error).toMatch(/account_inactive/);
    expect(status.detail).toMatch(/not retrying/);
    await expect(
      running.account.send({
        kind: 'text',
        channel: 'slack',
        accountId: 'default',
        peer: { kind: 'direct', id: 'U0ALICE' },
        text: 'hello?',
      }),
    ).rejects.toMatchObject({ code: 'SLACK_AUTH_FAILED', retryable: false });
    expect(fake.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('closes the socket on stop and does not reconnect', async () => {
    const running = await start();
    await running.stop();
    await expect.poll(() => fake.socketConnections()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.callsTo('apps.connections.open')).toHaveLength(1);
    expect(running.statuses.at(-1)?.state).toBe('stopped');
  });
});
