import { describe, expect, it } from 'vitest';
import { OutputLog } from './output-log.ts';

describe('OutputLog', () => {
  it('keeps the newest bytes within its capacity and counts every byte', () => {
    const log = new OutputLog(10);
    log.append(Buffer.from('0123456789'));
    log.append(Buffer.from('abcde'));
    expect(log.totalBytes).toBe(15);
    expect(log.droppedBytes).toBe(5);
    expect(log.readSince(0)).toEqual({ text: '56789abcde', droppedBytes: 5, nextOffset: 15 });
    expect(log.text()).toBe(
      '[output truncated: the first 5 of 15 bytes were dropped; showing the last part]\n56789abcde',
    );
    log.append(Buffer.from('x'.repeat(25)));
    expect(log.readSince(0).text).toBe('x'.repeat(10));
  });

  it('reads what is new since an offset, with a limit', () => {
    const log = new OutputLog(100);
    log.append(Buffer.from('hello '));
    const first = log.readSince(0);
    log.append(Buffer.from('world'));
    expect(log.readSince(first.nextOffset)).toEqual({ text: 'world', droppedBytes: 0, nextOffset: 11 });
    expect(log.readSince(0, 3)).toEqual({ text: 'hel', droppedBytes: 0, nextOffset: 3 });
    expect(log.readSince(11).text).toBe('');
  });
});
