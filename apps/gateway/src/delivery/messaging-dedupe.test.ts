import { describe, expect, it } from 'vitest';
import {
  createMessagingToolTracker,
  isSameMessagingTarget,
  MESSAGING_TRACKER_CAP,
  normalizeForDedupe,
} from './messaging-dedupe.ts';

const origin = { channel: 'telegram', accountId: 'main', to: '42' };

describe('normalizeForDedupe', () => {
  it('lowercases, strips emoji, collapses whitespace and trims', () => {
    expect(normalizeForDedupe('  Meeting   MOVED 🎉👍🏽\n\nto 3pm ✅ ')).toBe('meeting moved to 3pm');
  });
});

describe('createMessagingToolTracker', () => {
  it('suppresses nothing while a send is only pending, and nothing after it failed', () => {
    const tracker = createMessagingToolTracker();
    tracker.recordPending('call-1', { text: 'The meeting moved to 3pm tomorrow.' });
    expect(tracker.matchesCommittedText('The meeting moved to 3pm tomorrow.')).toBe(false);
    expect(tracker.resolve('call-1', false)).toBe(false);
    expect(tracker.matchesCommittedText('The meeting moved to 3pm tomorrow.')).toBe(false);
    expect(tracker.deliveredSomething).toBe(false);
  });

  it('after a successful send, matches texts that contain it or are contained in it (both ≥ 10 chars)', () => {
    const tracker = createMessagingToolTracker();
    tracker.recordPending('call-1', { text: 'The meeting moved to 3pm tomorrow.' });
    expect(tracker.resolve('call-1', true)).toBe(true);
    expect(tracker.matchesCommittedText('the MEETING moved to 3pm tomorrow. 📅')).toBe(true);
    expect(tracker.matchesCommittedText('Sent: "The meeting moved to 3pm tomorrow." on Telegram!')).toBe(
      true,
    );
    expect(tracker.matchesCommittedText('moved to 3pm')).toBe(true);
    expect(tracker.matchesCommittedText('moved')).toBe(false); // under 10 characters
    expect(tracker.matchesCommittedText('Something unrelated entirely.')).toBe(false);
    expect(tracker.deliveredSomething).toBe(true);
  });

  it('suppresses all finals after a send to the same origin; cross-target sends do not', () => {
    const same = createMessagingToolTracker();
    same.recordPending('a', {
      text: 'Hi there from the tool',
      target: { channel: 'Telegram', to: 'telegram:42' },
    });
    same.resolve('a', true);
    expect(same.finalSuppression('Completely different final text.', origin)).toBe(
      'messaging-tool-same-origin',
    );

    const elsewhere = createMessagingToolTracker();
    elsewhere.recordPending('b', { text: 'Posted the summary.', target: { channel: 'slack', to: 'C1' } });
    elsewhere.resolve('b', true);
    expect(elsewhere.finalSuppression('Posted the summary.', origin)).toBeUndefined();
  });

  it('without target metadata, only text duplicates of finals are filtered', () => {
    const tracker = createMessagingToolTracker();
    tracker.recordPending('a', { text: 'Your order #1234 has shipped.' });
    tracker.resolve('a', true);
    expect(tracker.finalSuppression('Your order #1234 has shipped.', origin)).toBe('messaging-tool-text');
    expect(tracker.finalSuppression('Anything else I can help with?', origin)).toBeUndefined();
  });

  it('compares targets by channel, compatible account, peer and thread', () => {
    expect(
      isSameMessagingTarget({ channel: 'discord', to: '1' }, { channel: 'discord', accountId: 'x', to: '1' }),
    ).toBe(true);
    expect(
      isSameMessagingTarget(
        { channel: 'discord', accountId: 'y', to: '1' },
        { channel: 'discord', accountId: 'x', to: '1' },
      ),
    ).toBe(false);
    expect(
      isSameMessagingTarget({ channel: 'discord', to: '1', threadId: 't' }, { channel: 'discord', to: '1' }),
    ).toBe(false);
    expect(isSameMessagingTarget({ channel: 'discord', to: '1' }, { channel: 'slack', to: '1' })).toBe(false);
  });

  it(`caps committed sends at ${MESSAGING_TRACKER_CAP}, dropping the oldest; reset keeps deliveredSomething`, () => {
    const tracker = createMessagingToolTracker();
    for (let index = 0; index <= MESSAGING_TRACKER_CAP; index++) {
      tracker.recordPending(`c${index}`, { text: `unique message number ${index} here` });
      tracker.resolve(`c${index}`, true);
    }
    expect(tracker.committedCount).toBe(MESSAGING_TRACKER_CAP);
    expect(tracker.matchesCommittedText('unique message number 0 here')).toBe(false);
    expect(tracker.matchesCommittedText(`unique message number ${MESSAGING_TRACKER_CAP} here`)).toBe(true);
    tracker.reset();
    expect(tracker.committedCount).toBe(0);
    expect(tracker.deliveredSomething).toBe(true);
  });
});
