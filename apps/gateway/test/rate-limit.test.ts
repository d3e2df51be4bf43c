// End to end: the fake Anthropic API answers 429 with retry-after, the gateway waits inside
// the run (agents.defaults.rateLimitMaxWaitSeconds) and the turn still gets its answer; the
// operator sees why the turn waits (an `agent` lifecycle event, phase `waiting`).
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

const lifecycleOf = (event: { event: string; payload?: Record<string, unknown> }) =>
  event.event === 'agent' && event.payload?.stream === 'lifecycle'
    ? (event.payload.data as { phase: string } & Record<string, unknown>)
    : undefined;

describe('gateway: rate limits wait inside the run', () => {
  it('one 429 with retry-after 1: the turn waits 1 s, then gets its answer; operators see the wait', async () => {
    const harness = await start({
      model: {
        turns: [
          { fault: { type: 'rate_limit', retryAfterSeconds: 1 } },
          { text: 'Answered after the rate limit.' },
        ],
      },
    });
    const client = await harness.connect();
    const startedAt = Date.now();
    const { final } = await client.requestFinal('agent', { message: 'hello', idempotencyKey: 'limited' });
    const elapsed = Date.now() - startedAt;
    expect(final.payload).toMatchObject({
      runId: 'limited',
      status: 'ok',
      result: { payloads: [{ text: 'Answered after the rate limit.' }] },
    });
    expect(harness.model.messageRequests).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(5000);

    const phases = client.events.map(lifecycleOf).filter((data) => data !== undefined);
    expect(phases.map((data) => data.phase)).toEqual(['start', 'model', 'waiting', 'model', 'end']);
    // The retry-after counts from the 429; the wait starts a few ms later.
    const waiting = phases[2];
    expect(Number(waiting?.waitMs)).toBeGreaterThan(500);
    expect(Number(waiting?.waitMs)).toBeLessThanOrEqual(1000);
    expect(waiting).toMatchObject({
      phase: 'waiting',
      reason: 'rate_limit',
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      attempt: 2,
    });
    expect(harness.logs.some((line) => line.includes('waiting for a rate-limited model'))).toBe(true);
  });

  it('chat.abort ends the wait at once', async () => {
    const harness = await start({
      model: { turns: [{ fault: { type: 'rate_limit', retryAfterSeconds: 30 } }, { text: 'never sent' }] },
    });
    const client = await harness.connect();
    await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'hello',
      idempotencyKey: 'waiting',
    });
    await client.waitForEvent((event) => lifecycleOf(event)?.phase === 'waiting');
    const abortedAt = Date.now();
    const aborted = await client.request('chat.abort', { sessionKey: 'agent:main:main' });
    expect(aborted.payload).toMatchObject({ aborted: true, runIds: ['waiting'] });
    await client.waitForEvent((event) => event.event === 'chat' && event.payload?.state === 'aborted');
    expect(Date.now() - abortedAt).toBeLessThan(2000);
    expect(harness.model.messageRequests).toHaveLength(1);
  });

  it('a shutdown ends the wait once its grace period is over, not after the 30 s', async () => {
    const harness = await start({
      model: { turns: [{ fault: { type: 'rate_limit', retryAfterSeconds: 30 } }, { text: 'never sent' }] },
    });
    const client = await harness.connect();
    await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'hello',
      idempotencyKey: 'shutdown',
    });
    await client.waitForEvent((event) => lifecycleOf(event)?.phase === 'waiting');
    const closingAt = Date.now();
    await harness.gateway.close('test over', 200);
    expect(Date.now() - closingAt).toBeLessThan(3000);
    expect(harness.model.messageRequests).toHaveLength(1);
  });

  it('a wait longer than rateLimitMaxWaitSeconds fails the turn at once with the time to wait', async () => {
    const harness = await start({
      config: { agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', rateLimitMaxWaitSeconds: 5 } } },
      model: { turns: [{ fault: { type: 'rate_limit', retryAfterSeconds: 42 } }] },
    });
    const client = await harness.connect();
    const startedAt = Date.now();
    const { final } = await client.requestFinal('agent', { message: 'hello', idempotencyKey: 'too-long' });
    expect(Date.now() - startedAt).toBeLessThan(3000);
    expect(final.ok).toBe(false);
    expect(final.error?.details).toMatchObject({ runId: 'too-long', errorClass: 'rate_limit' });
    expect(final.error?.message).toContain('Soonest usable again: anthropic/claude-sonnet-4-6 in 42 s.');
    const retryAfterMs = Number(final.error?.details?.retryAfterMs);
    expect(retryAfterMs).toBeGreaterThan(40_000);
    expect(retryAfterMs).toBeLessThanOrEqual(42_000);
    const error = await client.waitForEvent(
      (event) => event.event === 'chat' && event.payload?.state === 'error',
    );
    expect(error.payload).toMatchObject({
      errorKind: 'rate_limit',
      errorDetail: { errorClass: 'rate_limit' },
    });
    expect(harness.model.messageRequests).toHaveLength(1);
  });
});
