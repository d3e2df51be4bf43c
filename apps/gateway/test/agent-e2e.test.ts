import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';

const running: TestGateway[] = [];
async function start(...args: Parameters<typeof startTestGateway>) {
  const harness = await startTestGateway(...args);
  running.push(harness);
  return harness;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

describe('gateway: agent over the WebSocket protocol', () => {
  it('answers agent twice on one id: accepted, then the final with the model reply', async () => {
    const harness = await start({ model: { turns: [{ text: 'Hello from the fake model.' }] } });
    const client = await harness.connect();
    const { accepted, final } = await client.requestFinal('agent', {
      message: 'hi there',
      idempotencyKey: 'run-1',
    });
    expect(accepted.payload).toMatchObject({
      runId: 'run-1',
      status: 'accepted',
      sessionKey: 'agent:main:main',
      agentId: 'main',
    });
    expect(final.ok).toBe(true);
    expect(final.payload).toMatchObject({
      runId: 'run-1',
      status: 'ok',
      result: {
        payloads: [{ text: 'Hello from the fake model.' }],
        meta: { agentMeta: { provider: 'anthropic', model: 'claude-sonnet-4-6' } },
      },
    });
    const request = harness.model.lastRequest;
    expect(request?.lastUserText).toBe('hi there');
    expect(request?.systemText).toContain('You are main');
    expect(request?.credential).toBe('test-key');
    const lifecycle = client.events.filter(
      (event) => event.event === 'agent' && event.payload?.stream === 'lifecycle',
    );
    expect(lifecycle.map((event) => (event.payload?.data as { phase: string } | undefined)?.phase)).toEqual([
      'start',
      'model',
      'end',
    ]);
    const chatFinal = await client.waitForEvent(
      (event) => event.event === 'chat' && event.payload?.state === 'final',
    );
    expect(chatFinal.payload).toMatchObject({ runId: 'run-1', sessionKey: 'agent:main:main' });
  });

  it('keeps the conversation: the second turn sends the first exchange back to the model', async () => {
    const harness = await start({ model: { turns: [{ text: 'first answer' }, { text: 'second answer' }] } });
    const client = await harness.connect();
    await client.requestFinal('agent', { message: 'question one', idempotencyKey: 'a' });
    await client.requestFinal('agent', { message: 'question two', idempotencyKey: 'b' });
    const messages = harness.model.lastRequest?.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    const history = await client.request('chat.history', { sessionKey: 'agent:main:main' });
    expect((history.payload?.messages as unknown[] | undefined)?.length).toBe(4);
  });

  it('replays a finished idempotency key with the cached final, without running again', async () => {
    const harness = await start({ model: { turns: [{ text: 'only once' }] } });
    const client = await harness.connect();
    const first = await client.requestFinal('agent', { message: 'x', idempotencyKey: 'same-key' });
    const replay = await client.request('agent', { message: 'x', idempotencyKey: 'same-key' });
    expect(replay.ok).toBe(true);
    expect(replay.payload).toEqual(first.final.payload);
    expect(harness.model.messageRequests.length).toBe(1);
  });

  it('reports a model failure as a failed final with the class, and the session keeps working', async () => {
    const harness = await start({
      model: { turns: [{ fault: { type: 'authentication' } }, { text: 'recovered' }] },
    });
    const client = await harness.connect();
    const { final } = await client.requestFinal('agent', { message: 'x', idempotencyKey: 'fails' });
    expect(final.ok).toBe(false);
    expect(final.error).toMatchObject({
      details: { code: 'RUN_FAILED', runId: 'fails', errorClass: 'auth' },
    });
    expect(final.error?.message).toMatch(/claude-sonnet-4-6: key rejected/);
    const again = await client.requestFinal('agent', { message: 'again', idempotencyKey: 'works' });
    expect(again.final.payload).toMatchObject({ status: 'ok' });
  });

  it('waits for a run with agent.wait, and times out for an unknown one', async () => {
    const harness = await start({ model: { turns: [{ text: 'slow', latency: { firstByteMs: 100 } }] } });
    const client = await harness.connect();
    const pending = client.requestFinal('agent', { message: 'x', idempotencyKey: 'waited' });
    const waited = await client.request('agent.wait', { runId: 'waited', timeoutMs: 5000 });
    expect(waited.payload).toMatchObject({ runId: 'waited', status: 'ok' });
    await pending;
    const unknown = await client.request('agent.wait', { runId: 'nope', timeoutMs: 50 });
    expect(unknown.payload).toEqual({ runId: 'nope', status: 'timeout' });
  });
});
