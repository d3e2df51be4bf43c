// `/subagents list | kill | log` (issue 23) from a chat: only senders allowed to use
// directives run them, on the children of their own conversation.
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { lastIsToolResult } from './model-requests.ts';
import { payloadOf } from './protocol-client.ts';
import { createTestChannel, sentText } from './test-channel.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

function brain(request: RecordedRequest) {
  const text = request.lastUserText ?? '';
  if (lastIsToolResult(request)) return { text: 'A helper is on it.' };
  if (text.startsWith('[Subagent result')) return { text: 'The helper is done.' };
  const delegated = /^delegate: (\w+)$/.exec(text)?.[1];
  if (delegated !== undefined)
    return {
      toolCalls: [{ name: 'sessions_spawn', input: { task: `CHILD ${delegated}`, label: delegated } }],
    };
  if (text === 'CHILD slow') return { text: 'too late', latency: { firstByteMs: 120_000 } };
  if (text.startsWith('CHILD ')) return { text: `done ${text.slice(6)}` };
  return { text: `echo: ${text}` };
}

describe('/subagents', () => {
  it('lists, shows the log of and kills the children of the conversation, for authorized senders only', async () => {
    const channel = createTestChannel();
    const harness = await startTestGateway({
      plugins: [channel.plugin],
      config: {
        channels: { testchat: { dmPolicy: 'open', allowFrom: ['ada'] } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
      },
      model: { fallback: brain },
    });
    running.push(harness);
    const say = async (text: string, sender = 'ada') => {
      const before = channel.sent.length;
      await channel.receive({ text, sender: { id: sender } });
      return sentText((await channel.waitForSent(before + 1, 30_000)).at(before));
    };

    expect(await say('/subagents list')).toBe('No subagents in this conversation.');
    expect(await say('delegate: quick')).toBe('A helper is on it.');
    await channel.waitForSent(3, 30_000); // the announcement
    expect(sentText(channel.sent[2])).toBe('The helper is done.');
    expect(await say('delegate: slow')).toBe('A helper is on it.');

    const list = await say('/subagents list');
    const lines = list.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^#1 [0-9a-f]{8} running \d+s {2}slow \(agent main\)$/);
    expect(lines[1]).toMatch(/^#2 [0-9a-f]{8} ok, delivered \d+s {2}quick \(agent main\)$/);

    const log = await say('/subagents log #2');
    expect(log).toMatch(/^Run [0-9a-f-]{36} \(ok\): agent:main:subagent:/);
    expect(log).toContain('\nuser: CHILD quick\nassistant: done quick');

    expect(await say('/subagents kill nope')).toBe('no run matches "nope"');
    expect(await say('/subagents log #7')).toBe('there is no run #7 (2 listed)');
    const slowId = /^#1 ([0-9a-f]{8})/.exec(lines[0]!)?.[1];
    expect(await say(`/subagents kill ${slowId}`)).toBe(`Stopped 1 run: ${slowId}.`);
    const client = await harness.connect();
    await expect
      .poll(
        async () =>
          payloadOf<{ runs: Array<{ runId: string; outcome?: string }> }>(
            await client.request('subagents.list', {}),
          ).runs.find((run) => run.runId.startsWith(slowId!))?.outcome,
        { timeout: 20_000, interval: 100 },
      )
      .toBe('killed');
    expect(await say('/subagents kill all')).toBe('Nothing to stop: no running subagent matches.');

    // A sender who may not use directives: the text goes to the model like any message.
    expect(await say('/subagents list', 'eve')).toBe('echo: /subagents list');
    // And /help lists it.
    expect(await say('/help')).toContain('/subagents — the subagents of this conversation');
  });
});
