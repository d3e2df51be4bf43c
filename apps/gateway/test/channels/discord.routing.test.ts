// Discord routing through the real gateway (child process), discord.js and FakeDiscord:
// a guild+roles binding picks the agent for members holding the role, and a thread routes by
// its parent channel's binding while keeping its own session, answering inside the thread.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { createFakeDiscord, type FakeDiscord, type FakeDiscordGuild } from '@switchboard/testkit/discord';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from '../child-gateway.ts';

let fake: FakeDiscord;
let model: FakeAnthropic;
let gateway: ChildGateway;
let guild: FakeDiscordGuild;
let operator: string;
let visitor: string;

async function sessionsByKey(): Promise<Map<string, string>> {
  const response = await (await gateway.client()).request('sessions.list', { limit: 100 });
  const sessions = (response.payload?.sessions ?? []) as Array<{ key: string; agentId: string }>;
  return new Map(sessions.map((session) => [session.key, session.agentId]));
}

describe('discord routing through the gateway', () => {
  beforeAll(async () => {
    fake = await createFakeDiscord().start();
    operator = fake.addUser({ username: 'operator' }).id;
    visitor = fake.addUser({ username: 'visitor' }).id;
    guild = fake.addGuild({
      name: 'Company',
      channels: [{ name: 'general' }, { name: 'design' }],
      roles: [{ name: 'ops' }],
    });
    fake.setMember(guild.id, operator, [guild.roles.ops!]);
    fake.setMember(guild.id, visitor);
    model = await createFakeAnthropic({ fallback: 'echo' }).start();
    const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-discord-routing-'));
    const token = 'routing-test-token-0123456789abcdef';
    const config = {
      gateway: { port: 0, auth: { mode: 'token', token } },
      models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
      agents: {
        defaults: { model: 'anthropic/claude-sonnet-4-6' },
        list: [{ id: 'main', default: true }, { id: 'ops' }, { id: 'design' }],
      },
      bindings: [
        { agentId: 'ops', match: { channel: 'discord', guildId: guild.id, roles: [guild.roles.ops] } },
        {
          agentId: 'design',
          match: { channel: 'discord', peer: { kind: 'channel', id: guild.channels.design } },
        },
      ],
      messages: { queue: { debounceMs: 0 } },
      channels: {
        // The whole guild, mentions required: the channel maps this onto groups["*"].
        discord: {
          token: fake.token,
          restApi: fake.restApi,
          guilds: { [guild.id]: { requireMention: true } },
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

  it('routes a member holding a bound role to that agent (binding.guild+roles)', async () => {
    const general = guild.channels.general!;
    const fromOperator = fake.sendToChannel(general, operator, `<@${fake.bot.id}> restart the cache`);
    const [reply] = await fake.waitForBotMessages(general, 1, { timeoutMs: 20_000 });
    expect(reply?.content).toMatch(/restart the cache/);
    expect(reply?.message_reference?.message_id).toBe(fromOperator.id);
    await gateway.settle();
    const sessions = await sessionsByKey();
    expect(sessions.get(`agent:ops:discord:channel:${general}`)).toBe('ops');

    // Same channel, no role: the default agent, in a session of its own.
    fake.sendToChannel(general, visitor, `<@${fake.bot.id}> hello from a visitor`);
    await fake.waitForBotMessages(general, 2, { timeoutMs: 20_000 });
    await gateway.settle();
    expect((await sessionsByKey()).get(`agent:main:discord:channel:${general}`)).toBe('main');

    // Unmentioned: mention gating from guilds.<id>.requireMention holds.
    fake.sendToChannel(general, operator, 'talking to a colleague');
    await gateway.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.botMessages(general)).toHaveLength(2);
  }, 40_000);

  it('routes a thread by its parent channel binding, keeps its own session and answers in the thread', async () => {
    const design = guild.channels.design!;
    const thread = fake.createThread(design, { name: 'logo ideas' });
    await fake.waitFor(() => fake.sessions().some((session) => session.connected), 'the session');
    const trigger = fake.sendToChannel(thread.id, visitor, `<@${fake.bot.id}> which logo is better?`);
    const [reply] = await fake.waitForBotMessages(thread.id, 1, { timeoutMs: 20_000 });
    expect(reply?.content).toMatch(/which logo is better\?/);
    expect(reply?.message_reference?.message_id).toBe(trigger.id);
    expect(fake.botMessages(design)).toHaveLength(0);
    await gateway.settle();
    const sessions = await sessionsByKey();
    expect(sessions.get(`agent:design:discord:channel:${thread.id}`)).toBe('design');
    expect([...sessions.keys()].some((key) => key.endsWith(`:channel:${design}`))).toBe(false);
    // The thread's typing indicator went to the thread, too.
    expect(fake.typings.some((typing) => typing.channelId === thread.id)).toBe(true);
  }, 40_000);
});
