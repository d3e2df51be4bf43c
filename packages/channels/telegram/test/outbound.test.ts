// Outbound through grammY against FakeTelegram: rendering, splitting, threading, failure
// classification (retried by `sendWithRetry`, the gateway's one retry layer) and refusals,
// typing, edits, media.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutboundMessage, SwitchboardError } from '@switchboard/hooks';
import { createFakeTelegram, type FakeTelegram, parseTelegramHtml } from '@switchboard/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestAccount, stopTestAccounts, type TestAccount } from './support.ts';

let fake: FakeTelegram;
let test: TestAccount;

beforeEach(async () => {
  fake = await createFakeTelegram().start();
  test = await startTestAccount(fake);
});

afterEach(async () => {
  await stopTestAccounts();
  await fake.close();
});

function text(peer: string, body: string, extra: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    kind: 'text',
    channel: 'telegram',
    accountId: 'default',
    peer: { kind: peer.startsWith('-') ? 'group' : 'direct', id: peer },
    text: body,
    ...extra,
  } as OutboundMessage;
}

async function failure(promise: Promise<unknown>): Promise<SwitchboardError> {
  try {
    await promise;
  } catch (error) {
    return error as SwitchboardError;
  }
  throw new Error('expected the call to fail');
}

describe('sending text', () => {
  it('renders Markdown as Telegram HTML and returns chat-qualified message ids', async () => {
    const result = await test.account.send(text('42', '**Done**: see `config.json` & <this>'));
    const [sent] = fake.messagesIn(42);
    expect(sent).toMatchObject({
      parseMode: 'HTML',
      source: '<b>Done</b>: see <code>config.json</code> &amp; &lt;this&gt;',
      text: 'Done: see config.json & <this>',
    });
    expect(result.messageIds).toEqual([`42:${sent?.messageId}`]);
    expect(test.status()?.lastOutboundAt).toBeTypeOf('number');
  });

  it('threads to the triggering message, sends into the topic, leaves out the General topic', async () => {
    const group = fake.groupChat({ id: -100100, forum: true });
    const trigger = fake.pushMessage({ chat: group, from: 9, text: 'q', topicId: 33 }).message!;
    await test.account.send(
      text('-100100', 'answer', {
        replyToMessageId: `-100100:${trigger.message_id}`,
        threadId: '33',
        silent: true,
      }),
    );
    await test.account.send(text('-100100', 'in general', { threadId: '1' }));
    const [answer, general] = fake.messagesIn(-100100);
    expect(answer).toMatchObject({
      replyToMessageId: trigger.message_id,
      threadId: 33,
      disableNotification: true,
    });
    expect(general?.threadId).toBeUndefined();
    expect(fake.requestsFor('sendMessage')[1]?.params.message_thread_id).toBeUndefined();
    // A deleted trigger does not lose the answer.
    await test.account.send(text('-100100', 'late', { replyToMessageId: '-100100:99999' }));
    expect(fake.messagesIn(-100100).at(-1)?.text).toBe('late');
  });

  it('splits what is longer than 4,096 visible characters, code blocks staying code', async () => {
    const code = Array.from({ length: 150 }, (_, line) => `line${line} = compute(${line}) # <step>`).join(
      '\n',
    );
    const markdown = `${'Intro sentence. '.repeat(100)}\n\n\`\`\`python\n${code}\n\`\`\`\n\nThe end.`;
    const result = await test.account.send(text('43', markdown));
    const sent = fake.messagesIn(43);
    expect(sent.length).toBeGreaterThan(1);
    expect(result.messageIds).toHaveLength(sent.length);
    for (const message of sent) {
      expect(message.text.length).toBeLessThanOrEqual(4096);
      expect(parseTelegramHtml(message.source).ok).toBe(true);
    }
    // Every code line arrived, inside a pre entity.
    for (let line = 0; line < 150; line += 1) {
      const holder = sent.find((message) => message.text.includes(`line${line} = compute(${line})`));
      expect(holder, `line ${line}`).toBeDefined();
      const offset = holder!.text.indexOf(`line${line} =`);
      expect(
        holder!.entities.some(
          (entity) =>
            entity.type === 'pre' &&
            entity.language === 'python' &&
            entity.offset <= offset &&
            offset < entity.offset + entity.length,
        ),
        `line ${line} is inside the code block`,
      ).toBe(true);
    }
    expect(sent.at(-1)?.text.endsWith('The end.')).toBe(true);
    // Only the first piece replies (nothing to reply to here) and carries no duplicate text.
    expect(sent.map((message) => message.text).join('\n')).toContain('Intro sentence.');
  });

  it('sends a piece Telegram cannot parse again as plain text', async () => {
    fake.injectFault(
      {
        type: 'bad_request',
        description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0',
      },
      { method: 'sendMessage' },
    );
    await test.account.send(text('44', 'a **bold** claim'));
    const calls = fake.requestsFor('sendMessage');
    expect(calls.map((call) => [call.status, call.params.parse_mode])).toEqual([
      [400, 'HTML'],
      [200, undefined],
    ]);
    expect(fake.messagesIn(44)[0]).toMatchObject({ text: 'a bold claim', source: 'a bold claim' });
  });

  it('makes one request on a 429 and fails retryable with the retry_after, never waiting itself', async () => {
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 3 }, { method: 'sendMessage' });
    const limited = await failure(test.account.send(text('45', 'once')));
    expect(limited).toMatchObject({
      code: 'TELEGRAM_RATE_LIMITED',
      retryable: true,
      details: { status: 429, retryAfterSeconds: 3, retryAfterMs: 3000 },
    });
    expect(test.sleeps).toEqual([]);
    expect(fake.requestsFor('sendMessage')).toHaveLength(1);
    expect(test.account.sendRetry).toEqual({ attempts: 4, maxWaitMs: 60_000 });
  });

  it('waits out a 429 for retry_after and delivers, within the retry budget', async () => {
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 3 }, { method: 'sendMessage', times: 2 });
    await test.sendRetried(text('45', 'patience'));
    expect(test.sleeps).toEqual([3000, 3000]);
    expect(fake.requestsFor('sendMessage')).toHaveLength(3);
    expect(fake.messagesIn(45).map((message) => message.text)).toEqual(['patience']);
  });

  it('does not retry a split message after a part was posted (it would post that part twice)', async () => {
    fake.injectFault(
      { type: 'rate_limit', retryAfterSeconds: 1 },
      {
        method: 'sendMessage',
        match: (request) => String(request.params.text ?? '').startsWith('b'),
      },
    );
    const long = `${'a'.repeat(3_000)}\n\n${'b'.repeat(3_000)}`;
    const partial = await failure(test.sendRetried(text('49', long)));
    expect(partial).toMatchObject({ code: 'TELEGRAM_RATE_LIMITED', retryable: false });
    expect(partial.message).toMatch(/after 1 part\(s\) of the message were posted/);
    expect(partial.details?.deliveredMessageIds).toHaveLength(1);
    expect(test.sleeps).toEqual([]);
    expect(fake.messagesIn(49)).toHaveLength(1);
  });

  it('gives up on a 429 that asks for too long, or that outlasts the attempts, as retryable', async () => {
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 600 }, { method: 'sendMessage' });
    const tooLong = await failure(test.sendRetried(text('46', 'x')));
    expect(tooLong).toMatchObject({
      code: 'TELEGRAM_RATE_LIMITED',
      retryable: true,
      details: { status: 429, retryAfterSeconds: 600 },
    });
    expect(test.sleeps).toEqual([]);

    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 1 }, { method: 'sendMessage', times: 4 });
    const exhausted = await failure(test.sendRetried(text('46', 'x')));
    expect(exhausted.code).toBe('TELEGRAM_RATE_LIMITED');
    // Four attempts in all (the default sendRetry.attempts), three waits between them.
    expect(test.sleeps).toEqual([1000, 1000, 1000]);
    expect(fake.requestsFor('sendMessage')).toHaveLength(5);
    expect(fake.messagesIn(46)).toEqual([]);
  });

  it('retries a refused connection but not a dropped one (it may have been delivered)', async () => {
    fake.injectFault({ type: 'server', status: 502 }, { method: 'sendMessage' });
    await test.sendRetried(text('47', 'after a 502'));
    expect(fake.messagesIn(47)).toHaveLength(1);
    fake.injectFault({ type: 'network' }, { method: 'sendMessage' });
    const dropped = await failure(test.sendRetried(text('47', 'dropped')));
    expect(dropped).toMatchObject({ code: 'TELEGRAM_NETWORK_ERROR', retryable: true });
    expect(fake.requestsFor('sendMessage').filter((call) => call.params.text === 'dropped')).toHaveLength(1);
  });

  it('records a chat that blocked the bot, fails fast afterwards, and forgets it when the user writes', async () => {
    fake.blockBot(48);
    const blocked = await failure(test.account.send(text('48', 'hello?')));
    expect(blocked).toMatchObject({ code: 'TELEGRAM_FORBIDDEN', retryable: false });
    expect(blocked.message).toMatch(/blocked by the user/);
    const again = await failure(test.account.send(text('48', 'still?')));
    expect(again.code).toBe('TELEGRAM_FORBIDDEN');
    expect(again.message).toMatch(/not retrying until it writes again/);
    expect(fake.requestsFor('sendMessage')).toHaveLength(1);
    expect(test.status()?.detail).toMatch(/1 chat\(s\) blocked the bot/);
    // Typing to a blocked chat is skipped silently.
    await test.account.typing?.({ peer: { kind: 'direct', id: '48' } });
    expect(fake.requestsFor('sendChatAction')).toHaveLength(0);

    fake.unblockBot(48);
    fake.pushMessage({ chat: 48, text: 'I unblocked you' });
    await eventually(() => test.received.length === 1, 'the message from the chat');
    await test.account.send(text('48', 'welcome back'));
    expect(fake.messagesIn(48).map((message) => message.text)).toEqual(['welcome back']);
    expect(test.status()?.detail).toBe('long polling');
  });

  it('names a peer that is not a Telegram chat id', async () => {
    const error = await failure(test.account.send(text('alice', 'x')));
    expect(error).toMatchObject({ code: 'TELEGRAM_INVALID_TARGET' });
    expect(error.message).toMatch(/"alice" is not a Telegram chat id/);
  });
});

describe('typing and edits', () => {
  it('sends the typing action into the topic', async () => {
    await test.account.typing?.({ peer: { kind: 'group', id: '-100200' }, threadId: '12' });
    expect(fake.chatActions).toEqual([
      expect.objectContaining({ chatId: -100200, action: 'typing', threadId: 12 }),
    ]);
  });

  it('edits a sent message, treating an unchanged text as done', async () => {
    const { messageIds } = await test.account.send(text('50', 'draft'));
    const id = messageIds[0]!;
    const edited = await test.account.edit?.({
      peer: { kind: 'direct', id: '50' },
      messageId: id,
      text: '**final**',
    });
    expect(edited).toEqual({ messageId: id });
    expect(fake.messagesIn(50)[0]).toMatchObject({ text: 'final', source: '<b>final</b>' });
    await test.account.edit?.({ peer: { kind: 'direct', id: '50' }, messageId: id, text: '**final**' });
    expect(fake.requestsFor('editMessageText').map((call) => call.status)).toEqual([200, 400]);
    // Longer than one message: cut with an ellipsis rather than refused.
    await test.account.edit?.({ peer: { kind: 'direct', id: '50' }, messageId: id, text: 'z'.repeat(5000) });
    expect(fake.messagesIn(50)[0]?.text).toHaveLength(4096);
    expect(fake.messagesIn(50)[0]?.text.endsWith('…')).toBe(true);
  });
});

describe('media out', () => {
  const media = (extra: Partial<OutboundMessage>): OutboundMessage =>
    ({
      kind: 'media',
      channel: 'telegram',
      accountId: 'default',
      peer: { kind: 'direct', id: '60' },
      ...extra,
    }) as OutboundMessage;

  it('uploads bytes and files, passes URLs through, captions the first item', async () => {
    const path = join(test.dataDirectory, 'report.pdf');
    await writeFile(path, '%PDF-1.4 the report');
    const bytes = Uint8Array.from([1, 2, 3, 4, 5]);
    const result = await test.account.send(
      media({
        media: [
          { kind: 'image', source: { type: 'bytes', data: bytes }, fileName: 'chart.png' },
          { kind: 'document', source: { type: 'path', path } },
          { kind: 'image', source: { type: 'url', url: 'https://example.test/cat.jpg' } },
        ],
        caption: 'The **weekly** numbers',
      }),
    );
    const [photo, document, linked] = fake.messagesIn(60);
    expect(result.messageIds).toHaveLength(3);
    expect(photo).toMatchObject({
      method: 'sendPhoto',
      text: 'The weekly numbers',
      source: 'The <b>weekly</b> numbers',
    });
    expect(Array.from(photo!.media!.bytes!)).toEqual([1, 2, 3, 4, 5]);
    expect(document).toMatchObject({ method: 'sendDocument', text: '', media: { fileName: 'report.pdf' } });
    expect(Buffer.from(document!.media!.bytes!).toString()).toBe('%PDF-1.4 the report');
    expect(linked).toMatchObject({
      method: 'sendPhoto',
      media: { reference: 'https://example.test/cat.jpg' },
    });
  });

  it('sends a caption too long for Telegram as a text message after the media', async () => {
    await test.account.send(
      media({
        media: [{ kind: 'voice', source: { type: 'bytes', data: Uint8Array.from([9]) } }],
        caption: 'word '.repeat(300),
      }),
    );
    const [voice, caption] = fake.messagesIn(60);
    expect(voice).toMatchObject({ method: 'sendVoice', text: '' });
    expect(caption).toMatchObject({ method: 'sendMessage' });
    expect(caption?.text.length).toBeGreaterThan(1024);
  });

  it('retries an upload after a 429 with a fresh copy of the file', async () => {
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 2 }, { method: 'sendDocument' });
    const path = join(test.dataDirectory, 'notes.txt');
    await writeFile(path, 'notes');
    await test.sendRetried(media({ media: [{ kind: 'document', source: { type: 'path', path } }] }));
    expect(test.sleeps).toEqual([2000]);
    expect(Buffer.from(fake.messagesIn(60)[0]!.media!.bytes!).toString()).toBe('notes');
  });

  it('refuses a missing file and a non-http URL with a clear error', async () => {
    const missing = await failure(
      test.account.send(
        media({ media: [{ kind: 'document', source: { type: 'path', path: '/nope/missing.pdf' } }] }),
      ),
    );
    expect(missing).toMatchObject({ code: 'TELEGRAM_UNSUPPORTED_MEDIA' });
    expect(missing.message).toMatch(/does not exist: \/nope\/missing\.pdf/);
    const ftp = await failure(
      test.account.send(media({ media: [{ kind: 'image', source: { type: 'url', url: 'ftp://x/y.png' } }] })),
    );
    expect(ftp.code).toBe('TELEGRAM_UNSUPPORTED_MEDIA');
  });
});
