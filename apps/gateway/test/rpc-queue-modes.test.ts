// Protocol clients get the queue modes channels have (chat.send's queueMode), and a stopped
// answer stays stopped: the next turn tells the model, instead of handing it both prompts.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { payloadOf } from './protocol-client.ts';

const running: TestGateway[] = [];
async function start(...args: Parameters<typeof startTestGateway>) {
  const harness = await startTestGateway(...args);
  running.push(harness);
  return harness;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : (content as Array<{ type: string; text?: string }>)
        .map((block) => (block.type === 'text' ? (block.text ?? '') : ''))
        .join('');

describe('protocol queue modes and aborts', () => {
  it('after chat.abort, the next turn shows the model the stopped answer as stopped', async () => {
    const harness = await start({
      model: {
        turns: [
          { text: Array.from({ length: 60 }, (_, index) => `word${index} `), latency: { chunkMs: 50 } },
          { text: ['The capital of Peru is Lima.'] },
        ],
      },
    });
    const client = await harness.connect();
    await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'write me a long poem',
      idempotencyKey: 'poem',
    });
    await client.waitForEvent((event) => event.event === 'chat' && event.payload?.state === 'delta');
    await client.request('chat.abort', { sessionKey: 'agent:main:main' });
    await client.request('agent.wait', { runId: 'poem', timeoutMs: 10_000 });
    await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'what is the capital of Peru?',
      idempotencyKey: 'peru',
    });
    const waited = await client.request('agent.wait', { runId: 'peru', timeoutMs: 10_000 });
    expect(payloadOf<{ status: string }>(waited).status).toBe('ok');
    expect(harness.model.requests).toHaveLength(2);
    const request = harness.model.requests[1]!;
    const roles = request.messages.map((message) => message.role);
    // No two user turns in a row: the stopped answer sits between them, marked as stopped.
    expect(roles).toEqual(['user', 'assistant', 'user']);
    expect(textOf(request.messages[0]!.content)).toContain('write me a long poem');
    expect(textOf(request.messages[1]!.content)).toMatch(/stopped/i);
    expect(textOf(request.messages[2]!.content)).toContain('capital of Peru');
  });

  it('queueMode "steer" puts a message into the running turn, and its run ends with that turn', async () => {
    const harness = await start({
      model: {
        turns: [
          { text: Array.from({ length: 30 }, (_, index) => `step${index} `), latency: { chunkMs: 40 } },
          { text: ['Switched to French, as you asked.'] },
        ],
      },
    });
    const client = await harness.connect();
    await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'explain the plan',
      idempotencyKey: 'plan',
    });
    await client.waitForEvent((event) => event.event === 'chat' && event.payload?.state === 'delta');
    const steered = await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'actually, answer in French',
      idempotencyKey: 'french',
      queueMode: 'steer',
    });
    expect(steered.ok).toBe(true);
    const waited = await client.request('agent.wait', { runId: 'french', timeoutMs: 15_000 });
    expect(payloadOf<{ status: string }>(waited).status).toBe('ok');
    const plan = await client.request('agent.wait', { runId: 'plan', timeoutMs: 15_000 });
    expect(payloadOf<{ status: string }>(plan).status).toBe('ok');
    // One turn answered both: the second model call carries the steered message, and the
    // answer streams under the running turn's id (a followup would be a run of its own).
    expect(harness.model.requests).toHaveLength(2);
    const deltaRuns = new Set(
      client.events
        .filter((event) => event.event === 'chat' && event.payload?.state === 'delta')
        .map((event) => event.payload?.runId),
    );
    expect([...deltaRuns]).toEqual(['plan']);
    const last = harness.model.requests[1]!.messages;
    expect(textOf(last.at(-1)!.content)).toContain('answer in French');
  });

  it('queueMode "collect" merges messages sent while the session is busy into one turn', async () => {
    const harness = await start({
      model: {
        turns: [{ text: ['first answer'], latency: { firstByteMs: 600 } }, { text: ['one answer for both'] }],
      },
    });
    const client = await harness.connect();
    await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'one',
      idempotencyKey: 'c1',
    });
    await client.waitForEvent((event) => event.event === 'agent' && event.payload?.runId === 'c1');
    for (const [key, message] of [
      ['c2', 'two'],
      ['c3', 'three'],
    ] as const) {
      await client.request('chat.send', {
        sessionKey: 'agent:main:main',
        message,
        idempotencyKey: key,
        queueMode: 'collect',
      });
    }
    for (const runId of ['c1', 'c2', 'c3']) {
      const waited = await client.request('agent.wait', { runId, timeoutMs: 15_000 });
      expect(payloadOf<{ status: string }>(waited).status).toBe('ok');
    }
    // Three messages, two model calls: c2 and c3 went in one turn (followup would make three).
    expect(harness.model.requests).toHaveLength(2);
    const merged = textOf(harness.model.requests[1]!.messages.at(-1)!.content);
    expect(merged).toContain('two');
    expect(merged).toContain('three');
  });
});
