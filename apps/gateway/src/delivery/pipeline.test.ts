import { describe, expect, it } from 'vitest';
import { createManualClock } from './manual-clock.test-support.ts';
import { createDeliveryPipeline, DEFAULT_SEND_TIMEOUT_MS } from './pipeline.ts';
import type { DeliveryEvent, DeliveryPayload, DeliverySendContext } from './types.ts';

const block = (text: string): DeliveryPayload => ({ text, kind: 'block' });
const final = (text: string): DeliveryPayload => ({ text, kind: 'final' });

describe('createDeliveryPipeline', () => {
  it('sends strictly in order, one at a time, whatever each send takes', async () => {
    const clock = createManualClock();
    const log: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const durations: Record<string, number> = { a: 300, b: 10, c: 100 };
    const pipeline = createDeliveryPipeline({
      timers: clock,
      send: async (payload) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        log.push(`start ${payload.text}`);
        await new Promise<void>((resolve) => clock.setTimeout(resolve, durations[payload.text] ?? 0));
        log.push(`end ${payload.text}`);
        inFlight--;
      },
    });
    for (const text of ['a', 'b', 'c']) pipeline.enqueue(block(text));
    await clock.advance(1000);
    await pipeline.idle();
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(maxInFlight).toBe(1);
    expect(pipeline.stats.blocksSent).toBe(3);
  });

  it('on a send timeout aborts that send, skips every later block to preserve order, still sends finals', async () => {
    const clock = createManualClock();
    const sent: string[] = [];
    const events: DeliveryEvent[] = [];
    let hungSignal: AbortSignal | undefined;
    const pipeline = createDeliveryPipeline({
      timers: clock,
      onEvent: (event) => events.push(event),
      send: (payload, context: DeliverySendContext) => {
        if (payload.text === 'block 2') {
          hungSignal = context.signal;
          return new Promise<void>(() => {}); // never settles
        }
        sent.push(payload.text);
        return undefined;
      },
    });
    pipeline.enqueue(block('block 1'));
    pipeline.enqueue(block('block 2'));
    pipeline.enqueue(block('block 3'));
    await clock.advance(DEFAULT_SEND_TIMEOUT_MS - 1);
    expect(sent).toEqual(['block 1']);
    expect(pipeline.aborted).toBe(false);
    await clock.advance(1);
    await pipeline.idle();
    expect(pipeline.aborted).toBe(true);
    expect(hungSignal?.aborted).toBe(true);
    expect(pipeline.enqueue(block('block 4'))).toBe(false);
    expect(pipeline.enqueue(final('final answer'))).toBe(true);
    await pipeline.idle();
    expect(sent).toEqual(['block 1', 'final answer']);
    const timeout = events.find((event) => event.type === 'timed_out');
    expect(timeout?.type === 'timed_out' && timeout.error.code).toBe('DELIVERY_SEND_TIMEOUT');
    const skipped = events.filter(
      (event) => event.type === 'suppressed' && event.reason === 'pipeline-aborted',
    );
    expect(skipped.map((event) => (event.type === 'suppressed' ? event.text : ''))).toEqual([
      'block 3',
      'block 4',
    ]);
    expect(pipeline.stats.timedOut).toBe(1);
  });

  it('honours an injected timeout', async () => {
    const clock = createManualClock();
    const pipeline = createDeliveryPipeline({
      timers: clock,
      sendTimeoutMs: 50,
      send: () => new Promise<void>(() => {}),
    });
    pipeline.enqueue(block('x'));
    await clock.advance(50);
    await pipeline.idle();
    expect(pipeline.aborted).toBe(true);
  });

  it('reports other send errors and carries on', async () => {
    const events: DeliveryEvent[] = [];
    const sent: string[] = [];
    const pipeline = createDeliveryPipeline({
      onEvent: (event) => events.push(event),
      send: (payload) => {
        if (payload.text === 'bad') throw new Error('socket closed');
        sent.push(payload.text);
      },
    });
    pipeline.enqueue(block('good 1'));
    pipeline.enqueue(block('bad'));
    pipeline.enqueue(block('good 2'));
    await pipeline.idle();
    expect(sent).toEqual(['good 1', 'good 2']);
    const failure = events.find((event) => event.type === 'failed');
    expect(failure?.type === 'failed' && failure.error.code).toBe('DELIVERY_SEND_FAILED');
    expect(failure?.type === 'failed' && failure.error.message).toContain('socket closed');
    expect(pipeline.aborted).toBe(false);
    expect(pipeline.stats.failed).toBe(1);
  });

  it('drops a payload identical to one in flight or sent; a failed one may be retried', async () => {
    let fail = true;
    const sent: string[] = [];
    const pipeline = createDeliveryPipeline({
      send: (payload) => {
        if (payload.text === 'flaky' && fail) {
          fail = false;
          throw new Error('once');
        }
        sent.push(payload.text);
      },
    });
    expect(pipeline.enqueue(block('same'))).toBe(true);
    expect(pipeline.enqueue(block('  same  '))).toBe(false);
    expect(pipeline.enqueue({ text: 'same', kind: 'block', replyToId: 'other' })).toBe(true);
    pipeline.enqueue(block('flaky'));
    await pipeline.idle();
    expect(pipeline.enqueue(final('same'))).toBe(false);
    expect(pipeline.enqueue(final('flaky'))).toBe(true);
    await pipeline.idle();
    expect(sent).toEqual(['same', 'same', 'flaky']);
    expect(pipeline.wasStreamed(final('same'))).toBe(true);
  });

  it('counts a hook cancellation as not delivered', async () => {
    const pipeline = createDeliveryPipeline({ send: () => ({ cancelled: true, reason: 'policy' }) });
    pipeline.enqueue(block('secret'));
    await pipeline.idle();
    expect(pipeline.stats.cancelled).toBe(1);
    expect(pipeline.didStream).toBe(false);
  });

  it('applies human delay before each block except the first, never before finals', async () => {
    const clock = createManualClock();
    const sentAt: Array<[string, number]> = [];
    const pipeline = createDeliveryPipeline({
      timers: clock,
      humanDelay: { minMs: 800, maxMs: 2500 },
      random: () => 0.5,
      send: (payload) => {
        sentAt.push([payload.text, clock.now()]);
      },
    });
    pipeline.enqueue(block('b1'));
    pipeline.enqueue(block('b2'));
    pipeline.enqueue(block('b3'));
    pipeline.enqueue(final('f1'));
    await clock.advance(10_000);
    await pipeline.idle();
    // 800 + floor(0.5 * 1701) = 1650 ms before b2 and before b3; none before b1 or f1.
    expect(sentAt).toEqual([
      ['b1', 0],
      ['b2', 1650],
      ['b3', 3300],
      ['f1', 3300],
    ]);
  });

  it('never runs a send inside enqueue', () => {
    let calls = 0;
    const pipeline = createDeliveryPipeline({ send: () => void calls++ });
    pipeline.enqueue(block('x'));
    expect(calls).toBe(0);
  });

  it('rejects bad options with the option path', () => {
    expect(() => createDeliveryPipeline({ send: () => undefined, sendTimeoutMs: 0 })).toThrow(
      /sendTimeoutMs/,
    );
    expect(() =>
      createDeliveryPipeline({ send: () => undefined, humanDelay: { minMs: 10, maxMs: 5 } }),
    ).toThrow(/humanDelay\.maxMs/);
  });
});
