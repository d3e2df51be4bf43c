import { resolveChannelAccounts } from '@switchboard/hooks';
import { createFakeDiscord, type FakeDiscord, type FakeDiscordGuild } from '@switchboard/testkit/discord';
import { afterEach, describe, expect, it } from 'vitest';
import { type StartedAccount, startAccount } from '../test/start-account.ts';
import { createDiscordChannel } from './channel.ts';
import { admitGuildMessage, normalizeDiscordAllowEntry } from './config.ts';

const channel = createDiscordChannel();
const resolve = (value: unknown) => resolveChannelAccounts(channel, value);
const guildId = '111111111111111111';
const otherGuildId = '222222222222222222';
const channelA = '333333333333333333';
const channelB = '444444444444444444';
const role = '555555555555555555';

describe('channels.discord configuration', () => {
  it('fills defaults and normalizes the token and the REST base', () => {
    const [account] = resolve({ token: 'Bot abc.def', restApi: 'http://127.0.0.1:9/api/v10/' }).accounts;
    expect(account?.config).toMatchObject({
      token: 'abc.def',
      restApi: 'http://127.0.0.1:9/api',
      guilds: {},
      mediaMaxMb: 25,
      rateLimit: { maxRetries: 3, maxWaitSeconds: 60 },
      dmPolicy: 'pairing',
      groups: {},
      requireMention: true,
    });
    expect(resolve({ token: 't' }).accounts[0]?.config.restApi).toBe('https://discord.com/api');
  });

  it('names the key path of every problem', () => {
    expect(() => resolve({ restApi: 'ftp://example.com' })).toThrow(/channels\.discord\.token: /);
    expect(() => resolve({ token: 't', restApi: 'ftp://example.com' })).toThrow(
      /channels\.discord\.restApi: expected an http\(s\) URL/,
    );
    expect(() => resolve({ token: 't', guilds: { [guildId]: { channels: [123] } } })).toThrow(
      /channels\.discord\.guilds\.111111111111111111\.channels: expected a list of channel ids/,
    );
    expect(() => resolve({ token: 't', guilds: { [guildId]: { roles: ['admins'] } } })).toThrow(
      /guilds\.111111111111111111\.roles\[0\]: expected a Discord id/,
    );
    expect(() => resolve({ token: 't', guilds: { 'my-server': {} } })).toThrow(/guilds\.my-server/);
    expect(() => resolve({ accounts: { work: { token: '' } } })).toThrow(
      /channels\.discord\.accounts\.work\.token: the bot token is required/,
    );
  });

  it('maps guilds onto the standard groups: listed channels by id, the rest under "*"', () => {
    const [account] = resolve({
      token: 't',
      guilds: {
        [guildId]: { requireMention: false, channels: [channelA] },
        [otherGuildId]: { requireMention: true, channels: { [channelB]: { requireMention: false } } },
      },
    }).accounts;
    expect(account?.config.groups).toEqual({
      [channelA]: { requireMention: false },
      [channelB]: { requireMention: false },
      '*': {},
    });
    const [whole] = resolve({ token: 't', guilds: { [guildId]: { requireMention: false } } }).accounts;
    expect(whole?.config.groups).toEqual({ '*': { requireMention: false } });
    // Explicit groups entries win over the derived ones.
    const [explicit] = resolve({
      token: 't',
      guilds: { [guildId]: { requireMention: false, channels: [channelA] } },
      groups: { [channelA]: { requireMention: true } },
    }).accounts;
    expect(explicit?.config.groups[channelA]).toEqual({ requireMention: true });
  });

  it('refuses two whole guilds with different requireMention, naming both', () => {
    expect(() =>
      resolve({
        token: 't',
        guilds: { [guildId]: { requireMention: true }, [otherGuildId]: { requireMention: false } },
      }),
    ).toThrow(/guilds\.222222222222222222\.requireMention: guilds 111111111111111111 and 222222222222222222/);
  });

  it('normalizes allowFrom entries to user ids', () => {
    expect(normalizeDiscordAllowEntry(' 123 ')).toBe('123');
    expect(normalizeDiscordAllowEntry('discord:123')).toBe('123');
    expect(normalizeDiscordAllowEntry('user:123')).toBe('123');
    expect(normalizeDiscordAllowEntry('<@!123>')).toBe('123');
  });
});

describe('guild admission', () => {
  const base = { guildId, channelId: channelA, senderId: '9', roleIds: [] as string[] };

  it('admits everything when no guild is configured', () => {
    expect(admitGuildMessage({}, base)).toEqual({ admitted: true });
  });

  it('checks the guild, its channels (threads by parent or by id) and users or roles', () => {
    const guilds = { [guildId]: { channels: { [channelA]: {} }, roles: [role], users: ['7'] } };
    expect(admitGuildMessage(guilds, { ...base, guildId: otherGuildId })).toEqual({
      admitted: false,
      reason: 'guild-not-listed',
    });
    expect(admitGuildMessage(guilds, { ...base, channelId: channelB, roleIds: [role] })).toEqual({
      admitted: false,
      reason: 'channel-not-listed',
    });
    expect(
      admitGuildMessage(guilds, { ...base, channelId: channelB, threadId: channelA, roleIds: [role] }),
    ).toEqual({
      admitted: true,
    });
    expect(admitGuildMessage(guilds, base)).toEqual({ admitted: false, reason: 'sender-not-allowed' });
    expect(admitGuildMessage(guilds, { ...base, roleIds: [role] })).toEqual({ admitted: true });
    expect(admitGuildMessage(guilds, { ...base, senderId: '7' })).toEqual({ admitted: true });
    expect(admitGuildMessage({ '*': {} }, { ...base, guildId: otherGuildId })).toEqual({ admitted: true });
  });
});

describe('guilds through discord.js', () => {
  let fake: FakeDiscord | undefined;
  let started: StartedAccount | undefined;
  afterEach(async () => {
    await started?.stop();
    await fake?.close();
  });

  it('hands over only messages from listed channels (and their threads) by members holding a listed role, and reports the rest', async () => {
    fake = await createFakeDiscord().start();
    const admin = fake.addUser({ username: 'admin' }).id;
    const guest = fake.addUser({ username: 'guest' }).id;
    const guild: FakeDiscordGuild = fake.addGuild({
      name: 'Guild',
      channels: [{ name: 'bots' }, { name: 'random' }],
      roles: [{ name: 'staff' }],
    });
    const other = fake.addGuild({ name: 'Elsewhere', channels: [{ name: 'general' }] });
    fake.setMember(guild.id, admin, [guild.roles.staff!]);
    fake.setMember(guild.id, guest);
    fake.setMember(other.id, admin);
    started = await startAccount(fake, {
      config: { guilds: { [guild.id]: { channels: [guild.channels.bots!], roles: [guild.roles.staff!] } } },
    });
    const thread = fake.createThread(guild.channels.bots!, { name: 'a thread' });
    fake.sendToChannel(guild.channels.random!, admin, 'wrong channel');
    fake.sendToChannel(other.channels.general!, admin, 'wrong guild');
    fake.sendToChannel(guild.channels.bots!, guest, 'no role');
    fake.sendToChannel(guild.channels.bots!, admin, 'staff in bots');
    fake.sendToChannel(thread.id, admin, 'staff in a thread of bots');
    fake.sendDirect(guest, 'DMs are not guild messages');
    await started.waitForReceived(3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started.received.map((message) => message.text).sort()).toEqual([
      'DMs are not guild messages',
      'staff in a thread of bots',
      'staff in bots',
    ]);
    const reasons = started.logs
      .filter((line) => line.message === 'ignored a guild message')
      .map((line) => String(line.fields?.reason));
    expect(reasons.sort()).toEqual(['channel-not-listed', 'guild-not-listed', 'sender-not-allowed']);
    // Each refusal is reported to the gateway too (for `status`), with ids and what would admit it.
    const reports = [...started.ignored].sort((left, right) => left.reason.localeCompare(right.reason));
    expect(reports.map(({ reason, chatId, senderId }) => ({ reason, chatId, senderId }))).toEqual([
      { reason: 'channel-not-listed', chatId: guild.channels.random, senderId: admin },
      { reason: 'guild-not-listed', chatId: other.channels.general, senderId: admin },
      { reason: 'sender-not-allowed', chatId: guild.channels.bots, senderId: guest },
    ]);
    expect(reports.every((report) => report.messageId !== undefined)).toBe(true);
    expect(reports[0]?.note).toBe(
      `channel ${guild.channels.random} is not listed under guilds.${guild.id}.channels`,
    );
    expect(reports[1]?.note).toMatch(new RegExp(`^guild ${other.id} is not listed under guilds`));
    expect(JSON.stringify(reports)).not.toMatch(/wrong channel|wrong guild|no role/);
  });
});
