// FakeDiscord driven by the real discord.js (REST through `rest.api`, the gateway through the
// URL `GET /gateway/bot` returns), plus the conformance driver's own bookkeeping.
import {
  AttachmentBuilder,
  Client,
  type ClientOptions,
  DiscordAPIError,
  DiscordjsErrorCodes,
  Events,
  GatewayIntentBits,
  type Message,
  Partials,
} from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordConformanceDriver } from './conformance-driver.ts';
import { createFakeDiscord, type FakeDiscord, type FakeDiscordGuild } from './fake-discord.ts';
import { createSnowflakeGenerator, snowflakeTimestamp } from './snowflake.ts';

const allIntents = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
  GatewayIntentBits.MessageContent,
];

let fake: FakeDiscord;
let guild: FakeDiscordGuild;
let alice: string;
const clients: Client[] = [];

function client(overrides: Partial<ClientOptions> = {}): Client {
  const created = new Client({
    intents: allIntents,
    partials: [Partials.Channel],
    rest: { api: fake.restApi },
    ...overrides,
  });
  clients.push(created);
  return created;
}

async function login(created: Client, token = fake.token): Promise<Client> {
  const ready = new Promise((resolve) => created.once(Events.ClientReady, resolve));
  await created.login(token);
  await ready;
  return created;
}

function nextMessage(
  created: Client,
  predicate: (message: Message) => boolean = () => true,
): Promise<Message> {
  return new Promise((resolve) => {
    const listener = (message: Message) => {
      if (!predicate(message)) return;
      created.off(Events.MessageCreate, listener);
      resolve(message);
    };
    created.on(Events.MessageCreate, listener);
  });
}

beforeEach(async () => {
  fake = await createFakeDiscord({ heartbeatIntervalMs: 200 }).start();
  alice = fake.addUser({ username: 'alice' }).id;
  guild = fake.addGuild({ name: 'Guild', channels: [{ name: 'general' }], roles: [{ name: 'staff' }] });
  fake.setMember(guild.id, alice, [guild.roles.staff!]);
});

afterEach(async () => {
  for (const created of clients.splice(0)) await created.destroy();
  await fake.close();
});

describe('gateway', () => {
  it('says HELLO, answers IDENTIFY with READY (resume URL on the fake) and GUILD_CREATE, and ACKs heartbeats', async () => {
    const bot = await login(client());
    expect(bot.user?.id).toBe(fake.bot.id);
    expect(bot.guilds.cache.get(guild.id)?.name).toBe('Guild');
    expect(bot.channels.cache.get(guild.channels.general!)?.type).toBe(0);
    expect(bot.guilds.cache.get(guild.id)?.members.me?.roles.cache.has(guild.roles['switchboard-bot']!)).toBe(
      true,
    );
    expect(fake.requests[0]).toMatchObject({ method: 'GET', path: '/gateway/bot', status: 200 });
    expect(fake.requests[0]?.authorization).toBe(`Bot ${fake.token}`);
    expect(fake.requests[0]?.userAgent).toMatch(/^DiscordBot \(https:\/\/discord\.js\.org/);
    await fake.waitFor(() => fake.heartbeatCount >= 1, 'a heartbeat');
    for (let tries = 0; bot.ws.ping < 0 && tries < 100; tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(bot.ws.ping).toBeGreaterThanOrEqual(0);
    expect(fake.sessions()).toMatchObject([{ connected: true, intents: 37377, resumes: 0 }]);
  });

  it('delivers DMs (channel_type 1) and guild messages with member roles and parsed mentions', async () => {
    const bot = await login(client());
    const direct = nextMessage(bot);
    fake.sendDirect(alice, 'a DM');
    const dm = await direct;
    expect(dm.channel.isDMBased()).toBe(true);
    expect(dm.content).toBe('a DM');
    const inGuild = nextMessage(bot);
    fake.sendToChannel(guild.channels.general!, alice, `<@${fake.bot.id}> and <@&${guild.roles.staff}>`);
    const message = await inGuild;
    expect(message.guildId).toBe(guild.id);
    expect(message.member?.roles.cache.has(guild.roles.staff!)).toBe(true);
    expect(message.mentions.users.has(fake.bot.id)).toBe(true);
    expect(message.mentions.roles.has(guild.roles.staff!)).toBe(true);
  });

  it('resumes after op 7 RECONNECT and replays what was dispatched while disconnected', async () => {
    const bot = await login(client());
    fake.dropConnections({ abrupt: true });
    await fake.waitFor(() => !fake.sessions()[0]?.connected, 'the drop');
    const replayed = nextMessage(bot);
    fake.sendDirect(alice, 'while you were away');
    expect((await replayed).content).toBe('while you were away');
    fake.forceReconnect();
    await fake.waitFor(
      () => fake.resumeCount === 2 && fake.sessions()[0]?.connected === true,
      'a second resume',
    );
    expect(fake.identifyCount).toBe(1);
    const after = nextMessage(bot);
    fake.sendDirect(alice, 'after the resumes');
    expect((await after).content).toBe('after the resumes');
  });

  it('closes IDENTIFY with 4004 for a bad token and 4014 for a Message Content intent that is off', async () => {
    fake.setMessageContentIntent(false);
    await expect(login(client())).rejects.toThrow(/disallowed intents/i);
    fake.setMessageContentIntent(true);
    const rotated = login(client());
    await fake.waitFor(() => fake.requests.length >= 2, 'gateway/bot');
    fake.setToken('another-token');
    await expect(rotated).rejects.toThrow(/Authentication failed/);
    // REST with a token the fake does not accept: 401, which discord.js reports as TokenInvalid.
    await expect(login(client(), 'wrong-token')).rejects.toMatchObject({
      code: DiscordjsErrorCodes.TokenInvalid,
    });
  });

  it('blanks unmentioned guild messages for a session without the Message Content intent', async () => {
    const bot = await login(
      client({
        intents: [
          GatewayIntentBits.Guilds,
          GatewayIntentBits.GuildMessages,
          GatewayIntentBits.DirectMessages,
        ],
      }),
    );
    const first = nextMessage(bot);
    fake.sendToChannel(guild.channels.general!, alice, 'secret');
    expect((await first).content).toBe('');
    const second = nextMessage(bot);
    fake.sendToChannel(guild.channels.general!, alice, `<@${fake.bot.id}> visible`);
    expect((await second).content).toBe(`<@${fake.bot.id}> visible`);
  });

  it('creates threads live (THREAD_CREATE) and delivers their messages', async () => {
    const bot = await login(client());
    const thread = fake.createThread(guild.channels.general!, { name: 'topic' });
    const received = nextMessage(bot);
    fake.sendToChannel(thread.id, alice, 'in a thread');
    const message = await received;
    expect(message.channel.isThread()).toBe(true);
    expect(message.channel.isThread() && message.channel.parentId).toBe(guild.channels.general);
  });
});

describe('REST', () => {
  it('answers typing with a bare 204, and records sends, replies, edits and reactions', async () => {
    const bot = await login(client());
    const channel = bot.channels.cache.get(guild.channels.general!);
    if (channel === undefined || !channel.isSendable()) throw new Error('no channel');
    await channel.sendTyping();
    const typing = fake.requests.find((request) => request.path.endsWith('/typing'));
    expect(typing?.status).toBe(204);
    const trigger = fake.sendToChannel(guild.channels.general!, alice, 'question');
    const sent = await channel.send({ content: 'answer', reply: { messageReference: trigger.id } });
    expect(fake.botMessages(guild.channels.general!)[0]).toMatchObject({
      id: sent.id,
      content: 'answer',
      type: 19,
      message_reference: { message_id: trigger.id },
    });
    await sent.edit('better answer');
    expect(fake.message(sent.id)?.content).toBe('better answer');
    await sent.react('👍');
    expect(fake.reactions).toEqual([{ channelId: guild.channels.general, messageId: sent.id, emoji: '👍' }]);
  });

  it("enforces Discord's limits: 2,000 characters, no empty messages, known replies", async () => {
    const bot = await login(client());
    const channel = bot.channels.cache.get(guild.channels.general!);
    if (channel === undefined || !channel.isSendable()) throw new Error('no channel');
    await expect(channel.send('x'.repeat(2001))).rejects.toMatchObject({ code: 50035, status: 400 });
    await expect(channel.send({ content: '', files: [] })).rejects.toBeInstanceOf(Error);
    const empty = fake.requests.filter((request) => request.status === 400);
    expect(empty.length).toBeGreaterThanOrEqual(1);
    await expect(
      channel.send({ content: 'hi', reply: { messageReference: '1234', failIfNotExists: true } }),
    ).rejects.toBeInstanceOf(DiscordAPIError);
    await expect(
      channel.send({ content: 'hi', reply: { messageReference: '1234', failIfNotExists: false } }),
    ).resolves.toBeTruthy();
  });

  it('takes multipart uploads and hosts the files', async () => {
    const bot = await login(client());
    const channel = bot.channels.cache.get(guild.channels.general!);
    if (channel === undefined || !channel.isSendable()) throw new Error('no channel');
    const bytes = Buffer.from('hello file');
    await channel.send({ content: 'a file', files: [new AttachmentBuilder(bytes, { name: 'note.txt' })] });
    const upload = fake.requests.find((request) => request.files.length > 0);
    expect(upload?.json).toMatchObject({ content: 'a file' });
    expect(Buffer.from(upload!.files[0]!.bytes).toString()).toBe('hello file');
    const [message] = fake.botMessages(guild.channels.general!);
    const hosted = await fetch(message!.attachments[0]!.url);
    expect(await hosted.text()).toBe('hello file');
  });

  it('rate-limits with retry-after (discord.js waits and retries) and fails on demand', async () => {
    const bot = await login(client());
    const channel = bot.channels.cache.get(guild.channels.general!);
    if (channel === undefined || !channel.isSendable()) throw new Error('no channel');
    fake.rateLimitNext({ count: 1, retryAfterSeconds: 0.1, method: 'POST', path: /\/messages$/ });
    await channel.send('after a rate limit');
    expect(fake.rateLimitedCount).toBe(1);
    const limited = fake.requests.find((request) => request.status === 429);
    expect(limited?.method).toBe('POST');
    fake.failNext({ status: 500, count: 1, method: 'POST' });
    await channel.send('after a server error');
    expect(fake.botMessages(guild.channels.general!).map((message) => message.content)).toEqual([
      'after a rate limit',
      'after a server error',
    ]);
    fake.revokeToken();
    await expect(channel.send('revoked')).rejects.toMatchObject({ status: 401 });
  });

  it('returns the first message again for a repeated nonce with enforce_nonce', async () => {
    const bot = await login(client());
    const channel = bot.channels.cache.get(guild.channels.general!);
    if (channel === undefined || !channel.isSendable()) throw new Error('no channel');
    const first = await channel.send({ content: 'once', nonce: 'n-1', enforceNonce: true });
    const second = await channel.send({ content: 'once', nonce: 'n-1', enforceNonce: true });
    expect(second.id).toBe(first.id);
    expect(fake.botMessages(guild.channels.general!)).toHaveLength(1);
  });
});

describe('snowflakes', () => {
  it('are unique, increasing and carry their timestamp', () => {
    let time = Date.parse('2026-01-01T00:00:00Z');
    const next = createSnowflakeGenerator(() => time);
    const ids = Array.from({ length: 5000 }, () => next());
    time += 5;
    ids.push(next());
    expect(new Set(ids).size).toBe(ids.length);
    for (let index = 1; index < ids.length; index += 1)
      expect(BigInt(ids[index]!) > BigInt(ids[index - 1]!)).toBe(true);
    expect(snowflakeTimestamp(ids[0]!)).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });
});

describe('conformance driver', () => {
  it('maps users, DMs and the group onto the fake, and waits for the answer to the newest message', async () => {
    const driver = createDiscordConformanceDriver({ sessionWaitMs: 5000 });
    await driver.start();
    try {
      const bot = new Client({
        intents: allIntents,
        partials: [Partials.Channel],
        rest: { api: driver.fake.restApi },
      });
      clients.push(bot);
      bot.on(Events.MessageCreate, async (message) => {
        if (message.author.id === bot.user?.id) return;
        await message.reply(`echo: ${message.content}`);
      });
      await login(bot, driver.fake.token);
      expect(driver.channelConfig({ dmPolicy: 'open' })).toEqual({
        token: driver.fake.token,
        restApi: driver.fake.restApi,
        dmPolicy: 'open',
      });
      const first = await driver.sendDirect('alice', 'one');
      const [reply] = await driver.waitForReplies(first.conversation, 1);
      expect(reply).toMatchObject({ text: 'echo: one', replyToMessageId: first.messageId });
      const second = await driver.sendDirect('alice', 'two');
      // Counting from 1 still waits for the answer to "two".
      const replies = await driver.waitForReplies(second.conversation, 1);
      expect(replies.at(-1)?.text).toBe('echo: two');
      const inGroup = await driver.sendGroup('bob', 'hello group', true);
      expect(inGroup.conversation).toEqual(driver.group);
      const [groupReply] = await driver.waitForReplies(driver.group, 1);
      expect(groupReply?.text).toBe(`echo: <@${driver.fake.bot.id}> hello group`);
      driver.rateLimitNextSends(1, 0.05);
      await driver.sendDirect('bob', 'limited');
      await driver.waitForReplies({ kind: 'direct', id: driver.userId('bob') }, 1);
      expect(driver.rateLimitedSends()).toBe(1);
    } finally {
      await driver.stop();
    }
  });
});
