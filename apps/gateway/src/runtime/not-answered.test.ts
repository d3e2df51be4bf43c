import { describe, expect, it } from 'vitest';
import { createNotAnsweredLog } from './not-answered.ts';

describe('not-answered log', () => {
  it('counts by reason and detail, keeps the newest entries first, bounded', () => {
    let clock = 1000;
    const log = createNotAnsweredLog({ now: () => clock, capacity: 3 });
    for (let index = 0; index < 5; index += 1) {
      clock += 1;
      log.record({
        reason: 'admission',
        detail: index % 2 === 0 ? 'mention-required' : 'group-not-allowed',
        channel: 'discord',
        accountId: 'default',
        chatId: `c${index}`,
      });
    }
    expect(log.counts()).toEqual({ 'admission:mention-required': 3, 'admission:group-not-allowed': 2 });
    expect(log.recent().map((entry) => [entry.chatId, entry.at])).toEqual([
      ['c4', 1005],
      ['c3', 1004],
      ['c2', 1003],
    ]);
    expect(log.recent(1)).toHaveLength(1);
  });

  it('says when a chat shows up for a reason the first time, so the log line is written once', () => {
    const log = createNotAnsweredLog({ now: () => 0 });
    const entry = {
      reason: 'queue-full',
      detail: 'cap-new',
      channel: 'telegram',
      accountId: 'a',
      chatId: '1',
    } as const;
    expect(log.record(entry)).toBe(true);
    expect(log.record(entry)).toBe(false);
    expect(log.record({ ...entry, chatId: '2' })).toBe(true);
    expect(log.record({ ...entry, detail: 'cap-old' })).toBe(true);
  });
});
