import { describe, expect, it } from 'vitest';
import {
  conversationTypeOf,
  parseSlackMessageId,
  type SlackMessageEvent,
  skipReason,
  slackMessageId,
  toInboundMessage,
} from './inbound.ts';

const bot = { userId: 'UBOT', botId: 'BBOT' };
const base: SlackMessageEvent = {
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text: 'hi',
  ts: '1700000000.000100',
};

describe('which events reach the gateway', () => {
  it.each([
    [{ ...base }, undefined],
    [{ ...base, subtype: 'file_share' }, undefined],
    [{ ...base, subtype: 'thread_broadcast' }, undefined],
    [{ ...base, subtype: 'message_changed' }, 'subtype message_changed'],
    [{ ...base, subtype: 'channel_join' }, 'subtype channel_join'],
    [{ ...base, user: 'UBOT' }, 'own message'],
    [{ ...base, user: undefined, bot_id: 'BBOT', subtype: 'bot_message' }, 'own message'],
    [{ ...base, user: undefined }, 'no author'],
    [{ ...base, hidden: true }, 'hidden message'],
    [{ ...base, ts: undefined }, 'no channel or ts'],
    [{ ...base, type: 'reaction_added' }, 'event type reaction_added'],
    [{ ...base, channel_type: 'app_home' }, 'app home'],
  ] as const)('%j → %s', (event, reason) => {
    expect(skipReason(event as SlackMessageEvent, bot)).toBe(reason);
  });

  it('knows the conversation type from channel_type, else from the id prefix', () => {
    expect(conversationTypeOf({ ...base, channel_type: 'mpim' })).toBe('mpim');
    expect(conversationTypeOf({ type: 'app_mention', channel: 'D1' })).toBe('im');
    expect(conversationTypeOf({ type: 'app_mention', channel: 'C1' })).toBe('channel');
    expect(conversationTypeOf({ type: 'app_mention', channel: 'G1' })).toBeUndefined();
  });
});

describe('toInboundMessage', () => {
  it('makes a group message of an mpim and a channel message of a private channel', () => {
    const mpim = toInboundMessage(
      { ...base, channel: 'G1' },
      { accountId: 'a', teamId: 'T1', botUserId: 'UBOT', conversationType: 'mpim' },
    );
    expect(mpim).toMatchObject({
      chatType: 'group',
      peer: { kind: 'group', id: 'G1' },
      teamId: 'T1',
      wasMentioned: false,
    });
    const secret = toInboundMessage(
      { ...base, channel: 'G2' },
      { accountId: 'a', teamId: 'T1', botUserId: 'UBOT', conversationType: 'group' },
    );
    expect(secret).toMatchObject({ chatType: 'channel', peer: { kind: 'channel', id: 'G2' } });
  });

  it('marks app_mention events and other bots as such', () => {
    const mention = toInboundMessage(
      { ...base, type: 'app_mention', text: 'no token' },
      { accountId: 'a', teamId: 'T1', botUserId: 'UBOT', conversationType: 'channel' },
    );
    expect(mention).toMatchObject({ wasMentioned: true });
    const otherBot = toInboundMessage(
      { ...base, user: undefined, bot_id: 'B2', subtype: 'bot_message' },
      { accountId: 'a', teamId: 'T1', botUserId: 'UBOT', conversationType: 'channel' },
    );
    expect(otherBot.sender).toEqual({ id: 'B2', isBot: true });
  });

  it('appends notes about files that were not downloaded', () => {
    const message = toInboundMessage(
      { ...base, text: '' },
      {
        accountId: 'a',
        teamId: undefined,
        botUserId: 'UBOT',
        conversationType: 'im',
        notes: ['[attachment x was not downloaded: HTTP 404]'],
      },
    );
    expect(message.text).toBe('[attachment x was not downloaded: HTTP 404]');
  });
});

describe('message ids', () => {
  it('are <channel>:<ts> and parse back; a bare ts parses without a channel', () => {
    expect(slackMessageId('C1', '1.000001')).toBe('C1:1.000001');
    expect(parseSlackMessageId('C1:1.000001')).toEqual({ channel: 'C1', ts: '1.000001' });
    expect(parseSlackMessageId('1.000001')).toEqual({ ts: '1.000001' });
  });
});
