import { describe, expect, it } from 'vitest';
import { SwitchboardError, toSwitchboardError } from './errors.ts';

class ExampleError extends SwitchboardError<'EXAMPLE_BROKEN'> {}

describe('SwitchboardError', () => {
  it('carries code, message, details and retryability', () => {
    const error = new ExampleError('EXAMPLE_BROKEN', 'the example broke', {
      details: { path: 'a.b' },
      retryable: true,
    });
    expect(error.code).toBe('EXAMPLE_BROKEN');
    expect(error.name).toBe('ExampleError');
    expect(error.retryable).toBe(true);
    expect(error.toJSON()).toEqual({
      name: 'ExampleError',
      code: 'EXAMPLE_BROKEN',
      message: 'the example broke',
      retryable: true,
      details: { path: 'a.b' },
    });
  });

  it('is recognised across copies by its marker, not by instanceof', () => {
    const foreign = Object.assign(new Error('from another copy'), {
      [Symbol.for('switchboard.error')]: true,
      code: 'X',
    });
    expect(SwitchboardError.isInstance(foreign)).toBe(true);
    expect(SwitchboardError.isInstance(new Error('plain'))).toBe(false);
    expect(SwitchboardError.isInstance(null)).toBe(false);
  });

  it('wraps anything thrown, keeping the cause', () => {
    const original = new TypeError('bad type');
    const wrapped = toSwitchboardError(original, 'WRAPPED');
    expect(wrapped.code).toBe('WRAPPED');
    expect(wrapped.message).toBe('bad type');
    expect(wrapped.cause).toBe(original);
    expect(toSwitchboardError({ weird: 1 }).message).toContain('{"weird":1}');
    const existing = new ExampleError('EXAMPLE_BROKEN', 'kept');
    expect(toSwitchboardError(existing)).toBe(existing);
  });
});
