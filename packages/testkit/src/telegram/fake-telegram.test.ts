import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bot, GrammyError, HttpError, InputFile, webhookCallback } from 'grammy';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeTelegram, type FakeTelegram } from './fake-telegram.ts';

const fakes: FakeTelegram[] = [];
const servers: Server[] = [];

async function startFake(options: Parameters<typeof createFakeTelegram>[0] = {}): Promise<FakeTelegram> {
  const fake = await createFakeTelegram(options).start();
  fakes.push(fake);
  return fake;
}

function botFor(fake: FakeTelegram, token = fake.token): Bot {
  return new Bot(token, { client: { apiRoot: fake.apiRoot } });
}

afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('FakeTelegram through grammY', () => {
  it('answers getMe for its token and 401 for any other', async () => {
    const fake = await startFake({ botUsername: 'acme_bot' });
    const me = await botFor(fake).api.getMe();
    expect(me).toMatchObject({ id: 123456789, is_bot: true, username: 'acme_bot' });
    const error = await rejection(botFor(fake, '999:WRONG').api.getMe());
    expect(error).toBeInstanceOf(GrammyError);
    expect((error as GrammyError).error_code).toBe(401);
    expect(fake.requestsFor('getMe').map((request) => request.status)).toEqual([200, 401]);
  });

  it('delivers pushed messages to bot.start() long polling and confirms the offset on stop', async () => {
    const fake = await startFake();
    const bot = botFor(fake);
    const texts: string[] = [];
    bot.on('message:text', (ctx) => {
      texts.push(ctx.message.text);
    });
    void bot.start({ timeout: 1 });
    await fake.waitFor(() => fake.polling, { description: 'the bot to poll' });
    const chat = fake.privateChat(fake.user(42, { firstName: 'Ada', username: 'ada' }));
    fake.pushMessage({ chat, text: 'hello' });
    fake.pushMessage({ chat, text: 'again' });
    await fake.waitFor(() => texts.length === 2);
    await bot.stop();
    expect(texts).toEqual(['hello', 'again']);
    // bot.stop() sends a last getUpdates with the next offset: both updates are confirmed.
    expect(fake.confirmedOffset).toBe(3);
    expect(fake.pendingUpdates).toEqual([]);
    // deleteWebhook then getUpdates, as grammY's start sequence does.
    expect(fake.requestsFor('deleteWebhook')).toHaveLength(1);
  });

  it('parks getUpdates until an update arrives, and answers [] when its timeout passes', async () => {
    const fake = await startFake();
    const api = botFor(fake).api;
    const started = Date.now();
    const empty = await api.getUpdates({ timeout: 1 });
    expect(empty).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const parked = api.getUpdates({ timeout: 10 });
    await fake.waitFor(() => fake.polling);
    const pushed = fake.pushMessage({ chat: 7, text: 'wake up' });
    const updates = await parked;
    expect(updates.map((update) => update.update_id)).toEqual([pushed.update_id]);
    expect(updates[0]?.message?.text).toBe('wake up');
  });

  it('keeps unconfirmed updates and drops them once an offset passes them', async () => {
    const fake = await startFake();
    const api = botFor(fake).api;
    const first = fake.pushMessage({ chat: 7, text: 'one' });
    fake.pushMessage({ chat: 7, text: 'two' });
    expect((await api.getUpdates({ timeout: 0 })).map((update) => update.message?.text)).toEqual([
      'one',
      'two',
    ]);
    // Not confirmed yet: asked again, they come again.
    expect(await api.getUpdates({ timeout: 0 })).toHaveLength(2);
    const rest = await api.getUpdates({ offset: first.update_id + 1, timeout: 0 });
    expect(rest.map((update) => update.message?.text)).toEqual(['two']);
    expect(fake.confirmedOffset).toBe(first.update_id + 1);
    expect(fake.pendingUpdates).toHaveLength(1);
  });

  it('answers 409 to a parked poller when a second one polls, as Telegram does', async () => {
    const fake = await startFake();
    const api = botFor(fake).api;
    const first = api.getUpdates({ timeout: 10 });
    await fake.waitFor(() => fake.polling);
    const second = api.getUpdates({ timeout: 1 });
    const error = await rejection(first);
    expect((error as GrammyError).error_code).toBe(409);
    expect((error as GrammyError).description).toMatch(/terminated by other getUpdates request/);
    expect(await second).toEqual([]);
  });

  it('parses HTML like Telegram, records replies and topics, and refuses what Telegram refuses', async () => {
    const fake = await startFake();
    const api = botFor(fake).api;
    const group = fake.groupChat({ id: -100200, title: 'Team', forum: true });
    const question = fake.pushMessage({ chat: group, from: 5, text: 'question', topicId: 9 }).message!;
    const sent = await api.sendMessage(
      group.id,
      '<b>Bold</b> &amp; <a href="https://x.test/?a=1&amp;b=2">link</a>',
      {
        parse_mode: 'HTML',
        reply_parameters: { message_id: question.message_id },
        message_thread_id: 9,
      },
    );
    expect(sent.text).toBe('Bold & link');
    expect(sent.reply_to_message?.message_id).toBe(question.message_id);
    const [recorded] = fake.messagesIn(group.id);
    expect(recorded).toMatchObject({
      text: 'Bold & link',
      replyToMessageId: question.message_id,
      threadId: 9,
      parseMode: 'HTML',
      entities: [
        { type: 'bold', offset: 0, length: 4 },
        { type: 'text_link', offset: 7, length: 4, url: 'https://x.test/?a=1&b=2' },
      ],
    });

    const unbalanced = await rejection(api.sendMessage(group.id, '<b>never closed', { parse_mode: 'HTML' }));
    expect((unbalanced as GrammyError).description).toMatch(
      /can't parse entities: Can't find end tag corresponding to start tag "b"/,
    );
    const unknownTag = await rejection(api.sendMessage(group.id, '<div>x</div>', { parse_mode: 'HTML' }));
    expect((unknownTag as GrammyError).description).toMatch(/Unsupported start tag "div"/);
    const tooLong = await rejection(api.sendMessage(group.id, 'x'.repeat(4097)));
    expect((tooLong as GrammyError).description).toBe('Bad Request: message is too long');
    // The limit counts visible characters: 4,096 of them in bold is fine.
    await api.sendMessage(group.id, `<b>${'y'.repeat(4096)}</b>`, { parse_mode: 'HTML' });
    const missingReply = await rejection(
      api.sendMessage(group.id, 'hi', { reply_parameters: { message_id: 999 } }),
    );
    expect((missingReply as GrammyError).description).toBe('Bad Request: message to be replied not found');
    await api.sendMessage(group.id, 'hi', {
      reply_parameters: { message_id: 999, allow_sending_without_reply: true },
    });
    expect(fake.messagesIn(group.id)).toHaveLength(3);
  });

  it('takes grammY multipart uploads (lenient part headers) and serves files for getFile', async () => {
    const fake = await startFake();
    const bot = botFor(fake);
    const bytes = Uint8Array.from({ length: 3000 }, (_, index) => index % 251);
    const photo = await bot.api.sendPhoto(77, new InputFile(bytes, 'chart.png'), {
      caption: '<i>weekly</i> chart',
      parse_mode: 'HTML',
    });
    expect(photo.caption).toBe('weekly chart');
    const [recorded] = fake.messagesIn(77);
    expect(recorded?.media?.kind).toBe('photo');
    expect(recorded?.media?.fileName).toBe('chart.png');
    expect(Buffer.from(recorded!.media!.bytes!).equals(Buffer.from(bytes))).toBe(true);
    expect(fake.requestsFor('sendPhoto')[0]?.params.chat_id).toBe('77');

    const uploaded = fake.pushDocument({
      chat: 77,
      bytes: Buffer.from('%PDF-1.4 report'),
      fileName: 'report.pdf',
      mimeType: 'application/pdf',
    });
    const file = await bot.api.getFile(uploaded.message!.document!.file_id);
    expect(file.file_path).toMatch(/^documents\/file_\d+\.pdf$/);
    const download = await fetch(`${fake.apiRoot}/file/bot${fake.token}/${file.file_path}`);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('%PDF-1.4 report');
    expect((await fetch(`${fake.apiRoot}/file/bot1:WRONG/${file.file_path}`)).status).toBe(401);
    const invalid = await rejection(bot.api.getFile('no-such-file'));
    expect((invalid as GrammyError).description).toBe('Bad Request: invalid file_id');
  });

  it('edits messages, and refuses an edit that changes nothing', async () => {
    const fake = await startFake();
    const api = botFor(fake).api;
    const sent = await api.sendMessage(5, 'draft');
    await api.editMessageText(5, sent.message_id, '<b>final</b>', { parse_mode: 'HTML' });
    const [recorded] = fake.messagesIn(5);
    expect(recorded?.text).toBe('final');
    expect(recorded?.edits).toHaveLength(1);
    const same = await rejection(
      api.editMessageText(5, sent.message_id, '<b>final</b>', { parse_mode: 'HTML' }),
    );
    expect((same as GrammyError).description).toMatch(/message is not modified/);
    const missing = await rejection(api.editMessageText(5, 999, 'x'));
    expect((missing as GrammyError).description).toBe('Bad Request: message to edit not found');
  });

  it('POSTs updates to a webhook with the secret token, and retries until answered 2xx', async () => {
    const fake = await startFake({ webhookRetryMs: 20 });
    const bot = botFor(fake);
    await bot.init();
    const seen: string[] = [];
    bot.on('message:text', (ctx) => {
      seen.push(ctx.message.text);
    });
    let accept = false;
    const callback = webhookCallback(bot, 'http', { secretToken: 'right-secret' });
    const server = createServer((request, response) => {
      if (!accept) {
        response.writeHead(503).end();
        return;
      }
      void callback(request, response);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/telegram/hook`;

    // A wrong secret: grammY answers 401, and the fake keeps the update and tries again.
    await bot.api.setWebhook(url, { secret_token: 'wrong-secret' });
    accept = true;
    fake.pushMessage({ chat: 9, text: 'via webhook' });
    await fake.waitFor(() => fake.webhookDeliveries.length >= 2);
    expect(fake.webhookDeliveries.every((delivery) => delivery.status === 401)).toBe(true);
    expect(seen).toEqual([]);

    // The right secret: delivered and confirmed.
    await bot.api.setWebhook(url, { secret_token: 'right-secret' });
    await fake.waitFor(() => seen.length === 1);
    await fake.waitFor(() => fake.pendingUpdates.length === 0);
    expect(seen).toEqual(['via webhook']);
    expect(fake.webhook).toMatchObject({ url, secretToken: 'right-secret' });

    // getUpdates is refused while a webhook is set.
    const conflict = await rejection(bot.api.getUpdates({ timeout: 0 }));
    expect((conflict as GrammyError).error_code).toBe(409);
  });

  it('redirects webhook deliveries to another origin, keeping the path', async () => {
    const fake = await startFake();
    const paths: string[] = [];
    const server = createServer((request, response) => {
      paths.push(`${request.url} ${request.headers['x-telegram-bot-api-secret-token']}`);
      response.writeHead(200).end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await botFor(fake).api.setWebhook('https://public.example/tg/main/webhook?x=1', {
      secret_token: 's3cret',
    });
    fake.setWebhookOrigin(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    fake.pushMessage({ chat: 3, text: 'hi' });
    await fake.waitFor(() => paths.length === 1);
    expect(paths).toEqual(['/tg/main/webhook?x=1 s3cret']);
  });

  it('injects 429, 403, 500 and dropped connections, for the calls and counts asked', async () => {
    const fake = await startFake();
    const api = botFor(fake).api;
    const rule = fake.injectFault(
      { type: 'rate_limit', retryAfterSeconds: 7 },
      { method: 'sendMessage', times: 2 },
    );
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const limited = (await rejection(api.sendMessage(1, 'x'))) as GrammyError;
      expect(limited.error_code).toBe(429);
      expect(limited.parameters.retry_after).toBe(7);
    }
    expect(rule.hits).toBe(2);
    expect(rule.remaining).toBe(0);
    await api.sendMessage(1, 'through');
    // Other methods were never affected.
    await api.sendChatAction(1, 'typing');

    fake.injectFault({ type: 'forbidden' }, { method: 'sendMessage' });
    expect(((await rejection(api.sendMessage(1, 'x'))) as GrammyError).error_code).toBe(403);
    fake.injectFault({ type: 'server', status: 502 });
    expect(((await rejection(api.getMe())) as GrammyError).error_code).toBe(502);
    fake.injectFault({ type: 'network' }, { method: 'getMe' });
    expect(await rejection(api.getMe())).toBeInstanceOf(HttpError);
    fake.injectFault({ type: 'unauthorized' }, { method: 'getMe' });
    expect(((await rejection(api.getMe())) as GrammyError).error_code).toBe(401);

    fake.blockBot(1);
    const blocked = (await rejection(api.sendMessage(1, 'x'))) as GrammyError;
    expect(blocked.description).toBe('Forbidden: bot was blocked by the user');
    fake.unblockBot(1);
    fake.revokeToken();
    expect(((await rejection(api.getMe())) as GrammyError).error_code).toBe(401);
    fake.restoreToken();
    await api.getMe();
    expect(fake.chatActions).toEqual([expect.objectContaining({ chatId: 1, action: 'typing' })]);
  });

  it('validates its options and its faults', () => {
    expect(() => createFakeTelegram({ token: 'not a token' })).toThrow(
      /options.token must look like a bot token/,
    );
    expect(() => createFakeTelegram({ webhookRetryMs: -1 })).toThrow(/options.webhookRetryMs/);
    const fake = createFakeTelegram();
    expect(() => fake.injectFault({ type: 'boom' } as never)).toThrow(/fault.type must be one of/);
    expect(() => fake.injectFault({ type: 'network' }, { times: 0 })).toThrow(/times must be an integer/);
    expect(() => fake.groupChat({ id: 5 })).toThrow(/must be negative/);
    expect(() => fake.apiRoot).toThrow(/before start/);
  });
});
