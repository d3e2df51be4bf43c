import type { ChannelAccessConfig, InboundMessage } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { decideAccess } from './access-policy.ts';

const defaults: ChannelAccessConfig = {
  enabled: true,
  dmPolicy: 'pairing',
  allowFrom: [],
  groupPolicy: 'allowlist',
  groups: {},
  requireMention: true,
};

const dm = (senderId: string): InboundMessage => ({
  channel: 'telegram',
  accountId: 'default',
  messageId: '1',
  chatType: 'direct',
  peer: { kind: 'direct', id: senderId },
  sender: { id: senderId },
  text: 'hi',
  timestamp: 0,
});

const group = (groupId: string, senderId: string, wasMentioned: boolean): InboundMessage => ({
  channel: 'telegram',
  accountId: 'default',
  messageId: '2',
  chatType: 'group',
  peer: { kind: 'group', id: groupId },
  sender: { id: senderId },
  wasMentioned,
  text: 'hi',
  timestamp: 0,
});

const none = new Set<string>();

describe('access policy', () => {
  it('asks unknown DM senders to pair by default, and lets approved ones through', () => {
    expect(decideAccess({ message: dm('42'), access: defaults, approvedSenders: none })).toEqual({
      kind: 'pair',
    });
    expect(decideAccess({ message: dm('42'), access: defaults, approvedSenders: new Set(['42']) })).toEqual({
      kind: 'allow',
      commandsAuthorized: true,
    });
    expect(
      decideAccess({ message: dm('42'), access: { ...defaults, allowFrom: ['42'] }, approvedSenders: none })
        .kind,
    ).toBe('allow');
  });

  it('applies allowlist, open and disabled DM policies', () => {
    const allowlist = { ...defaults, dmPolicy: 'allowlist' as const, allowFrom: ['tg:7'] };
    const normalize = (entry: string) => entry.replace(/^tg:/, '');
    expect(decideAccess({ message: dm('7'), access: allowlist, approvedSenders: none, normalize }).kind).toBe(
      'allow',
    );
    expect(decideAccess({ message: dm('8'), access: allowlist, approvedSenders: none, normalize })).toEqual({
      kind: 'drop',
      reason: 'dm-not-allowlisted',
    });
    expect(
      decideAccess({ message: dm('8'), access: { ...defaults, dmPolicy: 'open' }, approvedSenders: none }),
    ).toEqual({
      kind: 'allow',
      commandsAuthorized: false,
    });
    expect(
      decideAccess({
        message: dm('8'),
        access: { ...defaults, dmPolicy: 'disabled' },
        approvedSenders: none,
      }),
    ).toEqual({
      kind: 'drop',
      reason: 'dm-disabled',
    });
  });

  it('ignores groups that are not allowlisted, and needs a mention by default', () => {
    expect(
      decideAccess({ message: group('-100', '1', true), access: defaults, approvedSenders: none }),
    ).toEqual({
      kind: 'drop',
      reason: 'group-not-allowlisted',
    });
    const allowed = { ...defaults, groups: { '-100': {} } };
    expect(
      decideAccess({ message: group('-100', '1', false), access: allowed, approvedSenders: none }),
    ).toEqual({
      kind: 'drop',
      reason: 'not-mentioned',
    });
    expect(
      decideAccess({ message: group('-100', '1', true), access: allowed, approvedSenders: none }),
    ).toEqual({
      kind: 'allow',
      commandsAuthorized: false,
    });
  });

  it('honours per-group mention and sender settings and the "*" group', () => {
    const access = { ...defaults, groups: { '*': { requireMention: false }, '-200': { allowFrom: ['5'] } } };
    expect(decideAccess({ message: group('-300', '1', false), access, approvedSenders: none }).kind).toBe(
      'allow',
    );
    expect(decideAccess({ message: group('-200', '1', true), access, approvedSenders: none })).toEqual({
      kind: 'drop',
      reason: 'group-sender-not-allowed',
    });
    expect(decideAccess({ message: group('-200', '5', true), access, approvedSenders: none })).toEqual({
      kind: 'allow',
      commandsAuthorized: true,
    });
    expect(
      decideAccess({
        message: group('-1', '1', true),
        access: { ...defaults, groupPolicy: 'open' },
        approvedSenders: none,
      }).kind,
    ).toBe('allow');
    expect(
      decideAccess({
        message: group('-1', '1', true),
        access: { ...defaults, groupPolicy: 'disabled' },
        approvedSenders: none,
      }),
    ).toEqual({ kind: 'drop', reason: 'group-disabled' });
  });

  it('drops messages from bots', () => {
    const fromBot = { ...dm('9'), sender: { id: '9', isBot: true } };
    expect(
      decideAccess({ message: fromBot, access: { ...defaults, dmPolicy: 'open' }, approvedSenders: none }),
    ).toEqual({
      kind: 'drop',
      reason: 'from-bot',
    });
  });

  it("lets a thread inherit its parent channel's group entry", () => {
    const access = { ...defaults, groups: { 'channel-1': { requireMention: false } } };
    const inThread = {
      ...group('thread-9', '1', false),
      thread: { id: 'thread-9', parentPeer: { kind: 'channel' as const, id: 'channel-1' } },
    } as InboundMessage;
    expect(decideAccess({ message: inThread, access, approvedSenders: none })).toEqual({
      kind: 'allow',
      commandsAuthorized: false,
    });
    const orphan = {
      ...group('thread-8', '1', false),
      thread: { id: 'thread-8', parentPeer: { kind: 'channel' as const, id: 'other' } },
    } as InboundMessage;
    expect(decideAccess({ message: orphan, access, approvedSenders: none })).toEqual({
      kind: 'drop',
      reason: 'group-not-allowlisted',
    });
  });
});
