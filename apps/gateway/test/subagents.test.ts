// Subagents end to end (issue 23): a real gateway, the fake model answering by what each
// request holds (the requester spawns, the child works, the requester relays the result).
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { payloadOf } from './protocol-client.ts';
import { createTestChannel } from './test-channel.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

const lastIsToolResult = (request: RecordedRequest): boolean => {
  const last = request.messages.at(-1);
  return (
    last?.role === 'user' &&
    Array.isArray(last.content) &&
    last.content.some((block) => (block as { type: string }).type === 'tool_result')
  );
};

interface Brain {
  /** The task each child gets, by the user's words: `delegate: <task>`. */
  childAnswer: (task: string) => string;
  childLatencyMs?: number;
}

/** Answers by content: `delegate: X` spawns a child on X; a child answers; results are relayed. */
function brain(options: Brain) {
  return (request: RecordedRequest) => {
    const text = request.lastUserText ?? '';
    if (lastIsToolResult(request)) return { text: 'I asked a helper; I will tell you when it is done.' };
    if (text.startsWith('[Subagent result')) {
      const result = /Result:\n([\s\S]*?)\n(?:Stats|Tell the user)/.exec(text)?.[1] ?? '(nothing)';
      const status = /Status: (.*)/.exec(text)?.[1] ?? '';
      return { text: `Helper report (${status}): ${result}` };
    }
    const delegated = /^delegate: (.*)$/m.exec(text)?.[1];
    if (delegated !== undefined && request.toolNames.includes('sessions_spawn')) {
      const tasks = delegated.split(' && ');
      return {
        toolCalls: tasks.map((task) => ({
          name: 'sessions_spawn',
          input: { task: `CHILD ${task}`, label: task },
        })),
      };
    }
    if (text.startsWith('CHILD ')) {
      return {
        text: options.childAnswer(text.slice('CHILD '.length)),
        latency: options.childLatencyMs === undefined ? undefined : { firstByteMs: options.childLatencyMs },
      };
    }
    return { text: `echo: ${text}` };
  };
}

async function start(options: Brain & { config?: Record<string, unknown> }) {
  const channel = createTestChannel();
  const harness = await startTestGateway({
    plugins: [channel.plugin],
    config: { channels: { testchat: { dmPolicy: 'open' } }, ...options.config },
    model: { fallback: brain(options) },
  });
  running.push(harness);
  return { harness, channel };
}

const sentTexts = (channel: ReturnType<typeof createTestChannel>) =>
  channel.sent.map((entry) => (entry.message as unknown as { text?: string }).text ?? '');

describe('subagents', () => {
  it('spawns a child from a channel conversation and announces its result back there, once', async () => {
    const { harness, channel } = await start({ childAnswer: (task) => `The answer to ${task} is 42.` });
    await channel.receive({ text: 'delegate: six times seven', sender: { id: 'ada' } });
    const sent = await channel.waitForSent(2, 20_000);
    expect(sentTexts(channel)[0]).toContain('I asked a helper');
    expect(sent[1]).toBeDefined();
    expect(sentTexts(channel)[1]).toBe('Helper report (finished): The answer to six times seven is 42.');
    await harness.settle();
    expect(sentTexts(channel)).toHaveLength(2);

    const client = await harness.connect();
    const listed = payloadOf<{ runs: Array<Record<string, unknown>> }>(
      await client.request('subagents.list', {}),
    ).runs;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      outcome: 'ok',
      depth: 1,
      task: 'CHILD six times seven',
      resultText: 'The answer to six times seven is 42.',
      announce: { state: 'delivered', attempts: 1 },
      requesterRoute: { channel: 'testchat', to: 'ada' },
    });
    expect(String(listed[0]!.childSessionKey)).toMatch(/^agent:main:subagent:[0-9a-f-]{36}$/);
    // The child's request carried its task as its first message, and no spawning tools (depth 1 is a leaf).
    const childRequest = harness.model.requests.find((request) => request.lastUserText?.startsWith('CHILD '));
    expect(childRequest?.messages).toHaveLength(1);
    expect(childRequest?.toolNames).not.toContain('sessions_spawn');
  });

  it('runs at most maxConcurrent children at once and announces each', async () => {
    let runningChildren = 0;
    let mostAtOnce = 0;
    const { harness, channel } = await start({
      childAnswer: (task) => `done ${task}`,
      childLatencyMs: 300,
      config: {
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', subagents: { maxConcurrent: 2 } } },
      },
    });
    harness.model.setFallback(async (request) => {
      const text = request.lastUserText ?? '';
      if (text.startsWith('CHILD ')) {
        runningChildren += 1;
        mostAtOnce = Math.max(mostAtOnce, runningChildren);
        await new Promise((resolve) => setTimeout(resolve, 300));
        runningChildren -= 1;
        return { text: `done ${text.slice(6)}` };
      }
      return brain({ childAnswer: (task) => task })(request);
    });
    await channel.receive({ text: 'delegate: a && b && c', sender: { id: 'ada' } });
    await channel.waitForSent(4, 30_000);
    await harness.settle(30_000);
    expect(mostAtOnce).toBe(2);
    const reports = sentTexts(channel).filter((text) => text.startsWith('Helper report'));
    expect(reports.sort()).toEqual([
      'Helper report (finished): done a',
      'Helper report (finished): done b',
      'Helper report (finished): done c',
    ]);
  });

  it('reports a child that runs out of time as timed out, from the runtime', async () => {
    const { harness, channel } = await start({ childAnswer: () => 'too late', childLatencyMs: 5000 });
    harness.model.setFallback((request) => {
      const text = request.lastUserText ?? '';
      if (lastIsToolResult(request)) return { text: 'started' };
      if (text.startsWith('delegate'))
        return {
          toolCalls: [{ name: 'sessions_spawn', input: { task: 'CHILD slow', runTimeoutSeconds: 1 } }],
        };
      return brain({ childAnswer: () => 'too late', childLatencyMs: 5000 })(request);
    });
    await channel.receive({ text: 'delegate: slow', sender: { id: 'ada' } });
    await channel.waitForSent(2, 20_000);
    expect(sentTexts(channel)[1]).toBe('Helper report (timed out before finishing): (nothing)');
  });

  it('refuses to spawn past the depth limit and another agent unless allowed, saying why', async () => {
    const { harness } = await start({ childAnswer: () => 'x' });
    const client = await harness.connect();
    harness.model.setFallback((request) =>
      lastIsToolResult(request)
        ? { text: 'noted' }
        : { toolCalls: [{ name: 'sessions_spawn', input: { task: 'CHILD x', agentId: 'other' } }] },
    );
    await client.requestFinal('agent', {
      message: 'go',
      idempotencyKey: 'forbidden',
      sessionKey: 'agent:main:main',
    });
    const toolResult = harness.model.requests.at(-1)?.messages.at(-1)?.content as unknown as Array<{
      type: string;
      content?: unknown;
      is_error?: boolean;
    }>;
    const result = toolResult.find((block) => block.type === 'tool_result');
    expect(result?.is_error).toBe(true);
    expect(JSON.stringify(result?.content)).toMatch(/may not spawn agent .{1,4}other/);

    // A subagent session at the maximum depth gets no spawning tools at all.
    harness.model.setFallback({ text: 'leaf' });
    await client.requestFinal('agent', {
      message: 'hello',
      idempotencyKey: 'leaf',
      sessionKey: 'agent:main:subagent:00000000-0000-4000-8000-000000000000',
    });
    expect(harness.model.requests.at(-1)?.toolNames).not.toContain('sessions_spawn');
    expect(harness.model.requests.at(-1)?.toolNames).not.toContain('subagents');
  });

  it('kills a child and its own child (two levels), and announces neither', async () => {
    const { harness, channel } = await start({
      childAnswer: () => 'never',
      config: {
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', subagents: { maxSpawnDepth: 2 } } },
      },
    });
    harness.model.setFallback(async (request) => {
      const text = request.lastUserText ?? '';
      const first = request.messages[0];
      const firstText = typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content);
      if (lastIsToolResult(request) && firstText.includes('CHILD level one')) {
        // Level one keeps working after spawning level two: both are running when killed.
        await new Promise((resolve) => setTimeout(resolve, 60_000));
      }
      if (lastIsToolResult(request)) return { text: 'spawned' };
      if (text.startsWith('delegate'))
        return { toolCalls: [{ name: 'sessions_spawn', input: { task: 'CHILD level one' } }] };
      if (text === 'CHILD level one')
        return { toolCalls: [{ name: 'sessions_spawn', input: { task: 'CHILD level two' } }] };
      if (text === 'CHILD level two') {
        await new Promise((resolve) => setTimeout(resolve, 60_000));
      }
      return { text: 'ok' };
    });
    await channel.receive({ text: 'delegate: deep', sender: { id: 'ada' } });
    const client = await harness.connect();
    let runs: Array<{
      runId: string;
      depth: number;
      outcome?: string;
      announce: { state: string; reason?: string };
    }> = [];
    await expect
      .poll(
        async () => {
          runs = payloadOf<{ runs: typeof runs }>(await client.request('subagents.list', {})).runs;
          return runs.map((run) => run.depth).sort();
        },
        { timeout: 20_000, interval: 100 },
      )
      .toEqual([1, 2]);
    const top = runs.find((run) => run.depth === 1)!;
    const stopped = payloadOf<{ stopped: string[] }>(
      await client.request('subagents.kill', { runId: top.runId }),
    );
    expect(stopped.stopped).toHaveLength(2);
    await expect
      .poll(
        async () =>
          payloadOf<{ runs: typeof runs }>(await client.request('subagents.list', {})).runs.filter(
            (run) => run.outcome === 'killed' && run.announce.state === 'discarded',
          ).length,
        { timeout: 20_000, interval: 100 },
      )
      .toBe(2);
    await harness.settle(20_000);
    expect(sentTexts(channel).some((text) => text.startsWith('Helper report'))).toBe(false);
  });

  it('a requester busy with a long turn gets the announcement right after that turn, not later', async () => {
    const { harness, channel } = await start({ childAnswer: () => 'quick result', childLatencyMs: 300 });
    harness.model.setFallback(async (request) => {
      if ((request.lastUserText ?? '') === 'a long question') {
        await new Promise((resolve) => setTimeout(resolve, 2500));
        return { text: 'a long answer' };
      }
      return brain({ childAnswer: () => 'quick result' })(request);
    });
    await channel.receive({ text: 'delegate: quick', sender: { id: 'ada' } });
    await channel.waitForSent(1, 20_000);
    await channel.receive({ text: 'a long question', sender: { id: 'ada' } });
    await channel.waitForSent(2, 30_000);
    const longAnswerAt = Date.now();
    const sent = await channel.waitForSent(3, 30_000);
    const announcedAfterMs = Date.now() - longAnswerAt;
    const texts = sentTexts(channel);
    expect(texts.slice(0, 3)).toEqual([
      'I asked a helper; I will tell you when it is done.',
      'a long answer',
      'Helper report (finished): quick result',
    ]);
    // Queued behind the busy turn like any message: it follows at once (one fake model
    // call), not minutes later; the bound leaves room for a loaded machine.
    expect(sent).toHaveLength(3);
    expect(announcedAfterMs).toBeLessThan(5000);
  });

  it('keeps the result of a child whose requester session was deleted, discarded with the reason', async () => {
    const { harness } = await start({ childAnswer: () => 'orphaned result', childLatencyMs: 1500 });
    const client = await harness.connect();
    await client.requestFinal('agent', {
      message: 'delegate: orphan',
      idempotencyKey: 'orphan',
      sessionKey: 'agent:main:main',
    });
    await client.request('sessions.delete', { key: 'agent:main:main' });
    await expect
      .poll(
        async () =>
          payloadOf<{ runs: Array<{ announce: { state: string; reason?: string }; resultText?: string }> }>(
            await client.request('subagents.list', {}),
          ).runs[0],
        { timeout: 20_000, interval: 100 },
      )
      .toMatchObject({
        resultText: 'orphaned result',
        announce: { state: 'discarded', reason: expect.stringContaining('no longer exists') },
      });
  });
});
