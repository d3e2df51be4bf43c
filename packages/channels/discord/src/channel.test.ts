// The Discord channel end to end: the real discord.js against FakeDiscord (REST + gateway
// WebSocket on 127.0.0.1), with a recording start context in place of the gateway.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GroupInboundMessage } from '@switchboard/hooks';
import { createFakeDiscord, type FakeDiscord, type FakeDiscordGuild } from '@switchboard/testkit/discord';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StartedAccount, startAccount } from '../test/start-account.ts';

const pixel = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

let fake: FakeDiscord;
let guild: FakeDiscordGuild;
let alice: string;
let bob: string;
let started: StartedAccount | undefined;

beforeEach(async () => {
  fake = await createFakeDiscord().start();
  alice = fake.addUser({ username: 'alice', globalName: 'Alice' }).id;
  bob = fake.addUser({ username: 'bob' }).id;
  guild = fake.addGuild({
    name: 'Guild',
    channels: [{ name: 'general' }, { name: 'ops' }],
    roles: [{ name: 'admins' }, { name: 'helpers' }],
  });
  fake.setMember(guild.id, alice, [guild.roles.admins!]);
  fake.setMember(guild.id, bob, []);
});

afterEach(async () => {
  await started?.stop();
  started = undefined;
  await fake.close();
});

const general = () => guild.channels.general!;

describe('inbound', () => {
  it('turns a DM into a direct message from the sender, and connects with the intents it needs', async () => {
    started = await startAccount(fake);
    const sent = fake.sendDirect(alice, 'hello there');
    const [message] = await started.waitForReceived(1);
    expect(message).toMatchObject({
      channel: 'discord',
      accountId: 'default',
      chatType: 'direct',
      peer: { kind: 'direct', id: alice },
      sender: { id: alice, name: 'Alice', username: 'alice' },
      messageId: sent.id,
      text: 'hello there',
    });
    expect(message?.timestamp).toBeGreaterThan(Date.parse('2020-01-01'));
    const [session] = fake.sessions();
    // Guilds | GuildMessages | DirectMessages | MessageContent
    expect(session?.intents).toBe(37377);
    expect(started.statuses.at(-1)).toMatchObject({
      state: 'connected',
      identity: { id: fake.bot.id, name: 'switchboard-bot' },
    });
  });

  it('passes guild, channel, roles and mentions of the bot (user, role, reply) on guild messages', async () => {
    started = await startAccount(fake);
    fake.sendToChannel(general(), alice, `<@${fake.bot.id}> what is 2+2?`);
    fake.sendToChannel(general(), bob, 'just talking among humans');
    fake.sendToChannel(general(), bob, `<@&${guild.roles['switchboard-bot']}> ping the bot role`);
    fake.sendToChannel(general(), bob, `<@&${guild.roles.helpers}> ping another role, and <@${alice}>`);
    const received = (await started.waitForReceived(4)) as GroupInboundMessage[];
    expect(received[0]).toMatchObject({
      chatType: 'channel',
      peer: { kind: 'channel', id: general(), name: 'general' },
      guildId: guild.id,
      memberRoleIds: [guild.roles.admins],
      wasMentioned: true,
      mentions: [fake.bot.id],
      text: 'what is 2+2?',
    });
    expect(received[0]?.thread).toBeUndefined();
    expect(received[1]).toMatchObject({
      wasMentioned: false,
      memberRoleIds: [],
      text: 'just talking among humans',
    });
    expect(received[2]).toMatchObject({ wasMentioned: true, text: 'ping the bot role' });
    expect(received[3]).toMatchObject({
      wasMentioned: false,
      text: '@helpers ping another role, and @Alice',
    });

    // A reply to one of the bot's messages counts as a mention.
    const answer = await started.account.send({
      kind: 'text',
      channel: 'discord',
      accountId: 'default',
      peer: { kind: 'channel', id: general() },
      text: 'four',
    });
    fake.sendToChannel(general(), bob, 'are you sure?', { replyTo: answer.messageIds[0]! });
    const [, , , , reply] = (await started.waitForReceived(5)) as GroupInboundMessage[];
    expect(reply).toMatchObject({
      wasMentioned: true,
      replyTo: { messageId: answer.messageIds[0], text: 'four', senderId: fake.bot.id },
    });
  });

  it('gives a thread its own peer and its parent channel as parentPeer', async () => {
    started = await startAccount(fake);
    const thread = fake.createThread(general(), { name: 'design talk' });
    await fake.waitFor(() => fake.sessions()[0]?.sequence !== undefined, 'session');
    // The thread reaches the client (THREAD_CREATE) before its first message.
    fake.sendToChannel(thread.id, alice, `<@${fake.bot.id}> in the thread`);
    const [message] = (await started.waitForReceived(1)) as GroupInboundMessage[];
    expect(message).toMatchObject({
      chatType: 'channel',
      peer: { kind: 'channel', id: thread.id, name: 'design talk' },
      thread: { id: thread.id, parentPeer: { kind: 'channel', id: general(), name: 'general' } },
      guildId: guild.id,
      wasMentioned: true,
      text: 'in the thread',
    });
  });

  it('describes attachments without downloading them; downloadMedia fetches one into the data directory', async () => {
    started = await startAccount(fake);
    const sent = fake.sendDirect(alice, 'what is this?', {
      attachments: [
        { bytes: pixel, fileName: 'pixel.png', contentType: 'image/png' },
        {
          bytes: Buffer.from('%PDF-1.4 fake'),
          fileName: '../../etc/report.pdf',
          contentType: 'application/pdf',
        },
      ],
    });
    const [message] = await started.waitForReceived(1);
    expect(message?.text).toBe('what is this?');
    const [image, document] = message?.media ?? [];
    expect(image).toMatchObject({
      kind: 'image',
      mimeType: 'image/png',
      fileName: 'pixel.png',
      sizeBytes: pixel.length,
      reference: { messageId: sent.id, channelId: sent.channel_id },
    });
    expect(image?.path).toBeUndefined();
    expect(document).toMatchObject({ kind: 'document', mimeType: 'application/pdf' });
    expect(fake.attachmentDownloads).toEqual([]);
    expect(existsSync(join(started.dataDirectory, 'media'))).toBe(false);

    const signal = new AbortController().signal;
    // Through JSON, as a journaled message comes back after a restart.
    const downloaded = await started.account.downloadMedia!(JSON.parse(JSON.stringify(image)), {
      maxBytes: 1024 * 1024,
      signal,
    });
    expect(downloaded.sizeBytes).toBe(pixel.length);
    expect(downloaded.path.startsWith(join(started.dataDirectory, 'media'))).toBe(true);
    expect(readFileSync(downloaded.path)).toEqual(pixel);
    expect(statSync(downloaded.path).mode & 0o777).toBe(0o600);
    expect(fake.attachmentDownloads.map((download) => download.status)).toEqual([200]);
    // The file name from Discord never escapes the media folder.
    const pdf = await started.account.downloadMedia!(document!, { maxBytes: 1024 * 1024, signal });
    expect(pdf.path.startsWith(join(started.dataDirectory, 'media'))).toBe(true);
    expect(readFileSync(pdf.path, 'utf8')).toBe('%PDF-1.4 fake');
  });

  it('refuses an attachment over the limit before fetching a byte, naming size and limit', async () => {
    started = await startAccount(fake, { config: { mediaMaxMb: 0.000_01 } });
    fake.sendDirect(alice, '', {
      attachments: [{ bytes: pixel, fileName: 'pixel.png', contentType: 'image/png' }],
    });
    const [message] = await started.waitForReceived(1);
    const media = message!.media![0]!;
    await expect(
      started.account.downloadMedia!(media, { maxBytes: 1024 * 1024, signal: new AbortController().signal }),
    ).rejects.toMatchObject({
      code: 'MEDIA_TOO_LARGE',
      message: expect.stringContaining(`pixel.png of message ${message!.messageId} is ${pixel.length} bytes`),
      details: { sizeBytes: pixel.length, maxBytes: 10 },
    });
    expect(fake.attachmentDownloads).toEqual([]);
  });

  it('fetches a fresh URL through discord.js when the stored link has expired', async () => {
    started = await startAccount(fake);
    fake.sendDirect(alice, 'old link', {
      attachments: [{ bytes: pixel, fileName: 'pixel.png', contentType: 'image/png' }],
    });
    const [message] = await started.waitForReceived(1);
    const media = message!.media![0]!;
    const reference = media.reference as { url: string };
    const expired = {
      ...media,
      reference: { ...reference, url: `${new URL(reference.url).origin}/attachments/0/0/expired.png` },
    };
    const downloaded = await started.account.downloadMedia!(expired, {
      maxBytes: 1024 * 1024,
      signal: new AbortController().signal,
    });
    expect(readFileSync(downloaded.path)).toEqual(pixel);
    expect(fake.attachmentDownloads.map((download) => download.status)).toEqual([404, 200]);
    expect(
      fake.requests.some(
        (request) => request.method === 'GET' && request.path.endsWith(`/messages/${message!.messageId}`),
      ),
    ).toBe(true);
  });

  it('ignores its own messages and system messages, and keeps per-channel order', async () => {
    started = await startAccount(fake);
    await started.account.send({
      kind: 'text',
      channel: 'discord',
      accountId: 'default',
      peer: { kind: 'direct', id: alice },
      text: 'a message from the bot',
    });
    for (let index = 0; index < 20; index += 1) fake.sendDirect(alice, `message ${index}`);
    const received = await started.waitForReceived(20);
    expect(received.map((message) => message.text)).toEqual(
      Array.from({ length: 20 }, (_, index) => `message ${index}`),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started.received).toHaveLength(20);
  });

  it('retries a message the gateway could not take, and delivers it once', async () => {
    let attempts = 0;
    started = await startAccount(fake, {
      async receive() {
        attempts += 1;
        if (attempts < 3) throw new Error('journal busy');
        return { status: 'journaled' };
      },
    });
    fake.sendDirect(alice, 'keep trying');
    await started.waitForReceived(1);
    expect(attempts).toBe(3);
    expect(started.received.map((message) => message.text)).toEqual(['keep trying']);
  });
});

describe('outbound', () => {
  it('sends Markdown as it is, replying to the triggering message', async () => {
    started = await startAccount(fake);
    const trigger = fake.sendToChannel(general(), alice, `<@${fake.bot.id}> format something`);
    await started.waitForReceived(1);
    const markdown = '**bold**, _italic_, `code`\n\n```ts\nconst x = 1;\n```\n> quoted';
    const result = await started.account.send({
      kind: 'text',
      channel: 'discord',
      accountId: 'default',
      peer: { kind: 'channel', id: general() },
      replyToMessageId: trigger.id,
      text: markdown,
    });
    const [sent] = fake.botMessages(general());
    expect(result.messageIds).toEqual([sent?.id]);
    expect(sent?.content).toBe(markdown);
    expect(sent?.message_reference?.message_id).toBe(trigger.id);
    const request = fake.requests.find(
      (entry) => entry.method === 'POST' && entry.path.endsWith('/messages'),
    );
    expect(request?.json).toMatchObject({
      allowed_mentions: { parse: ['users'], replied_user: false },
      message_reference: { message_id: trigger.id, fail_if_not_exists: false },
      enforce_nonce: true,
    });
    expect(request?.authorization).toBe(`Bot ${fake.token}`);
  });

  it('opens the DM channel to answer a user, sends typing there, and marks silent messages', async () => {
    started = await startAccount(fake);
    const target = { peer: { kind: 'direct' as const, id: bob } };
    await started.account.typing?.(target);
    await started.account.send({
      kind: 'text',
      channel: 'discord',
      accountId: 'default',
      ...target,
      text: 'hi',
      silent: true,
    });
    const dm = fake.dmChannel(bob);
    expect(fake.typings.map((typing) => typing.channelId)).toEqual([dm.id]);
    expect(fake.botMessages(dm.id)[0]).toMatchObject({ content: 'hi', flags: 4096 });
    expect(fake.requests.filter((entry) => entry.path === '/users/@me/channels')).toHaveLength(1);
  });

  it('sends a "direct" peer that names a guild channel to that channel (a last-route delivery)', async () => {
    started = await startAccount(fake);
    await started.account.send({
      kind: 'text',
      channel: 'discord',
      accountId: 'default',
      peer: { kind: 'direct', id: general() },
      text: 'delivered to the last route',
    });
    expect(fake.botMessages(general()).map((message) => message.content)).toEqual([
      'delivered to the last route',
    ]);
    expect(fake.requests.some((entry) => entry.path === '/users/@me/channels')).toBe(false);
  });

  it('splits text over 2,000 characters without breaking a code block', async () => {
    started = await startAccount(fake);
    const code = Array.from({ length: 150 }, (_, line) => `let value${line} = ${line};`).join('\n');
    const result = await started.account.send({
      kind: 'text',
      channel: 'discord',
      accountId: 'default',
      peer: { kind: 'channel', id: general() },
      text: `Here:\n\n\`\`\`js\n${code}\n\`\`\``,
    });
    const messages = fake.botMessages(general());
    expect(result.messageIds).toHaveLength(messages.length);
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) {
      expect(message.content.length).toBeLessThanOrEqual(2000);
      expect((message.content.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    const joined = messages.map((message) => message.content).join('\n');
    expect(joined).toContain('let value0 = 0;');
    expect(joined).toContain('let value149 = 149;');
  });

  it('edits a sent message, and reacts to one', async () => {
    started = await startAccount(fake);
    const target = { peer: { kind: 'channel' as const, id: general() } };
    const { messageIds } = await started.account.send({
      kind: 'text',
      channel: 'discord',
      accountId: 'default',
      ...target,
      text: 'draft',
    });
    const messageId = messageIds[0]!;
    await expect(started.account.edit?.({ ...target, messageId, text: 'final answer' })).resolves.toEqual({
      messageId,
    });
    expect(fake.message(messageId)?.content).toBe('final answer');
    expect(fake.edits).toEqual([{ channelId: general(), messageId, content: 'final answer' }]);
    await expect(
      started.account.edit?.({ ...target, messageId, text: 'x'.repeat(2001) }),
    ).rejects.toMatchObject({ code: 'DISCORD_SEND_REJECTED', retryable: false });
    await started.account.react?.({ ...target, messageId, emoji: '👀' });
    expect(fake.reactions).toEqual([{ channelId: general(), messageId, emoji: '👀' }]);
  });

  it('uploads media from bytes and files with the caption, and refuses files over mediaMaxMb', async () => {
    started = await startAccount(fake, { config: { mediaMaxMb: 1 } });
    const path = join(started.dataDirectory, 'report.txt');
    writeFileSync(path, 'the report');
    const target = { peer: { kind: 'channel' as const, id: general() } };
    const result = await started.account.send({
      kind: 'media',
      channel: 'discord',
      accountId: 'default',
      ...target,
      caption: 'two files',
      media: [
        { kind: 'image', mimeType: 'image/png', source: { type: 'bytes', data: pixel } },
        { kind: 'document', source: { type: 'path', path } },
      ],
    });
    const [message] = fake.botMessages(general());
    expect(result.messageIds).toEqual([message?.id]);
    expect(message?.content).toBe('two files');
    expect(message?.attachments.map((attachment) => attachment.filename)).toEqual([
      'image-1.png',
      'report.txt',
    ]);
    const upload = fake.requests.find((entry) => entry.files.length > 0);
    expect(upload?.contentType).toMatch(/^multipart\/form-data/);
    expect(Buffer.from(upload!.files[0]!.bytes)).toEqual(pixel);

    await expect(
      started.account.send({
        kind: 'media',
        channel: 'discord',
        accountId: 'default',
        ...target,
        media: [{ kind: 'document', source: { type: 'bytes', data: new Uint8Array(2 * 1024 * 1024) } }],
      }),
    ).rejects.toMatchObject({ code: 'DISCORD_MEDIA_TOO_LARGE', retryable: false });
    await expect(
      started.account.send({
        kind: 'media',
        channel: 'discord',
        accountId: 'default',
        ...target,
        media: [
          { kind: 'document', source: { type: 'path', path: join(started.dataDirectory, 'missing.txt') } },
        ],
      }),
    ).rejects.toMatchObject({ code: 'DISCORD_MEDIA_UNREADABLE' });
  });

  it('reports what Discord refused, with its code, as not retryable', async () => {
    started = await startAccount(fake);
    await expect(
      started.account.send({
        kind: 'text',
        channel: 'discord',
        accountId: 'default',
        peer: { kind: 'channel', id: '123456789' },
        text: 'to nowhere',
      }),
    ).rejects.toMatchObject({ code: 'DISCORD_SEND_REJECTED', retryable: false, message: /10003/ });
    fake.failNext({ status: 503, count: 5, method: 'POST' });
    await expect(
      started.account.send({
        kind: 'text',
        channel: 'discord',
        accountId: 'default',
        peer: { kind: 'channel', id: general() },
        text: 'server trouble',
      }),
    ).rejects.toMatchObject({ code: 'DISCORD_API_UNAVAILABLE', retryable: true });
  });
});
