// Failures through the real discord.js against FakeDiscord: rate limits, bad and revoked
// tokens, a missing privileged intent, gateway disconnects and resumes, several accounts.
import { SwitchboardError, sendWithRetry } from '@switchboard/hooks';
import { createFakeDiscord, type FakeDiscord } from '@switchboard/testkit/discord';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StartedAccount, startAccount } from '../test/start-account.ts';
import { createDiscordChannel } from './channel.ts';

let fake: FakeDiscord;
let alice: string;
let general: string;
const running: StartedAccount[] = [];
const fakes: FakeDiscord[] = [];

async function start(
  target: FakeDiscord,
  options: Parameters<typeof startAccount>[1] = {},
): Promise<StartedAccount> {
  const account = await startAccount(target, options);
  running.push(account);
  return account;
}

beforeEach(async () => {
  fake = await createFakeDiscord().start();
  fakes.push(fake);
  alice = fake.addUser({ username: 'alice' }).id;
  const guild = fake.addGuild({ name: 'Guild', channels: [{ name: 'general' }] });
  general = guild.channels.general!;
  fake.setMember(guild.id, alice);
});

afterEach(async () => {
  for (const account of running.splice(0)) await account.stop();
  for (const each of fakes.splice(0)) await each.close();
});

const text = (peerId: string, body: string) =>
  ({
    kind: 'text',
    channel: 'discord',
    accountId: 'default',
    peer: { kind: 'channel', id: peerId },
    text: body,
  }) as const;

describe('rate limits', () => {
  it('makes one request on a 429 and fails retryable with the retry-after, never retrying itself', async () => {
    const account = await start(fake);
    fake.rateLimitNext({ count: 1, retryAfterSeconds: 0.05, method: 'POST', path: /\/messages$/ });
    await expect(account.account.send(text(general, 'once'))).rejects.toMatchObject({
      code: 'DISCORD_RATE_LIMITED',
      retryable: true,
      details: { retryAfterMs: expect.any(Number) },
    });
    const posts = fake.requests.filter(
      (request) => request.method === 'POST' && request.path.endsWith('/messages'),
    );
    expect(posts.map((request) => request.status)).toEqual([429]);
    expect(account.account.sendRetry).toEqual({ attempts: 4, maxWaitMs: 60_000 });
  });

  // Through sendWithRetry, the gateway's one retry layer, as every send goes.
  it('waits out a 429 and delivers, within the bounded retries', async () => {
    const account = await start(fake);
    fake.rateLimitNext({ count: 2, retryAfterSeconds: 0.05, method: 'POST', path: /\/messages$/ });
    const result = await sendWithRetry(account.account, text(general, 'eventually'));
    expect(fake.botMessages(general).map((message) => message.content)).toEqual(['eventually']);
    expect(result.messageIds).toHaveLength(1);
    expect(fake.rateLimitedCount).toBe(2);
    const posts = fake.requests.filter(
      (request) => request.method === 'POST' && request.path.endsWith('/messages'),
    );
    expect(posts.map((request) => request.status)).toEqual([429, 429, 200]);
    expect(account.logs.filter((line) => /rate limited by Discord/.test(line.message))).toHaveLength(2);
  });

  it('gives up after rateLimit.maxRetries with a retryable error', async () => {
    const account = await start(fake, { config: { rateLimit: { maxRetries: 1 } } });
    fake.rateLimitNext({ count: 5, retryAfterSeconds: 0.02, method: 'POST', path: /\/messages$/ });
    const failure = await sendWithRetry(account.account, text(general, 'never')).catch(
      (error: unknown) => error,
    );
    expect(SwitchboardError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ code: 'DISCORD_RATE_LIMITED', retryable: true });
    expect(fake.rateLimitedCount).toBe(2);
    expect(fake.botMessages(general)).toHaveLength(0);
  });

  it('fails at once when Discord asks to wait longer than rateLimit.maxWaitSeconds', async () => {
    const account = await start(fake, { config: { rateLimit: { maxWaitSeconds: 5 } } });
    fake.rateLimitNext({ count: 1, retryAfterSeconds: 30, method: 'POST' });
    const began = Date.now();
    await expect(account.account.send(text(general, 'later'))).rejects.toMatchObject({
      code: 'DISCORD_RATE_LIMITED',
      retryable: true,
      details: { retryAfterMs: expect.any(Number) },
    });
    expect(Date.now() - began).toBeLessThan(2000);
  });

  it('never waits on a rate limit for a typing indicator', async () => {
    const account = await start(fake);
    fake.rateLimitNext({ count: 1, retryAfterSeconds: 10, path: /\/typing$/ });
    await expect(account.account.typing?.({ peer: { kind: 'channel', id: general } })).rejects.toMatchObject({
      code: 'DISCORD_RATE_LIMITED',
    });
  });
});

describe('tokens', () => {
  it('refuses an invalid token at start with a clear, non-retryable error', async () => {
    const failure = await startAccount(fake, { config: { token: 'not-the-token' } }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'DISCORD_INVALID_TOKEN', retryable: false });
    expect((failure as Error).message).toMatch(/Discord rejected the bot token of channels\.discord\.token/);
    expect((failure as Error).message).not.toContain('not-the-token');
    expect(fake.sessions()).toHaveLength(0);
  });

  it('treats a gateway close 4004 at IDENTIFY as an invalid token', async () => {
    // REST accepts the token, the gateway does not (a token reset between the two calls).
    const channel = createDiscordChannel();
    const original = fake.token;
    const pending = startAccount(fake, { channel });
    await fake.waitFor(() => fake.requests.some((request) => request.path === '/gateway/bot'), 'gateway/bot');
    fake.setToken(`${original}-rotated`);
    await expect(pending).rejects.toMatchObject({
      code: 'DISCORD_INVALID_TOKEN',
      message: /gateway close 4004/,
    });
  });

  it('reports a token revoked while running in status and the log', async () => {
    const account = await start(fake);
    fake.revokeToken();
    const status = await account.waitForStatus((entry) => entry.state === 'error');
    expect(status.error).toMatch(/rejected the bot token \(gateway close 4004\)/);
    expect(account.logs.some((line) => line.level === 'error')).toBe(true);
    await expect(account.account.send(text(general, 'after revoke'))).rejects.toMatchObject({
      code: 'DISCORD_INVALID_TOKEN',
      retryable: false,
    });
  });

  it('refuses a second account with the same token', async () => {
    const channel = createDiscordChannel();
    await start(fake, { channel, accountId: 'main' });
    await expect(startAccount(fake, { channel, accountId: 'copy' })).rejects.toMatchObject({
      code: 'DISCORD_DUPLICATE_TOKEN',
      retryable: false,
      message: /channels\.discord\.accounts\.copy\.token is the same bot token as account "main"/,
    });
  });

  it('reports an unreachable API as a retryable connect failure', async () => {
    const closed = await createFakeDiscord().start();
    const restApi = closed.restApi;
    await closed.close();
    await expect(startAccount(fake, { config: { restApi } })).rejects.toMatchObject({
      code: 'DISCORD_CONNECT_FAILED',
      retryable: true,
    });
  });
});

describe('privileged intent', () => {
  it('connects without Message Content, and explains it in the status and the log', async () => {
    fake.setMessageContentIntent(false);
    const account = await start(fake);
    expect(account.statuses.at(-1)).toMatchObject({ state: 'connected', detail: /Message Content Intent/ });
    expect(
      account.logs.some((line) => line.level === 'warn' && /Privileged Gateway Intents/.test(line.message)),
    ).toBe(true);
    expect(fake.sessions()[0]?.intents).toBe(37377 - 32768);
    // Without the intent, Discord blanks unmentioned guild messages: nothing to hand over.
    fake.sendToChannel(general, alice, 'cannot be read');
    fake.sendToChannel(general, alice, `<@${fake.bot.id}> this one mentions the bot`);
    fake.sendDirect(alice, 'DMs keep their text');
    const received = await account.waitForReceived(2);
    // Two conversations: each keeps its order, not the order between them.
    expect(received.map((message) => message.text).sort()).toEqual([
      'DMs keep their text',
      'this one mentions the bot',
    ]);
  });
});

describe('gateway disconnects', () => {
  it('resumes after op 7 RECONNECT and reports reconnecting, then connected', async () => {
    const account = await start(fake);
    fake.forceReconnect();
    await account.waitForStatus((status) => status.state === 'reconnecting');
    await account.waitForStatus((status) => status.state === 'connected');
    expect(fake.resumeCount).toBe(1);
    expect(fake.identifyCount).toBe(1);
    fake.sendDirect(alice, 'after the resume');
    await account.waitForReceived(1);
  });

  it('gets the messages sent while the connection was down, replayed on RESUME', async () => {
    const account = await start(fake);
    fake.dropConnections({ abrupt: true });
    await fake.waitFor(() => fake.sessions().every((session) => !session.connected), 'the drop');
    fake.sendDirect(alice, 'sent while the bot was disconnected');
    const [message] = await account.waitForReceived(1, 10_000);
    expect(message?.text).toBe('sent while the bot was disconnected');
    expect(fake.resumeCount).toBe(1);
    expect(fake.identifyCount).toBe(1);
  });

  // discord.js spaces IDENTIFYs 5 s apart (Discord's identify limit), so this one takes ~6 s.
  it('identifies again when the session cannot be resumed', async () => {
    const account = await start(fake);
    fake.invalidateSessions(false);
    await fake.waitFor(
      () => fake.identifyCount === 2 && fake.sessions().some((session) => session.connected),
      're-identify',
      {
        timeoutMs: 15_000,
      },
    );
    fake.sendDirect(alice, 'on the new session');
    const [message] = await account.waitForReceived(1, 10_000);
    expect(message?.text).toBe('on the new session');
  }, 20_000);

  it('closes its session on stop and refuses to send afterwards', async () => {
    const account = await start(fake);
    await account.stop();
    expect(account.statuses.at(-1)).toEqual(expect.objectContaining({ state: 'stopped' }));
    await fake.waitFor(() => fake.sessions().length === 0, 'the session to end');
    await expect(account.account.send(text(general, 'too late'))).rejects.toMatchObject({
      code: 'DISCORD_NOT_CONNECTED',
    });
  });
});

describe('several accounts', () => {
  it('runs one client per account, each tagging its messages with its account id', async () => {
    const other = await createFakeDiscord({ bot: { username: 'second-bot' } }).start();
    fakes.push(other);
    const carol = other.addUser({ username: 'carol' }).id;
    const channel = createDiscordChannel();
    const first = await start(fake, { channel, accountId: 'main' });
    const second = await start(other, { channel, accountId: 'support' });
    fake.sendDirect(alice, 'to the main bot');
    other.sendDirect(carol, 'to the support bot');
    const [one] = await first.waitForReceived(1);
    const [two] = await second.waitForReceived(1);
    expect(one).toMatchObject({ accountId: 'main', text: 'to the main bot', sender: { id: alice } });
    expect(two).toMatchObject({ accountId: 'support', text: 'to the support bot', sender: { id: carol } });
    await second.account.send({
      ...text(carol, 'answer'),
      accountId: 'support',
      peer: { kind: 'direct', id: carol },
    });
    expect(other.botMessages(other.dmChannel(carol).id).map((message) => message.content)).toEqual([
      'answer',
    ]);
    expect(fake.botMessages(fake.dmChannel(alice).id)).toHaveLength(0);
  });
});
