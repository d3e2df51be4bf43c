// Overflow recovery and the "never stuck" guarantees, end to end: the real SDK against the
// fake Messages API (which refuses prompts above its window with "prompt is too long: N
// tokens > M maximum"), the Agent, and sessions' SQLite store.
import type { AssistantMessage, Message } from '@switchboard/hooks';
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { type CompactionEvent, readCompactionDetails } from '../src/index.ts';
import {
  createHarness,
  factSummary,
  type Harness,
  isSummaryRequest,
  runTurn,
  toolPairingProblems,
  windowedModel,
} from './harness.ts';

const window = 8192;

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function mainRequests(h: Harness): RecordedRequest[] {
  return h.fake.messageRequests.filter((request) => !isSummaryRequest(request));
}

async function compactionEntries(h: Harness) {
  const session = await h.store.getSession(h.sessionKey);
  const transcript = await h.store.readTranscript(session!.sessionId);
  return transcript.filter((entry) => entry.type === 'compaction');
}

describe('overflow recovery', () => {
  it('a tool result larger than the window: overflow, one compaction, a successful retry', async () => {
    harness = await createHarness({ window, fallback: windowedModel({ window }), reserveTokens: 2048 });
    for (let turn = 1; turn <= 6; turn += 1) await runTurn(harness, `FACT-${turn}: small turn ${turn}`);
    const report = await runTurn(harness, 'DUMP the whole table please');

    expect(report.recoveries).toHaveLength(1);
    expect(report.final.stopReason).toBe('stop');
    const recovery = report.recoveries[0]!;
    expect(recovery.compaction?.reason).toBe('overflow');
    expect(recovery.compaction?.toolResultsShortened).toBe(1);
    expect(recovery.fits).toBe(true);
    // The refused request, then the retry that fit, with the shortened result still paired.
    const main = mainRequests(harness);
    const refused = main.filter((request) => request.response?.status === 400);
    expect(refused).toHaveLength(1);
    const retry = main.at(-1)!;
    expect(retry.response?.status).toBe(200);
    expect(toolPairingProblems(retry)).toEqual([]);
    expect(JSON.stringify(retry.messages)).toMatch(/characters truncated/);
    // The full tool result stays on disk; the context holds the shortened copy.
    const session = await harness.store.getSession(harness.sessionKey);
    const transcript = await harness.store.readTranscript(session!.sessionId);
    const results = transcript.filter(
      (entry) =>
        entry.type === 'message' &&
        entry.message.role === 'toolResult' &&
        entry.message.toolName === 'lookup',
    );
    const lengths = results.map((entry) => JSON.stringify(entry).length);
    expect(Math.max(...lengths)).toBeGreaterThan(40_000);
    const entry = (await compactionEntries(harness)).at(-1)!;
    expect(readCompactionDetails(entry.type === 'compaction' ? entry.details : undefined)).toMatchObject({
      kind: 'summary',
      reason: 'overflow',
      keptCopied: true,
      toolResultsShortened: 1,
    });
    // The next turn runs without any new overflow.
    const next = await runTurn(harness, 'Thanks. Next one.');
    expect(next.recoveries).toHaveLength(0);
    expect(next.final.stopReason).toBe('stop');
  });

  it('a model config that overstates the window: the limit in the error is used, every turn completes', async () => {
    harness = await createHarness({
      window,
      configuredWindow: 200_000,
      fallback: windowedModel({ window }),
    });
    let recoveries = 0;
    for (let turn = 1; turn <= 80; turn += 1) {
      const report = await runTurn(
        harness,
        `FACT-${turn}: turn ${turn}. ${'Please look at this record. '.repeat(6)}`,
      );
      expect(report.final.stopReason, `turn ${turn}`).toBe('stop');
      expect(report.recoveries.length, `turn ${turn}`).toBeLessThanOrEqual(1);
      for (const recovery of report.recoveries) {
        expect(recovery.budget.contextWindow).toBe(window);
        expect(recovery.compaction?.tokensBefore).toBeGreaterThan(window);
      }
      recoveries += report.recoveries.length;
    }
    expect(recoveries).toBeGreaterThanOrEqual(2);
    for (const request of mainRequests(harness)) expect(toolPairingProblems(request)).toEqual([]);
    // The summary in the last request still names the first fact.
    expect(JSON.stringify(mainRequests(harness).at(-1)!.messages[0])).toContain('FACT-1: turn 1');
  });

  it('three failed attempts end with a clear error, and each attempt compacted harder', async () => {
    let refuseEverything = false;
    const normal = windowedModel({ window });
    harness = await createHarness({
      window,
      reserveTokens: 2048,
      fallback: (request) =>
        refuseEverything && !isSummaryRequest(request)
          ? { fault: { type: 'prompt_too_long', tokens: 9000, maximum: window } }
          : normal(request),
    });
    for (let turn = 1; turn <= 14; turn += 1) await runTurn(harness, `FACT-${turn}: turn ${turn}`);
    const before = (await compactionEntries(harness)).length;
    refuseEverything = true;

    const failure = await runTurn(harness, 'One more question').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'COMPACTION_OVERFLOW_UNRECOVERABLE' });
    const message = (failure as Error).message;
    expect(message).toContain('after 3 compaction attempt(s)');
    expect(message).toContain('9000 tokens > 8192');
    expect(message).toContain('/reset');

    const written = (await compactionEntries(harness)).slice(before);
    expect(written).toHaveLength(3);
    const modes = written.map((entry) =>
      entry.type === 'compaction' ? readCompactionDetails(entry.details)?.mode : '',
    );
    expect(modes[0]).toBe('normal');
    expect(modes[2]).toBe('minimal');
    // Four refused requests: the run and its three retries.
    expect(mainRequests(harness).filter((request) => request.response?.status === 400)).toHaveLength(4);
  });

  it('rejects a recovery for an error that is not an overflow, and a bad attempt number', async () => {
    harness = await createHarness({ window, fallback: windowedModel({ window }) });
    await expect(
      harness.compactor.recoverFromOverflow(harness.sessionKey, { attempt: 0 }),
    ).rejects.toMatchObject({ code: 'COMPACTION_INVALID_ARGUMENT', message: /attempt must be an integer/ });
    const rateLimited: AssistantMessage = {
      role: 'assistant',
      content: [],
      provider: 'anthropic',
      model: 'x',
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'error',
      errorMessage: '429 rate_limit_error: slow down',
      errorClass: 'rate_limit',
      timestamp: 1,
    };
    await expect(
      harness.compactor.recoverFromOverflow(harness.sessionKey, { attempt: 1, error: rateLimited }),
    ).rejects.toMatchObject({ code: 'COMPACTION_INVALID_ARGUMENT', message: /not a context overflow/ });
  });
});

describe('a failing summariser never leaves a session stuck', () => {
  it('a summary request that itself overflows: the oldest turns are dropped with a notice, the chat goes on', async () => {
    let summaries = 0;
    const events: CompactionEvent[] = [];
    harness = await createHarness({
      window,
      reserveTokens: 2048,
      compactor: { onEvent: (event) => events.push(event) },
      fallback: windowedModel({
        window,
        // The first two summaries work; every later summary request is "too long".
        summary: (request) => {
          summaries += 1;
          return summaries <= 2
            ? factSummary(request)
            : { fault: { type: 'prompt_too_long', tokens: 12_000, maximum: window } };
        },
      }),
    });
    for (let turn = 1; turn <= 120; turn += 1) {
      const fact = turn <= 3 ? `FACT-${turn}: planted in turn ${turn}. ` : '';
      const report = await runTurn(harness, `${fact}${'Check the next record for me. '.repeat(8)}`);
      expect(report.final.stopReason, `turn ${turn}`).toBe('stop');
      expect(report.recoveries).toHaveLength(0);
    }
    const entries = await compactionEntries(harness);
    const kinds = entries.map((entry) =>
      entry.type === 'compaction' ? readCompactionDetails(entry.details)?.kind : '',
    );
    expect(kinds.slice(0, 2)).toEqual(['summary', 'summary']);
    expect(kinds.slice(2).length).toBeGreaterThan(3);
    expect(new Set(kinds.slice(2))).toEqual(new Set(['truncation']));
    const last = entries.at(-1)!;
    if (last.type !== 'compaction') throw new Error('not a compaction');
    expect(last.summary).toMatch(/^\[Context truncated\] \d+ earlier message\(s\)/);
    expect(last.summary).toContain('prompt is too long');
    // The last good summary survives every truncation.
    for (let fact = 1; fact <= 3; fact += 1)
      expect(last.summary).toContain(`FACT-${fact}: planted in turn ${fact}`);
    expect(readCompactionDetails(last.details)?.failure?.code).toBe('COMPACTION_SUMMARY_FAILED');
    expect(events.some((event) => event.type === 'compaction_summary_failed')).toBe(true);
    // No truncation notice or failing answer was ever saved as if it were a summary.
    for (const entry of entries) {
      if (entry.type !== 'compaction') continue;
      const details = readCompactionDetails(entry.details);
      if (details?.kind === 'summary') expect(entry.summary).not.toContain('[Context truncated]');
    }
    // Every prompt fit the window.
    for (const request of mainRequests(harness)) expect(request.response?.status).toBe(200);
  });

  it('a summary model that keeps failing with server errors: truncation after the retries', async () => {
    harness = await createHarness({
      window,
      reserveTokens: 2048,
      fallback: windowedModel({ window, summary: () => ({ fault: { type: 'server', shouldRetry: false } }) }),
    });
    for (let turn = 1; turn <= 40; turn += 1) {
      const report = await runTurn(
        harness,
        `Turn ${turn}: ${'please keep going with the records. '.repeat(8)}`,
      );
      expect(report.final.stopReason).toBe('stop');
    }
    const entries = await compactionEntries(harness);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      if (entry.type !== 'compaction') continue;
      const details = readCompactionDetails(entry.details);
      expect(details?.kind).toBe('truncation');
      // The model summariser retried the 500 twice before giving up.
      expect(details?.summaryRequests).toBe(1);
    }
    const summaryRequests = harness.fake.messageRequests.filter(isSummaryRequest);
    expect(summaryRequests).toHaveLength(entries.length * 3);
    const context = await harness.store.buildContext(harness.sessionKey);
    const first = context.messages[0] as Message;
    expect(JSON.stringify(first)).toContain('[Context truncated]');
  });
});
