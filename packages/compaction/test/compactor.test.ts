// The compactor against sessions' real SQLite store with an in-process summariser: the
// threshold trigger, stale usage, on-demand compaction, hooks, abort and session resets.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AfterCompactionEvent,
  type AssistantMessage,
  type BeforeCompactionEvent,
  emptyUsage,
  type Message,
  type ToolResultMessage,
} from '@switchboard/hooks';
import { createSqliteSessionStore, type SqliteSessionStore } from '@switchboard/sessions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CompactionEvent,
  type Compactor,
  type CompactorOptions,
  createCompactor,
  readCompactionDetails,
  type Summarizer,
  type SummaryRequest,
} from '../src/index.ts';

const key = 'agent:main:telegram:direct:42';
let directory: string;
let store: SqliteSessionStore;
let time = 1_000_000;
const now = (): number => {
  time += 1000;
  return time;
};

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'switchboard-compactor-'));
  store = await createSqliteSessionStore({
    stateDirectory: directory,
    durability: 'normal',
    lock: { heartbeatMs: 0 },
    now,
  });
  await store.ensureSession(key, { agentId: 'main', chatType: 'direct' });
});

afterEach(async () => {
  await store.close();
  await rm(directory, { recursive: true, force: true });
});

/** A summariser that records its requests and answers with the facts it was sent. */
function recordingSummarizer(): Summarizer & { readonly requests: SummaryRequest[] } {
  const requests: SummaryRequest[] = [];
  return {
    requests,
    async summarize(request) {
      requests.push(request);
      const facts = [...new Set(request.prompt.match(/FACT-\d+/g) ?? [])].sort();
      return `## Exact identifiers\n${facts.join('\n') || 'none'}`;
    },
  };
}

function user(text: string): Message {
  return { role: 'user', content: text, timestamp: now() };
}

function assistant(text: string, input = 0): AssistantMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    usage: { ...emptyUsage, input, totalTokens: input },
    stopReason: 'stop',
    timestamp: now(),
  };
}

function toolTurn(id: string, resultText: string): Message[] {
  const call: AssistantMessage = {
    role: 'assistant',
    content: [{ type: 'toolCall', id, name: 'lookup', arguments: { query: id } }],
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    usage: emptyUsage,
    stopReason: 'toolUse',
    timestamp: now(),
  };
  const result: ToolResultMessage = {
    role: 'toolResult',
    toolCallId: id,
    toolName: 'lookup',
    content: [{ type: 'text', text: resultText }],
    details: { secret: 'PAYLOAD' },
    isError: false,
    timestamp: now(),
  };
  return [call, result];
}

async function append(...messages: Message[]): Promise<void> {
  await store.appendEntries(
    key,
    messages.map((message) => ({ type: 'message' as const, message })),
  );
}

/** `turns` turns of about 100 tokens each: user, tool call, tool result, answer. */
async function appendTurns(from: number, turns: number): Promise<void> {
  for (let turn = from; turn < from + turns; turn += 1) {
    await append(
      user(`FACT-${turn}: question number ${turn} ${'x'.repeat(120)}`),
      ...toolTurn(`call_${turn}`, `result ${turn} ${'r'.repeat(120)}`),
      assistant(`answer ${turn} ${'a'.repeat(60)}`),
    );
  }
}

function compactor(overrides: Partial<CompactorOptions> = {}): Compactor {
  return createCompactor({
    store,
    summarizer: recordingSummarizer(),
    settings: { contextWindow: 4096, reserveTokens: 1024 },
    ...overrides,
  });
}

describe('prepareContext (threshold trigger)', () => {
  it('leaves a context that fits alone, and compacts one that does not into the same context buildContext gives', async () => {
    const summarizer = recordingSummarizer();
    const subject = compactor({ summarizer });
    await appendTurns(1, 5);
    const small = await subject.prepareContext(key);
    expect(small.compaction).toBeUndefined();
    expect(small.fits).toBe(true);
    expect(small.messages).toHaveLength(20);

    await appendTurns(6, 40);
    const large = await subject.prepareContext(key, { pending: [user('the new question')] });
    expect(large.compaction).toMatchObject({ kind: 'summary', reason: 'threshold', mode: 'normal' });
    expect(large.fits).toBe(true);
    expect(large.estimate.tokens).toBeLessThanOrEqual(large.budget.promptBudget);
    expect(large.compaction!.tokensBefore).toBeGreaterThan(large.budget.promptBudget);
    expect(large.compaction!.tokensAfter).toBe(large.estimate.tokens);
    // The returned messages are exactly the store's context.
    const context = await store.buildContext(key);
    expect(large.messages).toEqual(context.messages);
    // Kept messages start at a user message or a tool-safe point, never at a tool result.
    expect((large.messages[1] as Message).role).not.toBe('toolResult');
    // ~45 turns do not fit one summary request in a 4k window: chunks, then one merge.
    const kinds = summarizer.requests.map((request) => request.kind);
    expect(kinds.length).toBeGreaterThanOrEqual(3);
    expect(kinds.at(-1)).toBe('merge');
    expect(kinds.slice(0, -1).every((kind) => kind === 'chunk')).toBe(true);
    expect(large.compaction!.summaryRequests).toBe(kinds.length);
    for (const request of summarizer.requests) {
      expect(
        Math.ceil((request.systemPrompt.length + request.prompt.length) / 4) + request.maxTokens,
      ).toBeLessThan(4096);
    }
    // The summariser saw the early facts, and never a tool result's details.
    expect(summarizer.requests[0]!.prompt).toContain('FACT-1: question number 1');
    expect(summarizer.requests[0]!.prompt).toContain('[Tool result] lookup: result 1');
    for (const request of summarizer.requests) expect(request.prompt).not.toContain('PAYLOAD');
    // Every fact of the summarised part reached the merged summary.
    const summaryText = large.compaction!.summary;
    for (const fact of ['FACT-1', 'FACT-2', 'FACT-10', 'FACT-30'])
      expect(summaryText.split('\n')).toContain(fact);
    // The session's context counter is the post-compaction figure.
    const session = await store.getSession(key);
    expect(session?.tokens.context).toBe(large.compaction!.tokensAfter);
    expect(session?.compactionCount).toBe(1);
  });

  it('usage reported before a compaction does not trigger another; usage after it does', async () => {
    const summarizer = recordingSummarizer();
    const subject = compactor({ summarizer });
    // A provider said the context was 3500 tokens: over the 3072-token prompt budget.
    await appendTurns(1, 12);
    await append(user('FACT-99: last question'), assistant('last answer', 3500));
    const first = await subject.prepareContext(key);
    expect(first.compaction?.reason).toBe('threshold');
    const firstRequests = summarizer.requests.length;
    expect(first.estimate.source).toBe('stored');
    // The kept answer still claims 3500 input tokens; it predates the compaction.
    expect(
      first.messages.some((message) => message.role === 'assistant' && message.usage.input === 3500),
    ).toBe(true);
    const again = await subject.prepareContext(key, { pending: [user('hello')] });
    expect(again.compaction).toBeUndefined();
    expect((await store.getSession(key))?.compactionCount).toBe(1);

    // A call after the compaction that reports a full context is believed.
    await append(user('and now?'), assistant('now the context is full', 3900));
    const third = await subject.prepareContext(key);
    expect(third.compaction?.reason).toBe('threshold');
    const second = summarizer.requests.slice(firstRequests);
    expect(second.length).toBeGreaterThanOrEqual(1);
    // The second summary folds in the first one (as the previous summary, or the first part to merge).
    const previous = first.compaction!.summary;
    expect(second.some((request) => request.prompt.includes(previous))).toBe(true);
    expect(third.compaction!.summary.split('\n')).toContain('FACT-1');
  });

  it('does not compact again when only the summary is left and the pending message is what is too big', async () => {
    const events: CompactionEvent[] = [];
    const subject = compactor({ onEvent: (event) => events.push(event) });
    await appendTurns(1, 40);
    await subject.compact(key);
    const huge = user(`paste: ${'z'.repeat(20_000)}`);
    const before = (await store.getSession(key))?.compactionCount;
    const prepared = await subject.prepareContext(key, { pending: [huge] });
    // Everything was folded into the summary, and the request still cannot fit: reported, not looped.
    expect(prepared.compaction?.mode).toBe('minimal');
    expect(prepared.messages).toHaveLength(1);
    expect(prepared.fits).toBe(false);
    expect((await store.getSession(key))?.compactionCount).toBe((before ?? 0) + 1);
    const again = await subject.prepareContext(key, { pending: [huge] });
    expect(again.compaction).toBeUndefined();
    expect(again.fits).toBe(false);
    expect((await store.getSession(key))?.compactionCount).toBe((before ?? 0) + 1);
    expect(events.at(-1)).toMatchObject({ type: 'compaction_skipped', reason: 'threshold' });
  });
});

describe('compact (on demand)', () => {
  it('passes /compact instructions as data and skips when there is nothing to compact', async () => {
    const summarizer = recordingSummarizer();
    const subject = compactor({ summarizer });
    await appendTurns(1, 3);
    const skipped = await subject.compact(key, { instructions: 'focus on invoices' });
    expect(skipped.status).toBe('skipped');
    expect(summarizer.requests).toHaveLength(0);

    await appendTurns(4, 30);
    const result = await subject.compact(key, { instructions: 'focus on invoices' });
    expect(result.status).toBe('compacted');
    if (result.status !== 'compacted') return;
    expect(result.outcome.reason).toBe('manual');
    expect(summarizer.requests[0]!.prompt).toMatch(/<focus>\nfocus on invoices\n<\/focus>/);
    expect(result.context.messages[0]!.role).toBe('user');
    expect(JSON.stringify(result.context.messages[0])).toContain('FACT-1');
  });

  it('fires before/after callbacks with counts and tokens, and survives a throwing callback', async () => {
    const before: BeforeCompactionEvent[] = [];
    const after: AfterCompactionEvent[] = [];
    const events: CompactionEvent[] = [];
    const subject = compactor({
      hooks: {
        beforeCompaction: (event) => {
          before.push(event);
          throw new Error('observer broke');
        },
        afterCompaction: async (event) => {
          after.push(event);
        },
      },
      onEvent: (event) => events.push(event),
    });
    await appendTurns(1, 30);
    const result = await subject.compact(key);
    if (result.status !== 'compacted') throw new Error('expected a compaction');
    expect(before).toEqual([
      {
        sessionKey: key,
        agentId: 'main',
        reason: 'manual',
        messageCount: 120,
        tokenCount: result.outcome.tokensBefore,
      },
    ]);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      sessionKey: key,
      agentId: 'main',
      reason: 'manual',
      messagesBefore: 120,
      messagesAfter: result.outcome.messagesAfter,
      tokensBefore: result.outcome.tokensBefore,
      tokensAfter: result.outcome.tokensAfter,
      summary: result.outcome.summary,
    });
    expect(after[0]!.messagesAfter).toBeLessThan(120);
    expect(after[0]!.tokensAfter).toBeLessThan(after[0]!.tokensBefore);
    expect(events.map((event) => event.type)).toEqual([
      'compaction_hook_failed',
      'compaction_start',
      'compaction_end',
    ]);
  });

  it('writes nothing when aborted during summarising', async () => {
    const controller = new AbortController();
    const subject = compactor({
      summarizer: {
        async summarize() {
          controller.abort(new Error('user pressed stop'));
          throw new Error('aborted');
        },
      },
    });
    await appendTurns(1, 30);
    await expect(subject.compact(key, { signal: controller.signal })).rejects.toMatchObject({
      code: 'COMPACTION_ABORTED',
    });
    expect((await store.getSession(key))?.compactionCount).toBe(0);
  });

  it('never writes into a session that was reset while it summarised', async () => {
    const subject = compactor({
      summarizer: {
        async summarize() {
          await store.resetSession(key, { reason: 'reset' });
          return 'a summary of a session that no longer exists';
        },
      },
    });
    await appendTurns(1, 30);
    const old = (await store.getSession(key))!.sessionId;
    await expect(subject.compact(key)).rejects.toMatchObject({ code: 'SESSIONS_STALE_SESSION' });
    const fresh = await store.getSession(key);
    expect(fresh?.sessionId).not.toBe(old);
    expect(await store.readTranscript(fresh!.sessionId)).toEqual([]);
    const archived = await store.readTranscript(old);
    expect(archived.some((entry) => entry.type === 'compaction')).toBe(false);
  });

  it('names what is wrong: unknown session, missing window', async () => {
    await expect(compactor().prepareContext('agent:main:nobody')).rejects.toMatchObject({
      code: 'COMPACTION_SESSION_NOT_FOUND',
      message: 'No session exists under the key "agent:main:nobody".',
    });
    const noWindow = createCompactor({ store, summarizer: recordingSummarizer() });
    await expect(noWindow.prepareContext(key)).rejects.toMatchObject({
      code: 'COMPACTION_INVALID_SETTINGS',
      details: { key: 'settings.contextWindow' },
    });
  });

  it('records the calibration with the entry so estimates after it start from it', async () => {
    const subject = compactor();
    await appendTurns(1, 12);
    await append(user('q'), assistant('a', 3900));
    const prepared = await subject.prepareContext(key);
    const session = await store.getSession(key);
    const transcript = await store.readTranscript(session!.sessionId);
    const entry = transcript.find((item) => item.type === 'compaction');
    const details = readCompactionDetails(entry?.type === 'compaction' ? entry.details : undefined);
    expect(details?.calibrationRatio).toBeGreaterThan(1.2);
    expect(prepared.estimate.ratio).toBeCloseTo(details!.calibrationRatio, 6);
  });

  it('recovers an overflow with nothing but the summary left by shortening it, then says nothing is left', async () => {
    const subject = compactor();
    await store.appendEntries(key, [
      {
        type: 'compaction',
        summary: `FACT-1 kept at the head ${'s'.repeat(12_000)} FACT-2 kept at the tail`,
        firstKeptSequence: 1,
        tokensBefore: 9000,
      },
    ]);
    const overflow = {
      role: 'assistant' as const,
      content: [],
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      usage: emptyUsage,
      stopReason: 'error' as const,
      errorMessage: 'prompt is too long: 5000 tokens > 4096 maximum',
      errorClass: 'context_overflow' as const,
      errorDetails: { status: 400, observedTokens: 5000 },
      timestamp: now(),
    };
    const recovered = await subject.recoverFromOverflow(key, { attempt: 1, error: overflow });
    expect(recovered.compaction).toMatchObject({ kind: 'trim', reason: 'overflow', messagesSummarized: 0 });
    const summary = recovered.compaction!.summary;
    expect(summary).toMatch(/^\[Context trimmed\] The summary was shortened/);
    expect(summary).toContain('FACT-1 kept at the head');
    expect(summary).toContain('FACT-2 kept at the tail');
    expect(summary.length).toBeLessThan(6000);
    expect(recovered.messages).toHaveLength(1);

    // A session with a short summary and nothing else: nothing compaction could shrink.
    const other = 'agent:main:telegram:direct:43';
    await store.ensureSession(other, { agentId: 'main' });
    await store.appendEntries(other, [
      { type: 'compaction', summary: 'short', firstKeptSequence: 1, tokensBefore: 100 },
    ]);
    await expect(
      subject.recoverFromOverflow(other, { attempt: 1, error: overflow, systemPrompt: 'p'.repeat(20_000) }),
    ).rejects.toMatchObject({
      code: 'COMPACTION_OVERFLOW_UNRECOVERABLE',
      message: expect.stringContaining('nothing is left to compact'),
    });
  });

  it('recovers without an error to read: the estimate is raised each attempt', async () => {
    const subject = compactor();
    await appendTurns(1, 20);
    const before = await subject.prepareContext(key, { settings: { contextWindow: 200_000 } });
    expect(before.compaction).toBeUndefined();
    const first = await subject.recoverFromOverflow(key, { attempt: 1 });
    expect(first.compaction).toMatchObject({ reason: 'overflow', mode: 'normal' });
    expect(first.estimate.ratio).toBeCloseTo(before.estimate.ratio * 1.25, 6);
    expect(first.fits).toBe(true);
  });
});
