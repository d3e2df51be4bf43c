// The protocol methods and events end to end, over a real ws client, with the fake model.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { type EventFrame, payloadOf } from './protocol-client.ts';
import { createTestChannel, sentText } from './test-channel.ts';

const running: TestGateway[] = [];
async function start(...args: Parameters<typeof startTestGateway>) {
  const harness = await startTestGateway(...args);
  running.push(harness);
  return harness;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

const chatEvents = (events: readonly EventFrame[], runId: string) =>
  events
    .filter((event) => event.event === 'chat' && event.payload?.runId === runId)
    .map((event) => event.payload ?? {});

describe('protocol methods', () => {
  it('chat.send answers once and streams chat deltas then a final with usage', async () => {
    const harness = await start({
      model: { turns: [{ text: ['Streaming ', 'in ', 'several ', 'pieces.'], latency: { chunkMs: 120 } }] },
    });
    const client = await harness.connect();
    const response = await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'go',
      idempotencyKey: 'chat-1',
    });
    expect(response.payload).toEqual({ runId: 'chat-1', status: 'started' });
    const final = await client.waitForEvent(
      (event) => event.event === 'chat' && event.payload?.state === 'final',
    );
    const events = chatEvents(client.events, 'chat-1');
    const deltas = events.filter((event) => event.state === 'delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => event.deltaText).join('')).toBe('Streaming in several pieces.');
    expect(final.payload).toMatchObject({
      runId: 'chat-1',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Streaming in several pieces.' }] },
      usage: { output: expect.any(Number) },
    });
  });

  it('chat.abort stops a reply mid-stream; the run ends aborted and nothing is left running', async () => {
    const harness = await start({
      model: {
        turns: [
          { text: Array.from({ length: 40 }, (_, index) => `word${index} `), latency: { chunkMs: 50 } },
        ],
      },
    });
    const client = await harness.connect();
    await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'write a lot',
      idempotencyKey: 'long',
    });
    await client.waitForEvent((event) => event.event === 'chat' && event.payload?.state === 'delta');
    const aborted = await client.request('chat.abort', { sessionKey: 'agent:main:main' });
    expect(aborted.payload).toEqual({ ok: true, aborted: true, runIds: ['long'] });
    const end = await client.waitForEvent(
      (event) => event.event === 'chat' && event.payload?.state === 'aborted',
    );
    expect(end.payload).toMatchObject({ runId: 'long', stopReason: 'rpc' });
    const waited = await client.request('agent.wait', { runId: 'long', timeoutMs: 5000 });
    expect(waited.payload).toMatchObject({ status: 'error', error: 'aborted' });
    expect((await harness.model.lastRequest?.settled())?.clientClosedEarly).toBe(true);
    const idle = await client.request('chat.abort', { sessionKey: 'agent:main:main' });
    expect(idle.payload).toEqual({ ok: true, aborted: false, runIds: [] });
  });

  it('runs two sessions in parallel while turns within one session stay in order', async () => {
    const latencyMs = 1000;
    const harness = await start({ model: { latency: { firstByteMs: latencyMs } } });
    const client = await harness.connect();
    const results = await Promise.all([
      client.requestFinal('agent', { message: 'a1', idempotencyKey: 'a1', sessionKey: 'agent:main:alpha' }),
      client.requestFinal('agent', { message: 'a2', idempotencyKey: 'a2', sessionKey: 'agent:main:alpha' }),
      client.requestFinal('agent', { message: 'b1', idempotencyKey: 'b1', sessionKey: 'agent:main:beta' }),
      client.requestFinal('agent', { message: 'b2', idempotencyKey: 'b2', sessionKey: 'agent:main:beta' }),
    ]);
    for (const { final } of results) expect(final.ok).toBe(true);
    // In parallel: the two sessions' first model requests arrive while the first is still
    // unanswered (the fake holds each answer `latencyMs`). Run one after the other, the second
    // could only arrive after the first answer — a causal bound, not a wall-clock one, so a
    // slow machine cannot turn it false.
    const [first, second] = harness.model.messageRequests;
    expect(first?.body?.messages).not.toEqual(second?.body?.messages);
    expect(second!.receivedAt - first!.receivedAt).toBeLessThan(latencyMs);
    for (const [session, first, second] of [
      ['alpha', 'a1', 'a2'],
      ['beta', 'b1', 'b2'],
    ] as const) {
      const history = await client.request('chat.history', { sessionKey: `agent:main:${session}` });
      const users = payloadOf<{ messages: Array<{ role: string; content: string }> }>(
        history,
      ).messages.filter((message) => message.role === 'user');
      expect(users.map((message) => message.content)).toEqual([first, second]);
    }
  });

  it('lists, resets and deletes sessions, and refuses admin methods to a read-only client', async () => {
    const harness = await start();
    const client = await harness.connect();
    await client.requestFinal('agent', {
      message: 'one',
      idempotencyKey: 'one',
      sessionKey: 'agent:main:work',
    });
    const list = await client.request('sessions.list', {});
    const row = payloadOf<{ sessions: Array<Record<string, unknown>> }>(list).sessions.find(
      (session) => session.key === 'agent:main:work',
    );
    expect(row).toMatchObject({ agentId: 'main', hasActiveRun: false, inputTokens: expect.any(Number) });

    const reset = await client.request('sessions.reset', { key: 'agent:main:work' });
    expect(reset.payload).toMatchObject({
      ok: true,
      key: 'agent:main:work',
      entry: { previousSessionId: row?.sessionId },
    });
    const after = await client.request('chat.history', { sessionKey: 'agent:main:work' });
    expect(after.payload?.messages).toEqual([]);

    const reader = await harness.connect({ scopes: ['operator.read'] });
    const refused = await reader.request('sessions.delete', { key: 'agent:main:work' });
    expect(refused.error?.details).toMatchObject({ code: 'MISSING_SCOPE', missingScope: 'operator.admin' });

    const deleted = await client.request('sessions.delete', { key: 'agent:main:work' });
    expect(deleted.payload).toMatchObject({ ok: true, deleted: true, archived: [expect.any(String)] });
    const missing = await client.request('sessions.reset', { key: 'agent:main:work' });
    expect(missing.error?.details?.code).toBe('NOT_FOUND');
  });

  it('exports a transcript whole, or page by page with totals and the next sequence', async () => {
    const harness = await start();
    const client = await harness.connect();
    for (const turn of ['one', 'two', 'three']) {
      await client.requestFinal('agent', {
        message: turn,
        idempotencyKey: turn,
        sessionKey: 'agent:main:log',
      });
    }
    type Page = {
      sessionId: string;
      entries: Array<{ sequence: number }>;
      totalEntries?: number;
      nextSequence?: number | null;
    };
    const whole = payloadOf<Page>(await client.request('sessions.export', { key: 'agent:main:log' }));
    expect(whole.entries.length).toBeGreaterThanOrEqual(6);
    expect(whole.nextSequence).toBeUndefined();

    const paged: Array<{ sequence: number }> = [];
    let fromSequence: number | undefined;
    let pages = 0;
    for (;;) {
      const page = payloadOf<Page>(
        await client.request('sessions.export', {
          key: 'agent:main:log',
          limit: 2,
          fromSequence,
        }),
      );
      pages += 1;
      expect(page.totalEntries).toBe(whole.entries.length);
      expect(page.entries.length).toBeLessThanOrEqual(2);
      paged.push(...page.entries);
      if (page.nextSequence === null || page.nextSequence === undefined) break;
      fromSequence = page.nextSequence;
    }
    expect(pages).toBe(Math.ceil(whole.entries.length / 2));
    expect(paged.map((entry) => entry.sequence)).toEqual(whole.entries.map((entry) => entry.sequence));

    const invalid = await client.request('sessions.export', { key: 'agent:main:log', limit: 0 });
    expect(invalid.error?.message).toContain('limit');
  });

  it('health and status describe the gateway', async () => {
    const harness = await start();
    const client = await harness.connect();
    const health = await client.request('health', {});
    expect(health.payload).toMatchObject({
      ok: true,
      defaultAgentId: 'main',
      plugins: { loaded: [], errors: [] },
    });
    const status = await client.request('status', {});
    expect(status.payload).toMatchObject({
      runtimeVersion: expect.any(String),
      runs: { running: 0, waiting: 0, queuedMessages: 0 },
      pendingInbound: 0,
      sessions: { durability: 'normal' },
      shuttingDown: false,
    });
  });

  it('session.durability "full" opens the store with fsynced commits, and status says so', async () => {
    const harness = await start({ config: { session: { durability: 'full' } } });
    const client = await harness.connect();
    const status = await client.request('status', {});
    expect(status.payload).toMatchObject({ sessions: { durability: 'full' } });
    const { final } = await client.requestFinal('agent', {
      message: 'still answers',
      idempotencyKey: 'durable-1',
      sessionKey: 'agent:main:durable',
    });
    expect(final.ok).toBe(true);
  });

  it('send delivers through a channel once per idempotency key, and explains a missing channel', async () => {
    const bare = await start();
    const none = await (await bare.connect()).request('send', {
      to: 'x',
      message: 'hi',
      idempotencyKey: 's0',
    });
    expect(none.error?.message).toBe('Channel is required (no configured channels detected)');

    const channel = createTestChannel();
    const harness = await start({
      plugins: [channel.plugin],
      config: { channels: { testchat: { dmPolicy: 'open' } } },
    });
    const client = await harness.connect();
    const first = await client.request('send', { to: 'user-9', message: 'notice', idempotencyKey: 's1' });
    expect(first.payload).toMatchObject({ ok: true, channel: 'testchat', duplicate: false });
    const again = await client.request('send', { to: 'user-9', message: 'notice', idempotencyKey: 's1' });
    expect(again.payload).toMatchObject({ ok: true, duplicate: true });
    expect(channel.sent.map(sentText)).toEqual(['notice']);
  });

  it('turns a directive sent over the protocol into an immediate answer', async () => {
    const harness = await start();
    const client = await harness.connect();
    const { final } = await client.requestFinal('agent', { message: '/status', idempotencyKey: 'st' });
    const text = payloadOf<{ result: { payloads: Array<{ text: string }> } }>(final).result.payloads[0]?.text;
    expect(text).toContain('Session: agent:main:main');
    expect(harness.model.messageRequests.length).toBe(0);
  });

  it('refuses new runs while shutting down, and says so', async () => {
    const harness = await start({ model: { latency: { firstByteMs: 300 } } });
    const client = await harness.connect();
    const pending = client.requestFinal('agent', { message: 'finish me', idempotencyKey: 'before-stop' });
    await client.waitForEvent((event) => event.event === 'agent' && event.payload?.runId === 'before-stop');
    const closing = harness.gateway.close('maintenance', 5000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const late = await client
      .request('agent', { message: 'too late', idempotencyKey: 'after-stop' })
      .catch(() => undefined);
    if (late !== undefined) expect(late.error?.details?.code).toBe('SHUTTING_DOWN');
    const { final } = await pending;
    expect(final.payload).toMatchObject({ runId: 'before-stop', status: 'ok' });
    await closing;
    await client.waitClosed();
    expect(client.closeCode).toBe(1012);
    running.splice(running.indexOf(harness), 1);
    await harness.model.close();
  });
});
