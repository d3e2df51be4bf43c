// Starting, failing and stopping: 401, 409, network errors, stop, and the plugin export.
import {
  type ChannelAccountStatus,
  createPluginRegistry,
  noopLogger,
  type SwitchboardError,
} from '@switchboard/hooks';
import { createFakeTelegram, type FakeTelegram } from '@switchboard/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import telegramPlugin, { createTelegramChannel } from '../src/index.ts';
import { eventually, recordingSleep, startTestAccount, stopTestAccounts } from './support.ts';

let fake: FakeTelegram;

beforeEach(async () => {
  fake = await createFakeTelegram().start();
});

afterEach(async () => {
  await stopTestAccounts();
  await fake.close();
});

async function failure(promise: Promise<unknown>): Promise<SwitchboardError> {
  try {
    await promise;
  } catch (error) {
    return error as SwitchboardError;
  }
  throw new Error('expected a rejection');
}

describe('starting', () => {
  it('fails for good on a token Telegram rejects, naming the key to fix', async () => {
    const statuses: ChannelAccountStatus[] = [];
    const error = await failure(startTestAccount(fake, { config: { botToken: '42:WRONG-token' }, statuses }));
    expect(error).toMatchObject({ code: 'TELEGRAM_INVALID_TOKEN', retryable: false });
    expect(error.message).toBe(
      'Telegram rejected the bot token of account "default" (401 Unauthorized): check channels.telegram.botToken',
    );
    expect(statuses.at(-1)).toMatchObject({ state: 'error', detail: 'not retrying: fix the configuration' });
    expect(JSON.stringify(statuses)).not.toContain('WRONG-token');

    const named = await failure(
      startTestAccount(fake, { accountId: 'work', config: { botToken: '42:WRONG-token' } }),
    );
    expect(named.message).toMatch(/check channels\.telegram\.accounts\.work\.botToken$/);
  });

  it('fails retryably when the Bot API cannot be reached', async () => {
    const closed = await createFakeTelegram().start();
    const apiRoot = closed.apiRoot;
    await closed.close();
    const error = await failure(startTestAccount(fake, { config: { apiRoot } }));
    expect(error).toMatchObject({ code: 'TELEGRAM_NETWORK_ERROR', retryable: true });
  });

  it('deletes a leftover webhook before polling, and reports itself connected', async () => {
    const test = await startTestAccount(fake);
    expect(fake.requestsFor('deleteWebhook')[0]?.params).toEqual({ drop_pending_updates: false });
    await eventually(() => fake.polling, 'the first poll');
    expect(fake.requestsFor('getUpdates')[0]?.params).toMatchObject({
      timeout: 1,
      allowed_updates: ['message', 'edited_message', 'channel_post', 'edited_channel_post'],
    });
    expect(test.statuses.map((status) => status.state)).toEqual(['starting', 'connected']);
  });
});

describe('failures while polling', () => {
  it('stops polling and says why when the token is revoked', async () => {
    const test = await startTestAccount(fake);
    await eventually(() => fake.polling, 'polling');
    fake.revokeToken();
    fake.pushMessage({ chat: 1, text: 'release the parked poll' });
    await eventually(() => test.status()?.state === 'error', 'the error status');
    expect(test.status()).toMatchObject({
      state: 'error',
      error: expect.stringMatching(/rejected the bot token \(401 Unauthorized\)/),
      detail: 'polling stopped: fix channels.telegram.botToken and restart the gateway',
    });
    const calls = fake.requestsFor('getUpdates').length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.requestsFor('getUpdates')).toHaveLength(calls);
    // Sends say the same, and the account stays in error.
    const error = await failure(
      test.account.send({
        kind: 'text',
        channel: 'telegram',
        accountId: 'default',
        peer: { kind: 'direct', id: '1' },
        text: 'x',
      }),
    );
    expect(error).toMatchObject({ code: 'TELEGRAM_INVALID_TOKEN', retryable: false });
  });

  it('reports a 409 conflict with another poller and backs off instead of restarting', async () => {
    const sleeps: number[] = [];
    const options = { sleep: recordingSleep(sleeps), random: () => 0.5 };
    const test = await startTestAccount(fake, { channelOptions: options });
    await eventually(() => fake.polling, 'polling');
    // Another process on the same token: each poll terminates the other's.
    const intruder = await startTestAccount(fake, {
      channel: createTelegramChannel({ sleep: recordingSleep([]), random: () => 0.5 }),
    });
    await eventually(
      () =>
        test.statuses.some((status) => status.state === 'error') &&
        sleeps.filter((ms) => ms >= 20_000).length > 0,
      'a conflict reported and backed off',
    );
    const conflict = test.statuses.find((status) => status.state === 'error')!;
    expect(conflict.detail).toMatch(/^409 Conflict: another bot instance polls with this token/);
    expect(conflict.error).toMatch(/terminated by other getUpdates request/);
    // Backoff doubles (5 s, 10 s, 20 s, ...) up to a minute; the account is never restarted.
    const conflictSleeps = sleeps.filter((ms) => ms >= 5_000);
    expect(conflictSleeps.slice(0, 3)).toEqual([5_000, 10_000, 20_000]);
    expect(Math.max(...conflictSleeps)).toBeLessThanOrEqual(60_000);
    expect(test.statuses.filter((status) => status.state === 'starting')).toHaveLength(1);
    // The other instance goes away: back to normal.
    await intruder.stop();
    await eventually(() => test.status()?.state === 'connected', 'connected again');
    fake.pushMessage({ chat: 2, text: 'still here' });
    await eventually(() => test.received.length === 1, 'a message after the conflict');
  });

  it('backs off and reconnects after network errors and 5xx answers', async () => {
    const test = await startTestAccount(fake, { channelOptions: { random: () => 0.5 } });
    await eventually(() => fake.polling, 'polling');
    fake.injectFault({ type: 'network' }, { method: 'getUpdates' });
    fake.injectFault({ type: 'server', status: 502 }, { method: 'getUpdates' });
    fake.pushMessage({ chat: 3, text: 'before' });
    await eventually(() => test.received.length === 1, 'the first message');
    await eventually(
      () => test.statuses.filter((status) => status.state === 'reconnecting').length === 2,
      'two failures',
    );
    await eventually(() => test.status()?.state === 'connected', 'reconnected');
    expect(test.statuses.find((status) => status.state === 'reconnecting')).toMatchObject({
      detail: 'cannot reach the Bot API; retrying in 1 s',
    });
    expect(test.sleeps).toEqual([1000, 2000]);
    fake.pushMessage({ chat: 3, text: 'after' });
    await eventually(() => test.received.length === 2, 'the second message');
  });

  it('waits out a 429 on getUpdates', async () => {
    const test = await startTestAccount(fake);
    await eventually(() => fake.polling, 'polling');
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 9 }, { method: 'getUpdates' });
    fake.pushMessage({ chat: 4, text: 'x' });
    await eventually(() => test.sleeps.includes(9000), 'the retry_after wait');
    expect(
      test.statuses.some((status) =>
        /rate limited by Telegram; polling again in 9 s/.test(status.detail ?? ''),
      ),
    ).toBe(true);
  });
});

describe('stopping', () => {
  it('ends polling, confirms what was handled, and refuses sends afterwards', async () => {
    const test = await startTestAccount(fake);
    fake.pushMessage({ chat: 5, text: 'last words' });
    await eventually(() => test.received.length === 1, 'the message');
    await test.stop();
    expect(fake.pendingUpdates).toEqual([]);
    expect(test.status()).toMatchObject({ state: 'stopped' });
    await eventually(() => !fake.polling, 'the parked poll to be dropped');
    const calls = fake.requestsFor('getUpdates').length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.requestsFor('getUpdates')).toHaveLength(calls);
    const error = await failure(
      test.account.send({
        kind: 'text',
        channel: 'telegram',
        accountId: 'default',
        peer: { kind: 'direct', id: '5' },
        text: 'x',
      }),
    );
    expect(error).toMatchObject({ code: 'TELEGRAM_NOT_RUNNING' });
  });
});

describe('the plugin', () => {
  it('registers the telegram channel, and importing it does nothing else', async () => {
    expect(telegramPlugin).toMatchObject({ name: 'telegram', specVersion: 1 });
    const registry = createPluginRegistry({ logger: noopLogger });
    await registry.register(telegramPlugin);
    const channel = registry.channel('telegram')?.channel;
    expect(channel).toMatchObject({
      id: 'telegram',
      label: 'Telegram',
      capabilities: {
        textLimit: 4000,
        markup: 'telegram-html',
        threads: true,
        media: true,
        edits: true,
        typing: true,
      },
    });
    expect(channel?.normalizeAllowEntry?.('tg:123')).toBe('123');
    expect(channel?.normalizeAllowEntry?.(' telegram:456 ')).toBe('456');
    await registry.unregisterAll();
  });
});
