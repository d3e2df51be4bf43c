// Why a Discord bot stayed silent, through the real gateway (child process), discord.js and
// FakeDiscord: mentions in a guild the config does not list are refused by the channel, and
// show in `status` with their reason and what would admit them, logged at info once per chat.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { createFakeDiscord, type FakeDiscord, type FakeDiscordGuild } from '@switchboard/testkit/discord';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/operator/status-command.ts';
import { type ChildGateway, startChildGateway } from '../child-gateway.ts';

let fake: FakeDiscord;
let model: FakeAnthropic;
let gateway: ChildGateway;
let listed: FakeDiscordGuild;
let unlisted: FakeDiscordGuild;
let member: string;

interface NotAnsweredStatus {
  readonly counts: Record<string, number>;
  readonly recent: ReadonlyArray<Record<string, unknown>>;
}

async function statusPayload(): Promise<Record<string, unknown>> {
  const response = await (await gateway.client()).request('status', {});
  return response.payload as Record<string, unknown>;
}

/** Polls `status` until `count` messages were recorded for `key` (reason:detail). */
async function waitForCount(key: string, count: number, timeoutMs = 20_000): Promise<NotAnsweredStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const notAnswered = (await statusPayload()).notAnswered as NotAnsweredStatus;
    if ((notAnswered.counts[key] ?? 0) >= count) return notAnswered;
    if (Date.now() > deadline)
      throw new Error(`expected ${count} × ${key} in status, have ${JSON.stringify(notAnswered.counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('discord admission diagnostics through the gateway', () => {
  beforeAll(async () => {
    fake = await createFakeDiscord().start();
    member = fake.addUser({ username: 'member' }).id;
    listed = fake.addGuild({ name: 'Company', channels: [{ name: 'general' }] });
    unlisted = fake.addGuild({ name: 'Elsewhere', channels: [{ name: 'lobby' }, { name: 'games' }] });
    fake.setMember(listed.id, member);
    fake.setMember(unlisted.id, member);
    model = await createFakeAnthropic({ fallback: 'echo' }).start();
    const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-discord-admission-'));
    const token = 'admission-test-token-0123456789abcdef';
    const config = {
      gateway: { port: 0, auth: { mode: 'token', token } },
      models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
      agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
      messages: { queue: { debounceMs: 0 } },
      channels: {
        discord: {
          token: fake.token,
          restApi: fake.restApi,
          guilds: { [listed.id]: { requireMention: true } },
        },
      },
    };
    writeFileSync(join(stateDirectory, 'switchboard.json'), JSON.stringify(config, null, 2));
    gateway = await startChildGateway({ stateDirectory, token });
    await fake.waitForSession();
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await fake?.close();
    await model?.close();
  });

  it('lists mentions in an unlisted guild in status with the reason, and logs one info line per chat', async () => {
    const lobby = unlisted.channels.lobby!;
    const games = unlisted.channels.games!;
    const mentions = [1, 2, 3].map((index) =>
      fake.sendToChannel(lobby, member, `<@${fake.bot.id}> are you there? (${index})`),
    );
    fake.sendToChannel(games, member, `<@${fake.bot.id}> hello?`);
    const notAnswered = await waitForCount('admission:guild-not-listed', 4);
    expect(notAnswered.counts['admission:guild-not-listed']).toBe(4);
    expect(notAnswered.recent.find((entry) => entry.messageId === mentions[2]!.id)).toMatchObject({
      reason: 'admission',
      detail: 'guild-not-listed',
      channel: 'discord',
      accountId: 'default',
      chatId: lobby,
      senderId: member,
      note: expect.stringContaining(`guild ${unlisted.id} is not listed under guilds`),
    });
    expect(fake.botMessages(lobby)).toHaveLength(0);
    expect(model.messageRequests).toHaveLength(0);

    // One info line per chat for this reason: lobby and games, not one per message. (The log
    // comes through the child's stderr, which may arrive after the status answer.)
    const infoLines = () =>
      gateway.output
        .join('')
        .split('\n')
        .filter(
          (line) =>
            / INFO /.test(line) && line.includes('did not answer a message: admission (guild-not-listed)'),
        );
    for (let waited = 0; infoLines().length < 2 && waited < 5000; waited += 25)
      await new Promise((resolve) => setTimeout(resolve, 25));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(infoLines()).toHaveLength(2);
    expect(infoLines().filter((line) => line.includes(`chatId=${lobby}`))).toHaveLength(1);
    expect(infoLines().filter((line) => line.includes(`chatId=${games}`))).toHaveLength(1);

    // `switchboard status` prints them for people.
    const printed = formatStatus(await statusPayload());
    expect(printed).toMatch(/Not answered since start: .*admission:guild-not-listed 4/);
    expect(printed).toContain(`discord chat ${lobby}: admission (guild-not-listed) - guild ${unlisted.id}`);
  }, 40_000);

  it('counts chatter without a mention in a listed guild (the gateway’s own admission)', async () => {
    const general = listed.channels.general!;
    fake.sendToChannel(general, member, 'just talking to colleagues');
    const notAnswered = await waitForCount('admission:not-mentioned', 1);
    expect(notAnswered.recent[0]).toMatchObject({
      reason: 'admission',
      detail: 'not-mentioned',
      channel: 'discord',
      chatId: general,
      senderId: member,
    });
    fake.sendToChannel(general, member, `<@${fake.bot.id}> now a question`);
    const [reply] = await fake.waitForBotMessages(general, 1, { timeoutMs: 20_000 });
    expect(reply?.content).toMatch(/now a question/);
  }, 40_000);
});
