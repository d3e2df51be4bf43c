// Two Slack workspaces on one gateway: one account per workspace (one over the Events API on
// the gateway's own HTTP server, one over Socket Mode), and `bindings` matching `teamId`
// route each workspace to its own agent. Runs the real gateway in a child process against
// the fake Slack and the fake model.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { createFakeSlack, type FakeSlack } from '@switchboard/testkit/slack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from '../child-gateway.ts';

interface SessionRow {
  readonly key: string;
  readonly agentId: string;
  readonly channel?: string;
}

describe('Slack: two workspaces routed by teamId', () => {
  let slack: FakeSlack;
  let model: FakeAnthropic;
  let gateway: ChildGateway;

  beforeAll(async () => {
    slack = await createFakeSlack({
      workspaces: [
        { teamId: 'T0ALPHA', teamName: 'Alpha Inc', delivery: 'http', botUserId: 'U0ALPHABOT' },
        { teamId: 'T0BETA', teamName: 'Beta LLC', delivery: 'socket', botUserId: 'U0BETABOT' },
      ],
      http: { retryDelaysMs: [100, 500, 1000] },
    }).start();
    slack.addUser({ id: 'U0ANNA', name: 'anna', teamId: 'T0ALPHA' });
    slack.addChannel({ id: 'C0ALPHA', name: 'alpha-general', teamId: 'T0ALPHA' });
    slack.addUser({ id: 'U0BORIS', name: 'boris', teamId: 'T0BETA' });
    slack.addChannel({ id: 'C0BETA', name: 'beta-general', teamId: 'T0BETA' });
    model = await createFakeAnthropic({ fallback: 'echo' }).start();

    const [alpha, beta] = slack.workspaces;
    const token = 'slack-workspaces-token-0123456789abcdef';
    const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-slack-workspaces-'));
    const config = {
      gateway: { port: 0, auth: { mode: 'token', token } },
      models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
      agents: {
        defaults: { model: 'anthropic/claude-sonnet-4-6' },
        list: [{ id: 'main', default: true }, { id: 'alpha-agent' }, { id: 'beta-agent' }],
      },
      bindings: [
        { agentId: 'alpha-agent', match: { channel: 'slack', accountId: '*', teamId: 'T0ALPHA' } },
        { agentId: 'beta-agent', match: { channel: 'slack', accountId: '*', teamId: 'T0BETA' } },
      ],
      messages: { queue: { debounceMs: 0 } },
      channels: {
        slack: {
          slackApiUrl: slack.slackApiUrl,
          // Every channel, mention required (the Slack `channels` key is an alias of `groups`).
          channels: { '*': { requireMention: true } },
          accounts: {
            alpha: { mode: 'http', botToken: alpha!.botToken, signingSecret: alpha!.signingSecret },
            beta: { mode: 'socket', botToken: beta!.botToken, appToken: beta!.appToken },
          },
        },
      },
    };
    writeFileSync(join(stateDirectory, 'switchboard.json'), JSON.stringify(config, null, 2));
    gateway = await startChildGateway({ stateDirectory, token });
    slack.setRequestUrl(`${gateway.httpUrl}/slack/alpha/events`, 'T0ALPHA');
    await slack.waitForSocketConnections(1);
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await slack?.close();
    await model?.close();
  });

  it('answers each workspace with its own bot, in the thread of the mention', async () => {
    const alphaPost = await slack.postUserMessage({
      teamId: 'T0ALPHA',
      user: 'U0ANNA',
      channel: 'C0ALPHA',
      text: '<@U0ALPHABOT> hello from alpha',
    });
    const betaPost = await slack.postUserMessage({
      teamId: 'T0BETA',
      user: 'U0BORIS',
      channel: 'C0BETA',
      text: '<@U0BETABOT> hello from beta',
    });
    expect([alphaPost.delivered, betaPost.delivered]).toEqual([true, true]);
    const [alphaReply] = await slack.waitForBotMessages('C0ALPHA', 1, 20_000);
    const [betaReply] = await slack.waitForBotMessages('C0BETA', 1, 20_000);
    expect(alphaReply).toMatchObject({
      user: 'U0ALPHABOT',
      teamId: 'T0ALPHA',
      threadTs: alphaPost.message.ts,
    });
    expect(alphaReply?.text).toContain('hello from alpha');
    expect(betaReply).toMatchObject({ user: 'U0BETABOT', teamId: 'T0BETA', threadTs: betaPost.message.ts });
    expect(betaReply?.text).toContain('hello from beta');
    // Each reply went out with its own workspace's bot token.
    expect(
      slack
        .callsTo('chat.postMessage')
        .map((call) => [call.teamId, call.params.channel])
        .sort(),
    ).toEqual([
      ['T0ALPHA', 'C0ALPHA'],
      ['T0BETA', 'C0BETA'],
    ]);
  });

  it('routes each workspace to the agent bound to its teamId', async () => {
    await gateway.settle();
    const response = await (await gateway.client()).request('sessions.list', { limit: 100 });
    expect(response.ok).toBe(true);
    const sessions = (response.payload?.sessions ?? []) as SessionRow[];
    const byAgent = (agentId: string) => sessions.filter((session) => session.agentId === agentId);
    expect(byAgent('alpha-agent').map((session) => session.key)).toEqual([
      expect.stringMatching(/^agent:alpha-agent:slack:channel:c0alpha/i),
    ]);
    expect(byAgent('beta-agent').map((session) => session.key)).toEqual([
      expect.stringMatching(/^agent:beta-agent:slack:channel:c0beta/i),
    ]);
    expect(byAgent('main')).toEqual([]);
  });

  it('keeps the workspaces apart: an unmentioned message in one is not answered, the other still is', async () => {
    const before = slack.botMessages('C0ALPHA').length;
    await slack.postUserMessage({
      teamId: 'T0ALPHA',
      user: 'U0ANNA',
      channel: 'C0ALPHA',
      text: 'no mention here',
    });
    await slack.postUserMessage({
      teamId: 'T0BETA',
      user: 'U0BORIS',
      channel: 'C0BETA',
      text: '<@U0BETABOT> second question',
    });
    await slack.waitForBotMessages('C0BETA', 2, 20_000);
    await gateway.settle();
    expect(slack.botMessages('C0ALPHA')).toHaveLength(before);
    expect(slack.botMessages('C0BETA').at(-1)?.text).toContain('second question');
  });
});
