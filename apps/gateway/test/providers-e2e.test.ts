// End to end through the gateway, on each api beyond Anthropic (issue 20): a turn with two
// tool calls and streamed text, answered by the real SDKs against the testkit fakes; a
// session that moves from Anthropic to an OpenAI-compatible model and back mid-conversation.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { createFakeOllama, type FakeOllama } from '@switchboard/testkit/ollama';
import { createFakeOpenAI, type FakeOpenAI } from '@switchboard/testkit/openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

interface Fakes {
  anthropic: FakeAnthropic;
  openai: FakeOpenAI;
  ollama: FakeOllama;
}

async function startFakes(): Promise<Fakes> {
  const anthropic = await createFakeAnthropic({ fallback: 'fail' }).start();
  const openai = await createFakeOpenAI({ fallback: 'fail' }).start();
  const ollama = await createFakeOllama({ fallback: 'fail' }).start();
  cleanup.push(
    () => anthropic.close(),
    () => openai.close(),
    () => ollama.close(),
  );
  return { anthropic, openai, ollama };
}

function providers(fakes: Fakes): Record<string, unknown> {
  return {
    anthropic: {
      baseUrl: fakes.anthropic.baseURL,
      apiKey: 'test-key',
      models: [{ id: 'claude-sonnet-4-6', contextWindow: 200000, maxTokens: 4096 }],
    },
    local: {
      api: 'openai-completions',
      baseUrl: fakes.openai.baseURL,
      models: [{ id: 'qwen3-coder', contextWindow: 65536, maxTokens: 4096 }],
    },
    openai: {
      api: 'openai-responses',
      baseUrl: fakes.openai.baseURL,
      apiKey: 'sk-test',
      models: [{ id: 'gpt-5', contextWindow: 400000, maxTokens: 8192, reasoning: true }],
    },
    ollama: {
      api: 'ollama',
      baseUrl: fakes.ollama.host,
      models: [{ id: 'llama3.2', contextWindow: 16384, maxTokens: 2048 }],
    },
  };
}

async function start(
  fakes: Fakes,
  config: Record<string, unknown>,
  now?: () => number,
): Promise<TestGateway> {
  const harness = await startTestGateway({
    sharedModel: fakes.anthropic,
    config: { models: { providers: providers(fakes) }, ...config },
    gateway: now === undefined ? undefined : { now },
  });
  cleanup.push(() => harness.close());
  return harness;
}

const twoWrites = {
  text: 'Writing both notes now.',
  toolCalls: [
    { name: 'write', arguments: { path: 'a.txt', content: 'alpha' }, argumentChunks: 4 },
    { name: 'write', arguments: { path: 'b.txt', content: 'beta' }, argumentChunks: 4 },
  ],
};

describe('gateway: a turn with two tool calls and streamed text on each api', () => {
  it.each([
    ['openai-completions', 'local/qwen3-coder'],
    ['openai-responses', 'openai/gpt-5'],
    ['ollama', 'ollama/llama3.2'],
  ] as const)('%s (%s)', async (api, reference) => {
    const fakes = await startFakes();
    const fake = api === 'ollama' ? fakes.ollama : fakes.openai;
    fake.enqueue(twoWrites, { text: 'Both notes are written.' });
    const harness = await start(fakes, { agents: { defaults: { model: reference } } });
    const client = await harness.connect();
    const { final } = await client.requestFinal('agent', {
      message: 'write two notes',
      idempotencyKey: `run-${api}`,
    });
    const [provider, model] = reference.split('/');
    expect(final.payload).toMatchObject({
      status: 'ok',
      result: { meta: { agentMeta: { provider, model } } },
    });
    const texts = (final.payload!.result as { payloads: Array<{ text: string }> }).payloads.map(
      (payload) => payload.text,
    );
    expect(texts.join('\n')).toContain('Both notes are written.');
    // The tools really ran, in the agent's workspace.
    const workspace = join(harness.stateDirectory, 'workspace');
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('alpha');
    expect(readFileSync(join(workspace, 'b.txt'), 'utf8')).toBe('beta');
    // Text streamed to operators as deltas, and both tool results went back to the model.
    const deltas = client.events.filter(
      (event) => event.event === 'agent' && event.payload?.stream === 'assistant',
    );
    expect(deltas.length).toBeGreaterThan(1);
    const requests = api === 'ollama' ? fakes.ollama.chatRequests : fakes.openai.modelRequests;
    expect(requests).toHaveLength(2);
    const second = JSON.stringify(requests[1]?.body);
    expect(second).toMatch(/Wrote 5 bytes to a\.txt/);
    expect(second).toMatch(/Wrote 4 bytes to b\.txt/);
    expect(fakes.anthropic.messageRequests).toHaveLength(0);
  });
});

describe('gateway: fallback across providers', () => {
  it('moves a session from Anthropic to an OpenAI-compatible model and back, converting the transcript', async () => {
    const fakes = await startFakes();
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const harness = await start(
      fakes,
      {
        agents: {
          defaults: { model: { primary: 'anthropic/claude-sonnet-4-6', fallbacks: ['local/qwen3-coder'] } },
        },
      },
      () => clock,
    );
    const client = await harness.connect();

    // 1. Anthropic answers, with a tool call (its `toolu_` id and a signed thinking block).
    fakes.anthropic.enqueue(
      { thinking: 'Note it.', toolCalls: [{ name: 'write', input: { path: 'one.txt', content: '1' } }] },
      { text: 'Anthropic wrote one.txt.' },
    );
    const first = await client.requestFinal('agent', { message: 'first', idempotencyKey: 'turn-1' });
    expect(first.final.payload).toMatchObject({
      status: 'ok',
      result: { meta: { agentMeta: { provider: 'anthropic' } } },
    });

    // 2. Anthropic is overloaded: the turn falls back to the local OpenAI-compatible model.
    fakes.anthropic.injectFault({ type: 'overloaded' }, { times: 1 });
    fakes.openai.enqueue({ text: 'The local model answers.' });
    const second = await client.requestFinal('agent', { message: 'second', idempotencyKey: 'turn-2' });
    expect(second.final.payload).toMatchObject({
      status: 'ok',
      result: { meta: { agentMeta: { provider: 'local', model: 'qwen3-coder' } } },
    });
    const converted = fakes.openai.modelRequests[0]?.body as { messages: Array<Record<string, unknown>> };
    const roles = converted.messages.map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    const call = (
      converted.messages[2]!.tool_calls as Array<{
        id: string;
        function: { name: string; arguments: string };
      }>
    )[0];
    expect(call?.function).toEqual({ name: 'write', arguments: '{"path":"one.txt","content":"1"}' });
    expect(converted.messages[3]).toMatchObject({
      role: 'tool',
      tool_call_id: call?.id,
      content: 'Wrote 1 bytes to one.txt',
    });
    // Anthropic's signed thinking is not sent to another provider.
    expect(JSON.stringify(converted.messages)).not.toContain('Note it.');

    // 3. The cooldown passes: the session is back on Anthropic, with the local model's reply in it.
    clock += 30 * 60_000;
    fakes.anthropic.enqueue({ text: 'Anthropic again.' });
    const third = await client.requestFinal('agent', { message: 'third', idempotencyKey: 'turn-3' });
    expect(third.final.payload).toMatchObject({
      status: 'ok',
      result: { meta: { agentMeta: { provider: 'anthropic' } } },
    });
    const back = fakes.anthropic.lastRequest?.messages ?? [];
    expect(back.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(JSON.stringify(back[5])).toContain('The local model answers.');
    expect(existsSync(join(harness.stateDirectory, 'workspace', 'one.txt'))).toBe(true);
  });
});
