import { describe, expect, it } from 'vitest';
import { runFinalOf } from '../../methods/run-final.ts';
import type { RunOutcome } from './outcome.ts';
import { storedOutcome } from './stored-outcome.ts';

const usage = {
  input: 12,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 17,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.25 },
};

describe('storedOutcome', () => {
  it('reads back an outcome stored by this version unchanged', () => {
    const outcome: RunOutcome = {
      status: 'ok',
      runId: 'r1',
      replies: ['hello'],
      durationMs: 40,
      details: { sessionId: 's1', provider: 'anthropic', model: 'claude', usage },
    };
    expect(storedOutcome(JSON.parse(JSON.stringify(outcome)), 'r1')).toEqual(outcome);
  });

  it('reads every final an earlier version stored back into the outcome it came from', () => {
    const outcomes: RunOutcome[] = [
      {
        status: 'ok',
        runId: 'r1',
        replies: ['one', 'two'],
        durationMs: 40,
        details: { sessionId: 's1', provider: 'anthropic', model: 'claude', usage },
      },
      { status: 'ok', runId: 'r1', replies: ['recovered'], durationMs: 3 },
      { status: 'compacted', runId: 'r1', text: 'Compacted 10 messages.', compaction: { compacted: true } },
      { status: 'aborted', runId: 'r1' },
      { status: 'aborted', runId: 'r1', reason: 'dropped (cap)' },
      { status: 'interrupted', runId: 'r1' },
      {
        status: 'error',
        runId: 'r1',
        message: 'rate limited',
        errorClass: 'rate_limit',
        errorCode: 'MODEL_RATE_LIMITED',
        retryAfterMs: 2000,
      },
    ];
    for (const outcome of outcomes) {
      // What the previous version wrote to `run-results` was the wire final of the outcome.
      const earlier = JSON.parse(JSON.stringify(runFinalOf(outcome)));
      const read = storedOutcome(earlier, 'r1');
      if (outcome.status === 'ok' && outcome.details !== undefined) {
        // The wire kept the cost total only; the token counts survive.
        expect(read).toMatchObject({
          status: 'ok',
          replies: outcome.replies,
          durationMs: 40,
          details: { sessionId: 's1', model: 'claude', usage: { input: 12, output: 5, totalTokens: 17 } },
        });
        expect(read?.status === 'ok' && read.details?.usage.cost.total).toBe(0.25);
      } else {
        expect(read).toEqual(outcome);
      }
    }
  });

  it('refuses a value of neither shape', () => {
    expect(storedOutcome('text', 'r1')).toBeUndefined();
    expect(storedOutcome({ status: 'finished' }, 'r1')).toBeUndefined();
    expect(storedOutcome(null, 'r1')).toBeUndefined();
  });
});

describe('runFinalOf', () => {
  it('reports an answered run as OpenClaw clients read it, with the duration the run measured', () => {
    const final = runFinalOf({ status: 'ok', runId: 'r2', replies: ['hi'], durationMs: 12 });
    expect(final).toEqual({
      ok: true,
      payload: {
        runId: 'r2',
        status: 'ok',
        summary: 'completed',
        result: { payloads: [{ text: 'hi' }], meta: { durationMs: 12 } },
      },
    });
  });

  it('reports a dropped run as aborted with its reason, and an interrupted one as retryable', () => {
    expect(runFinalOf({ status: 'aborted', runId: 'r3', reason: 'dropped (cap)' }).payload).toMatchObject({
      status: 'aborted',
      summary: 'dropped (cap)',
    });
    const interrupted = runFinalOf({ status: 'interrupted', runId: 'r4' });
    expect(interrupted.ok).toBe(false);
    expect(interrupted.error).toMatchObject({ retryable: true, details: { code: 'SHUTTING_DOWN' } });
  });
});
