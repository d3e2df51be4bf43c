import { describe, expect, it } from 'vitest';
import { createBlockCoalescer } from './coalescer.ts';
import { createManualClock } from './manual-clock.test-support.ts';
import type { DeliveryPayload } from './types.ts';

function setup(options: { minChars: number; maxChars: number; idleMs: number }) {
  const clock = createManualClock();
  const flushed: DeliveryPayload[] = [];
  const coalescer = createBlockCoalescer({
    ...options,
    joiner: '\n\n',
    onFlush: (payload) => flushed.push(payload),
    timers: clock,
    now: clock.now,
  });
  return { clock, flushed, coalescer };
}

const block = (text: string, extra: Partial<DeliveryPayload> = {}): DeliveryPayload => ({
  text,
  kind: 'block',
  ...extra,
});

describe('createBlockCoalescer', () => {
  it('merges blocks until idleMs pass without a new one, measured on the injected clock', async () => {
    const { clock, flushed, coalescer } = setup({ minChars: 10, maxChars: 200, idleMs: 1000 });
    coalescer.enqueue(block('First block.'));
    await clock.advance(600);
    coalescer.enqueue(block('Second block.'));
    await clock.advance(600); // 1200 ms after the first, only 600 after the second
    expect(flushed).toEqual([]);
    await clock.advance(399);
    expect(flushed).toEqual([]);
    await clock.advance(1);
    expect(flushed.map((payload) => payload.text)).toEqual(['First block.\n\nSecond block.']);
    expect(clock.pending).toBe(0);
  });

  it('keeps waiting past idle while below minChars, until more text or a forced flush', async () => {
    const { clock, flushed, coalescer } = setup({ minChars: 50, maxChars: 200, idleMs: 1000 });
    coalescer.enqueue(block('Short.'));
    await clock.advance(5000);
    expect(flushed).toEqual([]);
    coalescer.enqueue(block('x'.repeat(50)));
    await clock.advance(1000);
    expect(flushed.map((payload) => payload.text)).toEqual([`Short.\n\n${'x'.repeat(50)}`]);
    coalescer.enqueue(block('tail'));
    coalescer.flush();
    expect(flushed.at(-1)?.text).toBe('tail');
  });

  it('flushes before exceeding maxChars, and a block of maxChars or more goes straight out', () => {
    const { flushed, coalescer } = setup({ minChars: 1, maxChars: 30, idleMs: 1000 });
    coalescer.enqueue(block('a'.repeat(20)));
    coalescer.enqueue(block('b'.repeat(20)));
    expect(flushed.map((payload) => payload.text)).toEqual(['a'.repeat(20)]);
    coalescer.enqueue(block('c'.repeat(40)));
    expect(flushed.map((payload) => payload.text)).toEqual(['a'.repeat(20), 'b'.repeat(20), 'c'.repeat(40)]);
    coalescer.enqueue(block('d'.repeat(14)));
    coalescer.enqueue(block('e'.repeat(14)));
    expect(flushed.at(-1)?.text).toBe(`${'d'.repeat(14)}\n\n${'e'.repeat(14)}`);
  });

  it('flushes before media and before a different reply target; media goes alone', () => {
    const { flushed, coalescer } = setup({ minChars: 1, maxChars: 500, idleMs: 1000 });
    coalescer.enqueue(block('one'));
    coalescer.enqueue(block('', { mediaUrls: ['file:///tmp/a.png'] }));
    coalescer.enqueue(block('two', { replyToId: 'm1' }));
    coalescer.enqueue(block('three', { replyToId: 'm2' }));
    coalescer.flush();
    expect(flushed).toEqual([
      block('one'),
      block('', { mediaUrls: ['file:///tmp/a.png'] }),
      block('two', { replyToId: 'm1' }),
      block('three', { replyToId: 'm2' }),
    ]);
  });

  it('clear drops the buffer and the timer', async () => {
    const { clock, flushed, coalescer } = setup({ minChars: 1, maxChars: 500, idleMs: 1000 });
    coalescer.enqueue(block('dropped'));
    expect(coalescer.clear()).toBe('dropped');
    expect(clock.pending).toBe(0);
    await clock.advance(2000);
    expect(flushed).toEqual([]);
  });

  it('rejects bad options with the option path', () => {
    const onFlush = (): void => {};
    expect(() => createBlockCoalescer({ minChars: 1, maxChars: 10, idleMs: 6000, onFlush })).toThrow(
      /coalesce\.idleMs/,
    );
    expect(() => createBlockCoalescer({ minChars: 20, maxChars: 10, idleMs: 0, onFlush })).toThrow(
      /coalesce\.minChars/,
    );
  });
});
