// The gateway is SIGKILLed in the middle of 200 messages, restarted on the same state
// directory, and every message is answered exactly once: one final per idempotency key, one
// user message and one reply per key in the transcripts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { payloadOf, type ResponseFrame } from './protocol-client.ts';

const messageCount = 200;
const sessionCount = 20;
const token = 'crash-test-token-0123456789abcdef';

let model: FakeAnthropic;
let gateway: ChildGateway;
let stateDirectory: string;

beforeAll(async () => {
  // Each reply takes a little while, so the kill lands with runs in flight.
  model = await createFakeAnthropic({ fallback: 'echo', latency: { firstByteMs: 15 } }).start();
  stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-crash-'));
  writeFileSync(
    join(stateDirectory, 'switchboard.json'),
    JSON.stringify({
      gateway: { port: 0, auth: { mode: 'token', token } },
      models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
      agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', maxConcurrent: 4 } },
    }),
  );
  gateway = await startChildGateway({ stateDirectory, token });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await model?.close();
});

const keyOf = (index: number) => `crash-${index}`;
const sessionOf = (index: number) => `agent:main:crash-${index % sessionCount}`;
const textOf = (index: number) => `message number ${index}`;

describe('crash recovery', () => {
  it('answers every one of 200 messages exactly once across a SIGKILL', async () => {
    const finals = new Map<string, ResponseFrame>();
    const first = await gateway.client();
    const firstRound = Array.from({ length: messageCount }, (_, index) =>
      first
        .requestFinal(
          'agent',
          { message: textOf(index), idempotencyKey: keyOf(index), sessionKey: sessionOf(index) },
          keyOf(index),
        )
        .then(({ final }) => {
          if (final.ok) finals.set(keyOf(index), final);
        })
        .catch(() => undefined),
    );
    // Kill once some, but not all, are answered.
    const deadline = Date.now() + 30_000;
    while (finals.size < 40 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const answeredBeforeKill = finals.size;
    expect(answeredBeforeKill).toBeGreaterThanOrEqual(40);
    expect(answeredBeforeKill).toBeLessThan(messageCount);
    await gateway.restart();
    await Promise.all(firstRound);

    // Clients retry what they did not get, with the same keys (the protocol's retry rule).
    const second = await gateway.client();
    const replayed = await Promise.all(
      Array.from({ length: messageCount }, async (_, index) => {
        const params = { message: textOf(index), idempotencyKey: keyOf(index), sessionKey: sessionOf(index) };
        let { final } = await second.requestFinal('agent', params, `retry-${index}`);
        if (final.ok && final.payload?.status === 'in_flight') {
          // The recovered run is still going: wait for it, then replay the key for its result.
          await second.request('agent.wait', { runId: keyOf(index), timeoutMs: 60_000 });
          ({ final } = await second.requestFinal('agent', params, `retry-again-${index}`));
        }
        return { index, final };
      }),
    );
    for (const { index, final } of replayed) {
      expect(final.ok, `message ${index}: ${JSON.stringify(final.error)}`).toBe(true);
      expect(final.payload).toMatchObject({ runId: keyOf(index), status: 'ok' });
      const texts = payloadOf<{ result: { payloads: Array<{ text: string }> } }>(final).result.payloads.map(
        (payload) => payload.text,
      );
      expect(texts).toEqual([textOf(index)]);
      const before = finals.get(keyOf(index));
      if (before !== undefined) expect(final.payload).toEqual(before.payload);
    }
    await gateway.settle();

    // Every session's transcript holds each of its messages once, each with one reply.
    for (let session = 0; session < sessionCount; session += 1) {
      const history = await second.request('chat.history', {
        sessionKey: `agent:main:crash-${session}`,
        limit: 1000,
      });
      const messages = history.payload?.messages as Array<{ role: string; content: unknown }>;
      const users = messages
        .filter((message) => message.role === 'user')
        .map((message) => String(message.content));
      const expected = Array.from({ length: messageCount / sessionCount }, (_, round) =>
        textOf(round * sessionCount + session),
      );
      expect([...users].sort()).toEqual([...expected].sort());
      expect(new Set(users).size).toBe(users.length);
      const replies = messages.filter((message) => message.role === 'assistant');
      expect(replies.length).toBe(users.length);
    }
  }, 120_000);
});
