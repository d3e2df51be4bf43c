import { describe, expect, it } from 'vitest';
import type { TestkitError } from './errors.ts';
import { createConditionWaiter, whenTrue } from './waiter.ts';

describe('createConditionWaiter', () => {
  it('resolves at once when the condition already holds, and on the notify after it starts to', async () => {
    const waiter = createConditionWaiter({ subject: 'fake Test', defaultTimeoutMs: 10_000 });
    const items: string[] = ['a'];
    await expect(waiter.until({ check: () => items[0], awaited: 'one item' })).resolves.toBe('a');
    const second = waiter.until({ check: () => items[1], awaited: 'two items' });
    expect(waiter.pending).toBe(1);
    waiter.notify();
    expect(waiter.pending).toBe(1);
    items.push('b');
    waiter.notify();
    await expect(second).resolves.toBe('b');
    expect(waiter.pending).toBe(0);
  });

  it('times out with an error naming what was awaited and what had arrived', async () => {
    const waiter = createConditionWaiter({ subject: 'fake Test', defaultTimeoutMs: 10_000 });
    let seen = 0;
    const wait = waiter.until({
      check: whenTrue(() => seen >= 3),
      awaited: '3 requests',
      arrived: () => `${seen} arrived`,
      details: () => ({ seen }),
      timeoutMs: 20,
    });
    seen = 2;
    const error = (await wait.catch((failure: unknown) => failure)) as TestkitError;
    expect(error.code).toBe('TESTKIT_WAIT_TIMEOUT');
    expect(error.message).toBe('fake Test: waited 20 ms for 3 requests, 2 arrived');
    expect(error.details).toEqual({ seen: 2, timeoutMs: 20 });
    expect(waiter.pending).toBe(0);
  });

  it('rejects pending waits on close, and later waits that do not hold', async () => {
    const waiter = createConditionWaiter({ subject: 'fake Test', defaultTimeoutMs: 10_000 });
    const pending = waiter.until({ check: whenTrue(() => false), awaited: 'a session' });
    waiter.close();
    await expect(pending).rejects.toMatchObject({
      code: 'TESTKIT_CLOSED',
      message: 'fake Test closed while waiting for a session',
    });
    await expect(waiter.until({ check: whenTrue(() => false), awaited: 'x' })).rejects.toMatchObject({
      code: 'TESTKIT_CLOSED',
    });
    await expect(waiter.until({ check: whenTrue(() => true), awaited: 'y' })).resolves.toBe(true);
  });

  it('uses the timers it is given', async () => {
    const scheduled: Array<() => void> = [];
    const waiter = createConditionWaiter({
      subject: 'fake Test',
      defaultTimeoutMs: 5,
      timers: {
        setTimeout: (callback) => scheduled.push(callback),
        clearTimeout: () => undefined,
      },
    });
    const wait = waiter.until({ check: whenTrue(() => false), awaited: 'nothing' });
    expect(scheduled).toHaveLength(1);
    scheduled[0]!();
    await expect(wait).rejects.toMatchObject({ code: 'TESTKIT_WAIT_TIMEOUT' });
  });
});
