// Failure classes on an OpenAI-compatible server, end to end (issue 20): a 429, a 401 and a
// 5xx from the fake behave exactly as the same failures from Anthropic do — same key
// rotation, same recovery once the cooldown passed — and a context overflow is compacted and
// retried, never a reason to fall back.
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { createFakeOpenAI, type FakeOpenAI } from '@switchboard/testkit/openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

type Family = 'anthropic' | 'openai-compatible';
type FailureKind = 'rate_limit' | 'authentication' | 'server';

interface Rig {
  readonly harness: TestGateway;
  readonly advance: (milliseconds: number) => void;
  /** The key each model request carried, in order. */
  readonly keys: () => Array<string | undefined>;
  readonly fail: (kind: FailureKind) => void;
  readonly answer: (text: string) => void;
}

async function rig(family: Family): Promise<Rig> {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const anthropic: FakeAnthropic = await createFakeAnthropic({ fallback: 'fail' }).start();
  cleanup.push(() => anthropic.close());
  let openai: FakeOpenAI | undefined;
  if (family === 'openai-compatible') {
    openai = await createFakeOpenAI({ fallback: 'fail' }).start();
    const fake = openai;
    cleanup.push(() => fake.close());
  }
  const provider = family === 'anthropic' ? 'anthropic' : 'local';
  const reference = family === 'anthropic' ? 'anthropic/claude-sonnet-4-6' : 'local/qwen3-coder';
  const harness = await startTestGateway({
    sharedModel: anthropic,
    gateway: { now: () => clock },
    config: {
      models: {
        providers: {
          anthropic: {
            baseUrl: anthropic.baseURL,
            models: [{ id: 'claude-sonnet-4-6', contextWindow: 200000, maxTokens: 4096 }],
          },
          local:
            openai === undefined
              ? undefined
              : {
                  api: 'openai-completions',
                  // Not loopback by name, so a key is required, as for a hosted service.
                  baseUrl: openai.baseURL.replace('127.0.0.1', 'localhost'),
                  models: [{ id: 'qwen3-coder', contextWindow: 65536, maxTokens: 4096 }],
                },
        },
      },
      auth: {
        profiles: {
          [`${provider}:a`]: { provider, mode: 'api_key', apiKey: 'key-a' },
          [`${provider}:b`]: { provider, mode: 'api_key', apiKey: 'key-b' },
        },
        order: { [provider]: [`${provider}:a`, `${provider}:b`] },
      },
      agents: { defaults: { model: reference, rateLimitMaxWaitSeconds: 0 } },
    },
  });
  cleanup.push(() => harness.close());
  const anthropicFaults = {
    rate_limit: { type: 'rate_limit' },
    authentication: { type: 'authentication' },
    server: { type: 'server' },
  } as const;
  return {
    harness,
    advance: (milliseconds) => {
      clock += milliseconds;
    },
    keys: () =>
      openai === undefined
        ? anthropic.messageRequests.map((request) => request.credential)
        : openai.modelRequests.map((request) => request.headers.authorization?.replace('Bearer ', '')),
    fail: (kind) => {
      if (openai === undefined) anthropic.injectFault(anthropicFaults[kind], { credential: 'key-a' });
      else openai.injectFault({ type: kind }, { apiKey: 'key-a' });
    },
    answer: (text) => {
      if (openai === undefined) anthropic.enqueue({ text });
      else openai.enqueue({ text });
    },
  };
}

/** Runs: a failure on key a, then (after `waitMs`) a plain turn; returns what was observed. */
async function scenario(family: Family, kind: FailureKind, waitMs: number) {
  const { harness, advance, keys, fail, answer } = await rig(family);
  const client = await harness.connect();
  fail(kind);
  answer('answered by b');
  const first = await client.requestFinal('agent', { message: 'one', idempotencyKey: 'one' });
  const afterFailure = keys();
  advance(waitMs);
  answer('answered later');
  const second = await client.requestFinal('agent', { message: 'two', idempotencyKey: 'two' });
  const status = await client.request('status', {});
  return {
    first: (first.final.payload as { status: string }).status,
    second: (second.final.payload as { status: string }).status,
    keysAfterFailure: afterFailure,
    keysAfterWait: keys().slice(afterFailure.length),
    coolingLogged: harness.logs.some(
      (line) => line.includes('credential cooling down') && line.includes(':a'),
    ),
    statusOk: status.ok,
  };
}

describe('gateway: an OpenAI-compatible server fails like Anthropic', () => {
  it.each([
    ['rate_limit (429)', 'rate_limit', 60_000],
    ['authentication (401)', 'authentication', 2 * 60 * 60_000],
    ['server error (500)', 'server', 60_000],
  ] as const)('%s: same rotation and recovery', async (_label, kind, waitMs) => {
    const viaAnthropic = await scenario('anthropic', kind, waitMs);
    for (const close of cleanup.splice(0).reverse()) await close();
    const viaOpenAI = await scenario('openai-compatible', kind, waitMs);
    expect(viaOpenAI).toEqual(viaAnthropic);
    expect(viaOpenAI.first).toBe('ok');
    expect(viaOpenAI.second).toBe('ok');
    // The failing key was tried first and the other one answered.
    expect(viaOpenAI.keysAfterFailure).toEqual(['key-a', 'key-b']);
  });

  it('a context overflow is compacted and retried on the same model, not a fallback', async () => {
    const openai = await createFakeOpenAI({ family: 'vllm' }).start();
    cleanup.push(() => openai.close());
    const anthropic = await createFakeAnthropic({ fallback: 'fail' }).start();
    cleanup.push(() => anthropic.close());
    // The summarizer's requests carry no tools; the agent's turns do.
    openai.setFallback((request) => ({
      text:
        request.body?.tools === undefined
          ? 'Summary: the user said several things.'
          : 'Answer after compaction.',
    }));
    const harness = await startTestGateway({
      sharedModel: anthropic,
      config: {
        models: {
          providers: {
            local: {
              api: 'openai-completions',
              baseUrl: openai.baseURL,
              models: [{ id: 'qwen3-coder', contextWindow: 32768, maxTokens: 1024 }],
            },
          },
        },
        agents: {
          defaults: { model: { primary: 'local/qwen3-coder', fallbacks: ['anthropic/claude-sonnet-4-6'] } },
        },
      },
    });
    cleanup.push(() => harness.close());
    const client = await harness.connect();
    for (let turn = 0; turn < 4; turn += 1) {
      await client.requestFinal('agent', {
        message: `earlier message ${turn} ${'words '.repeat(200)}`,
        idempotencyKey: `t${turn}`,
      });
    }
    openai.injectFault({ type: 'context_overflow', tokens: 40_000, maximum: 32_768 });
    const { final } = await client.requestFinal('agent', { message: 'and now?', idempotencyKey: 'overflow' });
    expect(final.payload).toMatchObject({
      status: 'ok',
      result: {
        payloads: [{ text: 'Answer after compaction.' }],
        meta: { agentMeta: { provider: 'local' } },
      },
    });
    expect(anthropic.messageRequests).toHaveLength(0);
    expect(harness.logs.some((line) => line.includes('compacted a session'))).toBe(true);
    // The summary request went to the same server, between the overflow and the retry.
    expect(openai.modelRequests.some((request) => request.body?.tools === undefined)).toBe(true);
  });
});
