// A 500-turn conversation with a tool call in every turn, through the real SDK against the
// fake Messages API whose window is 8192 tokens (bigger prompts are refused with "prompt is
// too long"), with sessions' real SQLite store. The compactor must keep every prompt inside
// the window, keep every tool call with its result, and carry facts planted in the first
// turns into the summary the model receives at the end.
import { estimateTokens } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { readCompactionDetails } from '../src/index.ts';
import {
  contextPairingProblems,
  createHarness,
  detailsMarker,
  type Harness,
  isSummaryRequest,
  requestText,
  runTurn,
  toolPairingProblems,
  windowedModel,
} from './harness.ts';

const window = 8192;
const facts = [
  'FACT-1: the staging database is db-7f3a.internal:5433',
  'FACT-2: Alice Moreau has employee id 88213',
  'FACT-3: the user prefers metric units and short answers',
  'FACT-4: invoice INV-2026-0042 is still unpaid (1,250.00 EUR)',
];

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a 500-turn conversation in an 8k window', () => {
  it('stays inside the window, keeps every tool call with its result, and keeps early facts', async () => {
    harness = await createHarness({ window, fallback: windowedModel({ window }), reserveTokens: 2048 });
    const started = performance.now();
    let recoveries = 0;
    for (let turn = 1; turn <= 500; turn += 1) {
      const fact = facts[turn - 1];
      const filler = `Please check record number ${turn} and tell me whether it is healthy. `.repeat(
        1 + ((turn * 3) % 5),
      );
      const report = await runTurn(harness, fact === undefined ? filler : `${fact}. ${filler}`);
      recoveries += report.recoveries.length;
      expect(report.final.stopReason, `turn ${turn}: ${report.final.errorMessage ?? ''}`).toBe('stop');
      // What the store will hand to the next run: no call without its result, no result without its call.
      if (report.prepared.compaction !== undefined) {
        expect(contextPairingProblems(report.prepared.messages), `turn ${turn}`).toEqual([]);
        expect(report.prepared.fits).toBe(true);
      }
    }
    const elapsed = performance.now() - started;

    const requests = harness.fake.messageRequests;
    const main = requests.filter((request) => !isSummaryRequest(request));
    const summaries = requests.filter(isSummaryRequest);
    // Two model calls per turn (tool call, answer), none refused, none retried.
    expect(recoveries).toBe(0);
    expect(main.every((request) => request.response?.status === 200)).toBe(true);
    expect(main).toHaveLength(1000);
    // Every prompt fit the window (the fake counts what it was sent).
    const largest = Math.max(...main.map((request) => estimateTokens(request.body ?? {})));
    expect(largest).toBeLessThanOrEqual(window);
    // Every tool call kept its result, in every request.
    for (const request of main)
      expect(toolPairingProblems(request), `request ${request.sequence}`).toEqual([]);
    // Compaction happened many times, each with one summary request.
    const session = await harness.store.getSession(harness.sessionKey);
    expect(session?.compactionCount).toBeGreaterThan(20);
    expect(summaries.length).toBe(session?.compactionCount);
    // Tool result payloads (details) never reached the summariser.
    for (const request of summaries) expect(requestText(request)).not.toContain(detailsMarker);
    // The last request's summary message still carries every fact from the first turns.
    const last = main.at(-1)!;
    const first = JSON.stringify(last.messages[0]);
    expect(first).toContain('<summary>');
    for (const fact of facts) expect(first).toContain(fact);
    // The transcript holds everything; the context is small.
    const transcript = await harness.store.readTranscript(session!.sessionId);
    expect(transcript.filter((entry) => entry.type === 'message').length).toBe(2000);
    const context = await harness.store.buildContext(harness.sessionKey);
    expect(context.messages.length).toBeLessThan(120);
    const compactions = transcript.filter((entry) => entry.type === 'compaction');
    for (const entry of compactions) {
      expect(readCompactionDetails(entry.details)?.kind).toBe('summary');
    }
    console.log(
      `500 turns: ${main.length} model requests, ${summaries.length} compactions, largest prompt ${largest} tokens, ${elapsed.toFixed(0)} ms`,
    );
  });
});
