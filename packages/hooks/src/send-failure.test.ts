import { describe, expect, it } from 'vitest';
import { SwitchboardError } from './errors.ts';
import { classifySendFailure } from './send-failure.ts';

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
