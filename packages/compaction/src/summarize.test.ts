import { anthropicModel, createStreamFunction, ModelError } from '@switchboard/core-loop';
import { createAnthropicProvider } from '@switchboard/core-loop/anthropic';
import type { Message } from '@switchboard/hooks';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { planCompaction } from './plan.ts';
import { summarySystemPrompt } from './prompts.ts';
import { resolveCompactionBudget } from './settings.ts';
import { createModelSummarizer, type Summarizer, type SummaryRequest, summarizePlan } from './summarize.ts';

const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 1 });

function echoSummarizer(
  answer?: (request: SummaryRequest) => string,
): Summarizer & { requests: SummaryRequest[] } {
  const requests: SummaryRequest[] = [];
  return {
    requests,
    async summarize(request) {
      requests.push(request);
      if (answer !== undefined) return answer(request);
      const tags = [...new Set(request.prompt.match(/TAG-\d+/g) ?? [])];
      return `summary of ${tags.join(',')}`;
    },
  };
}

function history(count: number, size: number): Message[] {
  return Array.from({ length: count }, (_, index) => user(`TAG-${index} ${'w'.repeat(size)}`));
}

const budget = resolveCompactionBudget({ contextWindow: 8192, reserveTokens: 2048, keepRecentTokens: 200 });

describe('summarizePlan', () => {
  it('updates the previous summary in one request when the older part fits one chunk', async () => {
    const plan = planCompaction({
      messages: history(6, 200),
      previousSummary: 'OLD SUMMARY',
      budget,
      mode: 'minimal',
    });
    expect(plan.chunks).toHaveLength(1);
    const summarizer = echoSummarizer();
    const result = await summarizePlan(plan, { summarizer, instructions: 'the TAG-3 part' });
    expect(result).toEqual({ text: 'summary of TAG-0,TAG-1,TAG-2,TAG-3,TAG-4,TAG-5', requests: 1 });
    const request = summarizer.requests[0]!;
    expect(request.kind).toBe('chunk');
    expect(request.systemPrompt).toBe(summarySystemPrompt);
    expect(request.maxTokens).toBe(budget.summaryMaxTokens);
    expect(request.prompt).toMatch(/^<previous-summary>\nOLD SUMMARY\n<\/previous-summary>/);
    expect(request.prompt).toContain('Update the previous summary');
    expect(request.prompt).toContain('## Open tasks and pending user requests');
    expect(request.prompt).toContain('<focus>\nthe TAG-3 part\n</focus>');
  });

  it('summarises chunks in order, then merges them after the previous summary', async () => {
    const plan = planCompaction({
      messages: history(40, 2000),
      previousSummary: 'OLD',
      budget,
      mode: 'minimal',
    });
    expect(plan.chunks.length).toBeGreaterThan(2);
    const summarizer = echoSummarizer((request) =>
      request.kind === 'merge' ? 'MERGED' : `part ${request.prompt.match(/TAG-\d+/)?.[0]}`,
    );
    const result = await summarizePlan(plan, { summarizer });
    expect(result.text).toBe('MERGED');
    const kinds = summarizer.requests.map((request) => request.kind);
    expect(kinds).toEqual([...plan.chunks.map(() => 'chunk'), 'merge']);
    const merge = summarizer.requests.at(-1)!.prompt;
    expect(merge.indexOf('<partial-summary index="1">\nOLD\n')).toBe(0);
    expect(merge).toContain('<partial-summary index="2">\npart TAG-0\n');
    expect(merge).toContain('the newer part wins');
    // Chunk requests do not repeat the previous summary: it is merged once.
    expect(summarizer.requests[0]!.prompt).not.toContain('<previous-summary>');
  });

  it('merges in batches that fit a small summary model, level by level', async () => {
    const plan = planCompaction({
      messages: history(60, 2000),
      budget,
      mode: 'minimal',
      summarizerWindow: 4096,
    });
    const summarizer = echoSummarizer((request) =>
      request.kind === 'merge' ? 'M'.repeat(3000) : 'C'.repeat(3000),
    );
    const result = await summarizePlan(plan, { summarizer });
    const merges = summarizer.requests.filter((request) => request.kind === 'merge');
    expect(merges.length).toBeGreaterThan(1);
    for (const request of merges) expect(request.prompt.length / 4).toBeLessThan(4096);
    expect(result.text).toMatch(/^M+/);
  });

  it('cuts an answer longer than the summary budget', async () => {
    const plan = planCompaction({ messages: history(4, 100), budget, mode: 'minimal', ratio: 1 });
    const result = await summarizePlan(plan, {
      summarizer: echoSummarizer(() => `HEAD ${'s'.repeat(40_000)} TAIL`),
    });
    expect(result.text.length).toBeLessThanOrEqual(budget.summaryMaxTokens * 4);
    expect(result.text.startsWith('HEAD')).toBe(true);
    expect(result.text.endsWith('TAIL')).toBe(true);
  });

  it('throws on an empty answer and lets the summariser’s errors through', async () => {
    const plan = planCompaction({ messages: history(4, 100), budget, mode: 'minimal' });
    await expect(summarizePlan(plan, { summarizer: echoSummarizer(() => '  ') })).rejects.toMatchObject({
      code: 'COMPACTION_SUMMARY_EMPTY',
    });
    await expect(
      summarizePlan(plan, {
        summarizer: {
          summarize: async () => {
            throw new Error('boom');
          },
        },
      }),
    ).rejects.toThrow('boom');
  });
});

describe('createModelSummarizer (real SDK against the fake API)', () => {
  let fake: FakeAnthropic | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function setup() {
    fake = await createFakeAnthropic({ fallback: 'fail' }).start();
    const streamFn = createStreamFunction([createAnthropicProvider({ baseUrl: fake.baseURL })]);
    const model = anthropicModel('claude-haiku-4-5', { contextWindow: 50_000 });
    const sleeps: number[] = [];
    const summarizer = createModelSummarizer({
      streamFn,
      model,
      getApiKey: () => 'sk-summary',
      sleep: async (milliseconds) => {
        sleeps.push(milliseconds);
      },
    });
    return { fake, summarizer, sleeps };
  }

  const request: SummaryRequest = {
    kind: 'chunk',
    systemPrompt: summarySystemPrompt,
    prompt: 'summarise me',
    maxTokens: 700,
  };

  it('sends the system prompt, the prompt, the output limit and the key, without thinking', async () => {
    const { fake, summarizer } = await setup();
    fake.enqueue({ text: '## Goal\nShip it.' });
    expect(summarizer.contextWindow).toBe(50_000);
    expect(await summarizer.summarize(request)).toBe('## Goal\nShip it.');
    const sent = fake.lastRequest!;
    expect(sent.systemText).toBe(summarySystemPrompt);
    expect(sent.lastUserText).toBe('summarise me');
    expect(sent.maxTokens).toBe(700);
    expect(sent.thinking).toBeUndefined();
    expect(sent.credential).toBe('sk-summary');
  });

  it('retries an overloaded provider with backoff, then succeeds', async () => {
    const { fake, summarizer, sleeps } = await setup();
    fake.injectFault({ type: 'overloaded', shouldRetry: false }, { times: 2 });
    fake.enqueue({ text: 'third time lucky' });
    expect(await summarizer.summarize(request)).toBe('third time lucky');
    expect(sleeps).toEqual([500, 1000]);
    expect(fake.messageRequests).toHaveLength(3);
  });

  it('does not retry an overflow of the summary request: it throws the ModelError', async () => {
    const { fake, summarizer } = await setup();
    fake.injectFault({ type: 'prompt_too_long', tokens: 60_000, maximum: 50_000 });
    const error = await summarizer.summarize(request).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).errorClass).toBe('context_overflow');
    expect((error as ModelError).observedTokens).toBe(60_000);
    expect(fake.messageRequests).toHaveLength(1);
  });

  it('gives up after three attempts and says why; an empty answer is an error', async () => {
    const { fake, summarizer } = await setup();
    fake.injectFault({ type: 'server', shouldRetry: false }, { times: 3 });
    await expect(summarizer.summarize(request)).rejects.toMatchObject({ code: 'MODEL_TIMEOUT' });
    expect(fake.messageRequests).toHaveLength(3);
    fake.enqueue({ text: '' });
    await expect(summarizer.summarize(request)).rejects.toMatchObject({ code: 'COMPACTION_SUMMARY_EMPTY' });
  });

  it('rejects a bad attempt count', () => {
    expect(() =>
      createModelSummarizer({
        streamFn: () => {
          throw new Error('unused');
        },
        model: anthropicModel('x'),
        maxAttempts: 0,
      }),
    ).toThrow(/maxAttempts of the model summarizer must be an integer ≥ 1; got 0/);
  });
});
