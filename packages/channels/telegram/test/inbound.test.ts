// Inbound through grammY long polling against FakeTelegram: what reaches the gateway, and
// when Telegram is told an update arrived.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { GroupInboundMessage, InboundMessage, ReceiveOutcome } from '@switchboard/hooks';
import { createFakeTelegram, type FakeTelegram } from '@switchboard/testkit/telegram';
import { Bot } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramChannel } from '../src/index.ts';
import { eventually, startTestAccount, stopTestAccounts } from './support.ts';

let fake: FakeTelegram;

beforeEach(async () => {
  fake = await createFakeTelegram({ botUsername: 'helper_bot' }).start();
});

afterEach(async () => {
  await stopTestAccounts();
  await fake.close();
});

const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('inbound through long polling', () => {
  it('hands a DM to the gateway as a direct message keyed by chat and message id', async () => {
    const test = await startTestAccount(fake);
    const ada = fake.user(501, { firstName: 'Ada', lastName: 'Lovelace', username: 'ada' });
    const update = fake.pushMessage({ chat: fake.privateChat(ada), text: 'hello bot' });
    await eventually(() => test.received.length === 1, 'the DM');
    const message = test.received[0]!;
    expect(message).toMatchObject({
      channel: 'telegram',
      accountId: 'default',
      chatType: 'direct',
      peer: { kind: 'direct', id: '501' },
      sender: { id: '501', name: 'Ada Lovelace', username: 'ada', isBot: false },
      messageId: `501:${update.message!.message_id}`,
      text: 'hello bot',
      timestamp: update.message!.date * 1000,
    });
    expect(message.thread).toBeUndefined();
    expect(test.status()).toMatchObject({
      state: 'connected',
      detail: 'long polling',
      identity: { id: '123456789', name: '@helper_bot' },
    });
    expect(test.status()?.lastInboundAt).toBeTypeOf('number');
  });

  it('advances the offset only after receive resolved, and asks again after a failed receive', async () => {
    const test = await startTestAccount(fake);
    const first = deferred<ReceiveOutcome>();
    const attempts: string[] = [];
    test.setReceive((message) => {
      attempts.push(message.text);
      return attempts.length === 1 ? first.promise : Promise.resolve({ status: 'journaled' });
    });
    const update = fake.pushMessage({ chat: 601, text: 'keep me' });
    await eventually(() => attempts.length === 1, 'the first receive');
    // The gateway has not answered: Telegram still holds the update, and nothing was confirmed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.pendingUpdates.map((pending) => pending.update_id)).toEqual([update.update_id]);
    expect(fake.confirmedOffset).toBe(0);

    // The journal write fails: the update must come again.
    first.reject(new Error('database is locked'));
    await eventually(() => attempts.length === 2, 'the redelivery');
    expect(attempts).toEqual(['keep me', 'keep me']);
    expect(
      test.statuses.some(
        (status) => status.state === 'reconnecting' && /update \d+ not taken/.test(status.detail ?? ''),
      ),
    ).toBe(true);
    // Taken now: the next poll confirms it.
    await eventually(
      () => fake.confirmedOffset === update.update_id + 1,
      'the offset to move past the update',
    );
    expect(fake.pendingUpdates).toEqual([]);
    await eventually(() => test.status()?.state === 'connected', 'connected again');
  });

  it('keeps the order within a chat and redelivers the rest of a chat after a failure', async () => {
    // Queued before the account starts, so the first poll returns them as one batch.
    fake.pushMessage({ chat: 701, text: 'a1' });
    fake.pushMessage({ chat: 701, text: 'a2' });
    fake.pushMessage({ chat: 702, text: 'b1' });
    fake.pushMessage({ chat: 701, text: 'a3' });
    const seen: string[] = [];
    let failOnce = true;
    const test = await startTestAccount(fake, {
      async receive(message) {
        seen.push(message.text);
        if (message.text === 'a2' && failOnce) {
          failOnce = false;
          throw new Error('transient');
        }
        return { status: 'journaled' };
      },
    });
    await eventually(() => test.received.some((message) => message.text === 'a3'), 'a3');
    // a3 is never tried before a2 went through; a2 is tried twice; b1 was not held up.
    expect(seen.slice(0, 3).sort()).toEqual(['a1', 'a2', 'b1']);
    expect(seen.indexOf('a3')).toBeGreaterThan(seen.lastIndexOf('a2'));
    expect(seen.filter((text) => text === 'a2')).toHaveLength(2);
    await eventually(() => fake.pendingUpdates.length === 0, 'everything confirmed');
  });

  it('sets wasMentioned for @bot, /command@bot, text mentions, replies to the bot and configured patterns', async () => {
    const test = await startTestAccount(fake, { config: { mentionPatterns: ['\\bhelper\\b'] } });
    const group = fake.groupChat({ id: -100500, title: 'Crew' });
    const bob = fake.user(42, { firstName: 'Bob' });
    fake.pushMessage({ chat: group, from: bob, text: 'just talking' });
    fake.pushMessage({ chat: group, from: bob, ...fake.mentionBot('what time is it?') });
    fake.pushMessage({
      chat: group,
      from: bob,
      text: '/status@helper_bot now',
      entities: [{ type: 'bot_command', offset: 0, length: 18 }],
    });
    fake.pushMessage({
      chat: group,
      from: bob,
      text: '/start@other_bot',
      entities: [{ type: 'bot_command', offset: 0, length: 16 }],
    });
    fake.pushMessage({
      chat: group,
      from: bob,
      text: 'Helper Bot, hi',
      entities: [{ type: 'text_mention', offset: 0, length: 10, user: fake.bot }],
    });
    fake.pushMessage({ chat: group, from: bob, text: 'ask the HELPER please' });
    const botMessage = await new Bot(fake.token, { client: { apiRoot: fake.apiRoot } }).api.sendMessage(
      group.id,
      'I said this',
    );
    fake.pushMessage({ chat: group, from: bob, text: 'about that', replyTo: botMessage.message_id });
    await eventually(
      () => test.received.length === 6,
      'six group messages (the command for another bot is skipped)',
    );
    const byText = new Map(test.received.map((message) => [message.text, message as GroupInboundMessage]));
    expect(byText.get('just talking')?.wasMentioned).toBe(false);
    expect(byText.get('@helper_bot what time is it?')).toMatchObject({
      chatType: 'group',
      peer: { kind: 'group', id: '-100500', name: 'Crew' },
      wasMentioned: true,
      mentions: ['123456789'],
    });
    // The command keeps its arguments and loses the @bot suffix, so the gateway's directives see it.
    expect(byText.get('/status now')?.wasMentioned).toBe(true);
    expect(byText.has('/start@other_bot')).toBe(false);
    expect(byText.get('Helper Bot, hi')?.wasMentioned).toBe(true);
    expect(byText.get('ask the HELPER please')?.wasMentioned).toBe(true);
    expect(byText.get('about that')).toMatchObject({
      wasMentioned: true,
      replyTo: { messageId: `-100500:${botMessage.message_id}`, text: 'I said this', senderId: '123456789' },
    });
    // The command for another bot was skipped but still confirmed.
    await eventually(() => fake.pendingUpdates.length === 0, 'all updates confirmed');
  });

  it('maps forum topics to threads, without counting the topic root as a reply', async () => {
    const test = await startTestAccount(fake);
    const forum = fake.groupChat({ id: -100600, title: 'Forum', forum: true });
    const root = fake.pushMessage({
      chat: forum,
      from: fake.bot,
      topicId: undefined,
      extra: { forum_topic_created: { name: 'Releases', icon_color: 1 } },
    }).message!;
    fake.pushMessage({ chat: forum, from: 7, text: 'in the topic', topicId: root.message_id, replyTo: root });
    fake.pushMessage({ chat: forum, from: 7, text: 'in General' });
    await eventually(() => test.received.length === 2, 'two forum messages');
    const [inTopic, inGeneral] = test.received as GroupInboundMessage[];
    expect(inTopic).toMatchObject({
      text: 'in the topic',
      thread: { id: String(root.message_id) },
      wasMentioned: false,
    });
    expect(inTopic?.replyTo).toBeUndefined();
    expect(inGeneral?.thread).toBeUndefined();
  });

  it('treats anonymous admins as the group and channel posts as channel messages', async () => {
    const test = await startTestAccount(fake);
    const group = fake.groupChat({ id: -100700, title: 'Admins' });
    const anonymous = fake.user(1087968824, {
      firstName: 'Group',
      username: 'GroupAnonymousBot',
      isBot: true,
    });
    fake.pushMessage({
      chat: group,
      from: anonymous,
      text: 'from an anonymous admin',
      extra: { sender_chat: group },
    });
    const channel = fake.channelChat({ id: -100800, title: 'News', username: 'news' });
    fake.pushUpdate({
      channel_post: {
        message_id: 1,
        date: 1_700_000_000,
        chat: channel,
        sender_chat: channel,
        text: 'a post',
      },
    });
    await eventually(() => test.received.length === 2, 'two messages');
    expect(test.received[0]).toMatchObject({ sender: { id: '-100700', name: 'Admins' }, chatType: 'group' });
    expect(test.received[0]?.sender.isBot).toBeUndefined();
    expect(test.received[1]).toMatchObject({
      chatType: 'channel',
      peer: { kind: 'channel', id: '-100800', name: 'News' },
      sender: { id: '-100800', name: 'News', username: 'news' },
      text: 'a post',
    });
  });

  it('ignores edits by default, and hands each edit over as its own message with editedMessages "as-new"', async () => {
    const ignoring = await startTestAccount(fake);
    const original = fake.pushMessage({ chat: 801, text: 'first' }).message!;
    await eventually(() => ignoring.received.length === 1, 'the original');
    fake.pushEdit(original, 'first, edited');
    await eventually(() => fake.pendingUpdates.length === 0, 'the edit confirmed');
    expect(ignoring.received.map((message) => message.text)).toEqual(['first']);
    await ignoring.stop();

    const handling = await startTestAccount(fake, { config: { editedMessages: 'as-new' } });
    const edit = fake.pushEdit(original, 'first, edited again');
    await eventually(() => handling.received.length === 1, 'the edit');
    expect(handling.received[0]).toMatchObject({
      text: 'first, edited again',
      messageId: `801:${original.message_id}:edit:${edit.edited_message!.edit_date}`,
    });
  });

  it('describes photos, documents and voice notes without downloading them', async () => {
    const test = await startTestAccount(fake);
    const photoUpdate = fake.pushPhoto({ chat: 901, bytes: png, caption: 'look', mimeType: 'image/jpeg' });
    fake.pushDocument({
      chat: 901,
      bytes: Buffer.from('%PDF-1.4 minutes'),
      fileName: 'minutes.pdf',
      mimeType: 'application/pdf',
    });
    fake.pushVoice({ chat: 901, bytes: Buffer.from('OggS voice') });
    await eventually(() => test.received.length === 3, 'three media messages');
    const [photo, document, voice] = test.received as InboundMessage[];
    expect(photo?.text).toBe('look');
    // The largest size, described: its file id in a JSON reference, nothing fetched yet.
    const largest = photoUpdate.message!.photo!.at(-1)!;
    expect(photo?.media).toEqual([
      {
        kind: 'image',
        mimeType: 'image/jpeg',
        sizeBytes: png.length,
        reference: {
          fileId: largest.file_id,
          fileUniqueId: largest.file_unique_id,
          chatId: '901',
          messageId: photoUpdate.message!.message_id,
        },
      },
    ]);
    expect(JSON.parse(JSON.stringify(photo?.media))).toEqual(photo?.media);
    expect(document?.media?.[0]).toMatchObject({
      kind: 'document',
      fileName: 'minutes.pdf',
      mimeType: 'application/pdf',
      sizeBytes: 16,
    });
    expect(voice?.media?.[0]).toMatchObject({ kind: 'voice', mimeType: 'audio/ogg' });
    expect(fake.requestsFor('getFile')).toEqual([]);
    expect(fake.requestsFor('downloadFile')).toEqual([]);
    expect(await readdir(test.dataDirectory)).toEqual([]);
  });

  it('downloadMedia streams a described file into the data directory, once per call', async () => {
    const test = await startTestAccount(fake);
    fake.pushPhoto({ chat: 904, bytes: png, mimeType: 'image/jpeg' });
    fake.pushDocument({
      chat: 904,
      bytes: Buffer.from('%PDF-1.4 minutes'),
      fileName: 'minutes.pdf',
      mimeType: 'application/pdf',
    });
    await eventually(() => test.received.length === 2, 'two media messages');
    const signal = new AbortController().signal;
    // Through JSON, as a journaled message comes back after a restart.
    const image = JSON.parse(JSON.stringify(test.received[0]!.media![0]));
    const downloaded = await test.account.downloadMedia!(image, { maxBytes: 1024 * 1024, signal });
    // The real type from the bytes (Telegram says JPEG; these are PNG).
    expect(downloaded).toMatchObject({ mimeType: 'image/png', sizeBytes: png.length });
    expect(downloaded.path.startsWith(`${test.dataDirectory}/media/`)).toBe(true);
    expect((await readFile(downloaded.path)).equals(png)).toBe(true);
    expect(((await stat(downloaded.path)).mode & 0o777).toString(8)).toBe('600');
    expect(fake.requestsFor('downloadFile')).toHaveLength(1);
    const pdf = await test.account.downloadMedia!(test.received[1]!.media![0]!, { maxBytes: 1024, signal });
    expect(await readFile(pdf.path, 'utf8')).toBe('%PDF-1.4 minutes');
    expect(pdf.path.endsWith('.pdf')).toBe(true);
    expect(fake.requestsFor('downloadFile')).toHaveLength(2);
    expect(await readdir(join(test.dataDirectory, 'media'))).toHaveLength(2);
  });

  it('refuses a file whose declared size is over the limit before fetching a byte', async () => {
    const test = await startTestAccount(fake, { config: { mediaMaxMb: 0.001 } });
    const big = Buffer.alloc(4096, 7);
    fake.pushDocument({ chat: 902, bytes: big, fileName: 'big.bin' });
    await eventually(() => test.received.length === 1, 'the message');
    const media = test.received[0]!.media![0]!;
    expect(media).toMatchObject({ kind: 'document', fileName: 'big.bin', sizeBytes: 4096 });
    // The account's mediaMaxMb (about 1 KB) is smaller than what the gateway allows.
    await expect(
      test.account.downloadMedia!(media, { maxBytes: 1024 * 1024, signal: new AbortController().signal }),
    ).rejects.toMatchObject({
      code: 'MEDIA_TOO_LARGE',
      message: expect.stringMatching(
        /big\.bin of chat 902 .* is 4 KB \(4096 bytes\); the limit is 1 KB \(1048 bytes\)/,
      ),
    });
    expect(fake.requestsFor('getFile')).toEqual([]);
    expect(fake.requestsFor('downloadFile')).toEqual([]);
  });

  it('stops a download of an undeclared size as soon as it passes the limit', async () => {
    const test = await startTestAccount(fake);
    const size = 32 * 1024 * 1024;
    fake.pushDocument({ chat: 905, bytes: Buffer.alloc(size, 1), fileName: 'huge.bin', declareSize: false });
    await eventually(() => test.received.length === 1, 'the message');
    const media = test.received[0]!.media![0]!;
    expect(media.sizeBytes).toBeUndefined();
    await expect(
      test.account.downloadMedia!(media, { maxBytes: 256 * 1024, signal: new AbortController().signal }),
    ).rejects.toMatchObject({ code: 'MEDIA_TOO_LARGE', details: { maxBytes: 256 * 1024 } });
    const [download] = fake.requestsFor('downloadFile');
    // The server stops when the client hangs up: far less than the file crossed the socket.
    expect(download?.bytesSent).toBeGreaterThan(256 * 1024);
    expect(download?.bytesSent).toBeLessThan(size / 2);
    expect(await readdir(join(test.dataDirectory, 'media'))).toEqual([]);
  });

  it('reports a failed download to the caller with the HTTP status; the message was handed over before', async () => {
    const test = await startTestAccount(fake);
    const update = fake.pushPhoto({ chat: 903, bytes: png });
    await eventually(() => test.received.length === 1, 'the photo');
    await eventually(() => fake.confirmedOffset === update.update_id + 1, 'confirmed without a download');
    fake.injectFault({ type: 'server', status: 502 }, { method: 'downloadFile', times: 1 });
    const media = test.received[0]!.media![0]!;
    const signal = new AbortController().signal;
    await expect(test.account.downloadMedia!(media, { maxBytes: 1024 * 1024, signal })).rejects.toMatchObject(
      {
        code: 'TELEGRAM_MEDIA_DOWNLOAD_FAILED',
        retryable: true,
        details: { status: 502 },
      },
    );
    // One attempt per call: a retry is the caller's decision.
    expect(fake.requestsFor('downloadFile').map((request) => request.status)).toEqual([502]);
    const downloaded = await test.account.downloadMedia!(media, { maxBytes: 1024 * 1024, signal });
    expect((await readFile(downloaded.path)).equals(png)).toBe(true);
  });

  it('skips service messages and its own messages but confirms them', async () => {
    const test = await startTestAccount(fake);
    const group = fake.groupChat({ id: -100900 });
    fake.pushMessage({ chat: group, from: 5, extra: { new_chat_members: [fake.user(6)] } });
    fake.pushMessage({ chat: group, from: fake.bot, text: 'echo of myself' });
    fake.pushMessage({ chat: group, from: 5, text: 'real one' });
    await eventually(() => test.received.length === 1, 'the real message');
    expect(test.received[0]?.text).toBe('real one');
    await eventually(() => fake.pendingUpdates.length === 0, 'everything confirmed');
  });
});

describe('several accounts', () => {
  it('runs one bot per account and refuses two accounts with the same token', async () => {
    const other = await createFakeTelegram({ token: '555:OTHER-bot', botUsername: 'other_bot' }).start();
    try {
      const channel = createTelegramChannel();
      const main = await startTestAccount(fake, { channel, accountId: 'main' });
      const support = await startTestAccount(other, { channel, accountId: 'support' });
      fake.pushMessage({ chat: 1, text: 'to main' });
      other.pushMessage({ chat: 1, text: 'to support' });
      await eventually(() => main.received.length === 1 && support.received.length === 1, 'both');
      expect(main.received[0]).toMatchObject({ accountId: 'main', text: 'to main' });
      expect(support.received[0]).toMatchObject({ accountId: 'support', text: 'to support' });
      await expect(startTestAccount(fake, { channel, accountId: 'copy' })).rejects.toMatchObject({
        code: 'TELEGRAM_DUPLICATE_TOKEN',
        retryable: false,
        message: expect.stringMatching(
          /channels\.telegram\.accounts\.copy\.botToken is the same bot token as account "main"/,
        ),
      });
      // Once main stops, its token is free again.
      await main.stop();
      const copy = await startTestAccount(fake, { channel, accountId: 'copy' });
      expect(copy.status()?.state).toBe('connected');
    } finally {
      await stopTestAccounts();
      await other.close();
    }
  });
});
