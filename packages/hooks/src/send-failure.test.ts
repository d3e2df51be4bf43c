import { describe, expect, it } from 'vitest';
import type { ChannelAccount, OutboundMessage, SendResult } from './channel.ts';
import { SwitchboardError } from './errors.ts';
import { classifySendFailure, sendWithRetry } from './send-failure.ts';

describe('classifySendFailure', () => {
  it('reads a retryable Switchboard error with the platform retry-after', () => {
    const error = new SwitchboardError('X_RATE_LIMITED', 'rate limited', {
      retryable: true,
      details: { retryAfterMs: 1_500 },
    });
    expect(classifySendFailure(error)).toEqual({ kind: 'retryable', retryAfterMs: 1_500 });
  });

  it('leaves the retry-after out when the platform gave none or gave nonsense', () => {
    const plain = new SwitchboardError('X_SERVER', 'server', { retryable: true });
    const nonsense = new SwitchboardError('X_SERVER', 'server', {
      retryable: true,
      details: { retryAfterMs: 'soon' },
    });
    expect(classifySendFailure(plain)).toEqual({ kind: 'retryable' });
    expect(classifySendFailure(nonsense)).toEqual({ kind: 'retryable' });
  });

  it('calls anything the channel did not vouch for permanent', () => {
    expect(classifySendFailure(new SwitchboardError('X_BAD', 'bad request'))).toEqual({ kind: 'permanent' });
    expect(classifySendFailure(new Error('socket hang up'))).toEqual({ kind: 'permanent' });
    expect(classifySendFailure('nope')).toEqual({ kind: 'permanent' });
  });
});

describe('sendWithRetry', () => {
  const message: OutboundMessage = {
    kind: 'text',
    channel: 'chat',
    accountId: 'default',
    peer: { kind: 'direct', id: 'alice' },
    text: 'hello',
  };
  const limited = (retryAfterMs?: number) =>
    new SwitchboardError('X_RATE_LIMITED', 'rate limited', {
      retryable: true,
      details: retryAfterMs === undefined ? undefined : { retryAfterMs },
    });

  /** An account whose sends fail with `failures` in order, then succeed; counts attempts. */
  function account(failures: unknown[], extra: Partial<ChannelAccount> = {}) {
    let calls = 0;
    return {
      calls: () => calls,
      send: async (): Promise<SendResult> => {
        const failure = failures[calls];
        calls += 1;
        if (failure !== undefined) throw failure;
        return { messageIds: [`m${calls}`] };
      },
      ...extra,
    };
  }

  it('waits the retry-after, or backs off, and delivers within the attempts', async () => {
    const waits: number[] = [];
    const sending = account([limited(2_000), new SwitchboardError('X_SERVER', '502', { retryable: true })]);
    const result = await sendWithRetry(sending, message, { sleep: async (ms) => void waits.push(ms) });
    expect(result).toEqual({ messageIds: ['m3'] });
    expect([sending.calls(), waits]).toEqual([3, [2_000, 1_000]]);
  });

  it('costs exactly the attempts of the account policy, then rethrows the last failure', async () => {
    const waits: number[] = [];
    const last = limited(100);
    const sending = account([limited(100), limited(100), limited(100), last], {
      sendRetry: { attempts: 4, maxWaitMs: 1_000 },
    });
    await expect(sendWithRetry(sending, message, { sleep: async (ms) => void waits.push(ms) })).rejects.toBe(
      last,
    );
    expect([sending.calls(), waits]).toEqual([4, [100, 100, 100]]);
  });

  it('fails at once on a permanent failure and on a retry-after above the longest wait', async () => {
    const permanent = account([new SwitchboardError('X_BAD', 'bad request')]);
    await expect(sendWithRetry(permanent, message, { sleep: async () => undefined })).rejects.toThrow(
      'bad request',
    );
    expect(permanent.calls()).toBe(1);
    const tooLong: number[] = [];
    const long = account([limited(120_000)]);
    await expect(
      sendWithRetry(long, message, { onRetryAfterTooLong: (ms) => void tooLong.push(ms) }),
    ).rejects.toThrow('rate limited');
    expect([long.calls(), tooLong]).toEqual([1, [120_000]]);
  });

  it('asks the account to classify when it can', async () => {
    const sending = account([new Error('socket closed before the request was written')], {
      classifySendFailure: () => ({ kind: 'retryable', retryAfterMs: 5 }),
    });
    const waits: number[] = [];
    await sendWithRetry(sending, message, { sleep: async (ms) => void waits.push(ms) });
    expect([sending.calls(), waits]).toEqual([2, [5]]);
  });

  it('stops waiting when the signal aborts, and does not start a wait once aborted', async () => {
    const controller = new AbortController();
    const sending = account([limited(59_000), limited(1)], { sendRetry: { attempts: 3, maxWaitMs: 60_000 } });
    const pending = sendWithRetry(sending, message, {
      signal: controller.signal,
      onRetry: () => controller.abort(new Error('gateway stopping')),
    });
    await expect(pending).rejects.toThrow('gateway stopping');
    expect(sending.calls()).toBe(1);
    const first = limited(1);
    const already = account([first]);
    await expect(sendWithRetry(already, message, { signal: AbortSignal.abort() })).rejects.toBe(first);
    expect(already.calls()).toBe(1);
  });
});
