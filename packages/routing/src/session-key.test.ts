import { describe, expect, it } from 'vitest';
import {
  buildAgentMainSessionKey,
  buildAgentPeerSessionKey,
  buildAgentSessionKey,
  buildGroupHistoryKey,
  compileIdentityLinks,
  deriveLastRoutePolicy,
  isCasePreservingPeer,
  normalizeSessionPeerId,
  resolveLinkedPeerId,
  resolveThreadSessionKeys,
} from './session-key.ts';

describe('session key builders', () => {
  it('builds the main key from the normalized agent id and main key', () => {
    expect(buildAgentMainSessionKey({ agentId: 'main' })).toBe('agent:main:main');
    expect(buildAgentMainSessionKey({ agentId: 'My Agent', mainKey: ' Desk ' })).toBe('agent:my-agent:desk');
    expect(buildAgentMainSessionKey({ agentId: '', mainKey: '' })).toBe('agent:main:main');
  });

  it('DMs under dmScope main (the default) use the main key', () => {
    const base = { agentId: 'main', channel: 'telegram', peerKind: 'direct', peerId: '111' };
    expect(buildAgentPeerSessionKey(base)).toBe('agent:main:main');
    expect(buildAgentPeerSessionKey({ ...base, dmScope: 'main' })).toBe('agent:main:main');
    expect(buildAgentPeerSessionKey({ ...base, dmScope: 'main', mainKey: 'home' })).toBe('agent:main:home');
  });

  it('DMs under per-peer drop the channel, so one id shares a session across channels', () => {
    const telegram = buildAgentPeerSessionKey({
      agentId: 'main',
      channel: 'telegram',
      peerKind: 'direct',
      peerId: 'Alice',
      dmScope: 'per-peer',
    });
    const discord = buildAgentPeerSessionKey({
      agentId: 'main',
      channel: 'discord',
      peerKind: 'direct',
      peerId: 'alice',
      dmScope: 'per-peer',
    });
    expect(telegram).toBe('agent:main:direct:alice');
    expect(discord).toBe(telegram);
  });

  it('DMs under per-channel-peer keep the channel segment', () => {
    expect(
      buildAgentPeerSessionKey({
        agentId: 'main',
        channel: 'Discord',
        peerKind: 'direct',
        peerId: 'U1',
        dmScope: 'per-channel-peer',
      }),
    ).toBe('agent:main:discord:direct:u1');
  });

  it('DMs under per-account-channel-peer add the canonical account, default when missing', () => {
    const base = { agentId: 'main', channel: 'telegram', peerKind: 'direct', peerId: '111' } as const;
    expect(
      buildAgentPeerSessionKey({ ...base, accountId: ' Ops ', dmScope: 'per-account-channel-peer' }),
    ).toBe('agent:main:telegram:ops:direct:111');
    expect(buildAgentPeerSessionKey({ ...base, dmScope: 'per-account-channel-peer' })).toBe(
      'agent:main:telegram:default:direct:111',
    );
  });

  it('a DM with no peer id uses the main key under every scope', () => {
    for (const dmScope of ['main', 'per-peer', 'per-channel-peer', 'per-account-channel-peer'] as const) {
      expect(
        buildAgentPeerSessionKey({ agentId: 'main', channel: 'x', peerKind: 'direct', peerId: ' ', dmScope }),
      ).toBe('agent:main:main');
    }
  });

  it('group and channel keys ignore the account and the DM scope', () => {
    const group = (accountId: string, dmScope: 'main' | 'per-account-channel-peer'): string =>
      buildAgentPeerSessionKey({
        agentId: 'main',
        channel: 'telegram',
        accountId,
        peerKind: 'group',
        peerId: '-100ABC',
        dmScope,
      });
    expect(group('a', 'main')).toBe('agent:main:telegram:group:-100abc');
    expect(group('b', 'per-account-channel-peer')).toBe('agent:main:telegram:group:-100abc');
    expect(
      buildAgentPeerSessionKey({ agentId: 'ops', channel: 'slack', peerKind: 'channel', peerId: 'C1' }),
    ).toBe('agent:ops:slack:channel:c1');
  });

  it('Signal groups and Matrix rooms keep their case; Matrix DMs and Signal channels do not', () => {
    expect(
      buildAgentPeerSessionKey({ agentId: 'main', channel: 'signal', peerKind: 'group', peerId: 'AbC=' }),
    ).toBe('agent:main:signal:group:AbC=');
    expect(
      buildAgentPeerSessionKey({
        agentId: 'main',
        channel: 'Matrix',
        peerKind: 'channel',
        peerId: '!Room:Example.org',
      }),
    ).toBe('agent:main:matrix:channel:!Room:Example.org');
    expect(
      buildAgentPeerSessionKey({
        agentId: 'main',
        channel: 'matrix',
        peerKind: 'group',
        peerId: '!Room:Example.org',
      }),
    ).toBe('agent:main:matrix:group:!Room:Example.org');
    expect(
      buildAgentPeerSessionKey({
        agentId: 'main',
        channel: 'matrix',
        peerKind: 'direct',
        peerId: '@Alice:Example.org',
        dmScope: 'per-channel-peer',
      }),
    ).toBe('agent:main:matrix:direct:@alice:example.org');
    expect(
      buildAgentPeerSessionKey({ agentId: 'main', channel: 'signal', peerKind: 'channel', peerId: 'AbC' }),
    ).toBe('agent:main:signal:channel:abc');
    expect(isCasePreservingPeer('SIGNAL', 'Group')).toBe(true);
    expect(isCasePreservingPeer('signal', 'direct')).toBe(false);
    expect(normalizeSessionPeerId({ channel: 'telegram', peerKind: 'group', peerId: ' ABC ' })).toBe('abc');
  });

  it('missing group ids and channels become unknown', () => {
    expect(buildAgentPeerSessionKey({ agentId: 'main', channel: '', peerKind: 'group', peerId: '' })).toBe(
      'agent:main:unknown:group:unknown',
    );
  });

  it('the legacy dm kind builds direct keys', () => {
    expect(
      buildAgentPeerSessionKey({
        agentId: 'main',
        channel: 'x',
        peerKind: 'dm',
        peerId: 'P',
        dmScope: 'per-peer',
      }),
    ).toBe('agent:main:direct:p');
  });

  it('buildAgentSessionKey: no peer means main; a peer without an id shares the unknown bucket', () => {
    expect(buildAgentSessionKey({ agentId: 'main', channel: 'telegram', dmScope: 'per-peer' })).toBe(
      'agent:main:main',
    );
    expect(
      buildAgentSessionKey({
        agentId: 'main',
        channel: 'telegram',
        peer: { kind: 'direct', id: '' },
        dmScope: 'per-peer',
      }),
    ).toBe('agent:main:direct:unknown');
    expect(
      buildAgentSessionKey({
        agentId: 'main',
        channel: ' ',
        peer: { kind: 'direct', id: 7 },
        dmScope: 'per-channel-peer',
      }),
    ).toBe('agent:main:unknown:direct:7');
  });

  it('identity links: bare ids match on any channel, prefixed ids on their channel only', () => {
    const identityLinks = { alice: ['telegram:111', '5550001'], bob: ['discord:222'] };
    expect(resolveLinkedPeerId({ identityLinks, channel: 'telegram', peerId: '111' })).toBe('alice');
    expect(resolveLinkedPeerId({ identityLinks, channel: 'discord', peerId: '111' })).toBeNull();
    expect(resolveLinkedPeerId({ identityLinks, channel: 'signal', peerId: '5550001' })).toBe('alice');
    expect(resolveLinkedPeerId({ identityLinks, channel: 'Discord', peerId: ' 222 ' })).toBe('bob');
    expect(resolveLinkedPeerId({ identityLinks, channel: 'discord', peerId: '' })).toBeNull();
    expect(resolveLinkedPeerId({ identityLinks: undefined, channel: 'discord', peerId: '222' })).toBeNull();
  });

  it('identity links: comparisons ignore case; names are trimmed; the first name in object order wins', () => {
    const identityLinks = {
      '  ': ['telegram:111'],
      ' Carol ': ['TELEGRAM:ABC'],
      dave: ['abc'],
      erin: ['telegram:abc'],
    };
    expect(resolveLinkedPeerId({ identityLinks, channel: 'telegram', peerId: 'abc' })).toBe('Carol');
    expect(resolveLinkedPeerId({ identityLinks, channel: 'telegram', peerId: '111' })).toBeNull();
    expect(resolveLinkedPeerId({ identityLinks, channel: 'slack', peerId: 'ABC' })).toBe('dave');
  });

  it('identity links: a bare id listed before a channel-scoped one wins, and the other way round', () => {
    const bareFirst = { first: ['42'], second: ['telegram:42'] };
    const scopedFirst = { first: ['telegram:42'], second: ['42'] };
    expect(resolveLinkedPeerId({ identityLinks: bareFirst, channel: 'telegram', peerId: '42' })).toBe(
      'first',
    );
    expect(resolveLinkedPeerId({ identityLinks: scopedFirst, channel: 'telegram', peerId: '42' })).toBe(
      'first',
    );
  });

  it('identity links: ids with colons match the channel they start with, and raw peer ids containing colons', () => {
    const identityLinks = { alice: ['matrix:@alice:example.org'] };
    expect(resolveLinkedPeerId({ identityLinks, channel: 'matrix', peerId: '@Alice:example.org' })).toBe(
      'alice',
    );
    expect(
      resolveLinkedPeerId({ identityLinks, channel: 'slack', peerId: 'matrix:@alice:example.org' }),
    ).toBe('alice');
    expect(resolveLinkedPeerId({ identityLinks, channel: 'slack', peerId: '@alice:example.org' })).toBeNull();
  });

  it('identity links: non-array values and empty ids are ignored; compiled once per links object', () => {
    const identityLinks = { broken: 'telegram:1', alice: ['', '  ', 'telegram:1'] } as unknown as Record<
      string,
      string[]
    >;
    expect(resolveLinkedPeerId({ identityLinks, channel: 'telegram', peerId: '1' })).toBe('alice');
    expect(compileIdentityLinks(identityLinks)).toBe(compileIdentityLinks(identityLinks));
  });

  it('identity links shape DM keys under each non-main scope, and never under main', () => {
    const identityLinks = { Alice: ['telegram:111', 'discord:222'] };
    const key = (
      channel: string,
      peerId: string,
      dmScope: 'main' | 'per-peer' | 'per-channel-peer' | 'per-account-channel-peer',
    ) =>
      buildAgentPeerSessionKey({
        agentId: 'main',
        channel,
        accountId: 'ops',
        peerKind: 'direct',
        peerId,
        dmScope,
        identityLinks,
      });
    expect(key('telegram', '111', 'per-peer')).toBe('agent:main:direct:alice');
    expect(key('discord', '222', 'per-peer')).toBe('agent:main:direct:alice');
    expect(key('discord', '222', 'per-channel-peer')).toBe('agent:main:discord:direct:alice');
    expect(key('telegram', '111', 'per-account-channel-peer')).toBe('agent:main:telegram:ops:direct:alice');
    expect(key('telegram', '111', 'main')).toBe('agent:main:main');
    expect(
      buildAgentPeerSessionKey({
        agentId: 'main',
        channel: 'telegram',
        peerKind: 'group',
        peerId: '111',
        dmScope: 'per-peer',
        identityLinks,
      }),
    ).toBe('agent:main:telegram:group:111');
  });

  it('group history keys carry the account and kind, and keep Signal case', () => {
    expect(
      buildGroupHistoryKey({ channel: 'Telegram', accountId: 'Ops', peerKind: 'group', peerId: '-100ABC' }),
    ).toBe('telegram:ops:group:-100abc');
    expect(buildGroupHistoryKey({ channel: 'signal', peerKind: 'group', peerId: 'AbC=' })).toBe(
      'signal:default:group:AbC=',
    );
    expect(buildGroupHistoryKey({ channel: '', peerKind: 'channel', peerId: '' })).toBe(
      'unknown:default:channel:unknown',
    );
  });

  it('thread keys: suffix with a lowercased id, or the channel normalizer (Matrix keeps case)', () => {
    const base = 'agent:main:matrix:channel:!Room:example.org';
    expect(resolveThreadSessionKeys({ baseSessionKey: base, threadId: '$Event' })).toEqual({
      sessionKey: `${base}:thread:$event`,
      parentSessionKey: undefined,
    });
    expect(
      resolveThreadSessionKeys({
        baseSessionKey: base,
        threadId: ' $Event ',
        parentSessionKey: base,
        normalizeThreadId: (threadId) => threadId,
      }),
    ).toEqual({ sessionKey: `${base}:thread:$Event`, parentSessionKey: base });
  });

  it('thread keys: an empty thread id keeps the base key and drops the parent', () => {
    expect(
      resolveThreadSessionKeys({ baseSessionKey: 'agent:main:main', threadId: null, parentSessionKey: 'x' }),
    ).toEqual({ sessionKey: 'agent:main:main', parentSessionKey: undefined });
  });

  it('the last-route policy is main exactly when the key is the main key', () => {
    expect(deriveLastRoutePolicy({ sessionKey: 'agent:main:main', mainSessionKey: 'agent:main:main' })).toBe(
      'main',
    );
    expect(
      deriveLastRoutePolicy({ sessionKey: 'agent:main:direct:a', mainSessionKey: 'agent:main:main' }),
    ).toBe('session');
  });
});
