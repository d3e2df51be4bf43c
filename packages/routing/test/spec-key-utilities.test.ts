// Every key utility, checked against both builds, with
// exactly the inputs and results of the table.
import {
  buildAgentMainSessionKey,
  buildGroupHistoryKey,
  normalizeAccountId,
  normalizeAgentId,
  parseAgentSessionKey,
  resolveThreadSessionKeys,
} from '@switchboard/routing';
import { describe, expect, it } from 'vitest';

describe('key utilities', () => {
  it('resolveThreadSessionKeys({baseSessionKey:"agent:main:slack:channel:c1", threadId:"1710000000.ABC"})', () => {
    expect(
      resolveThreadSessionKeys({ baseSessionKey: 'agent:main:slack:channel:c1', threadId: '1710000000.ABC' })
        .sessionKey,
    ).toBe('agent:main:slack:channel:c1:thread:1710000000.abc');
  });

  it('same, threadId:"  " → base key unchanged', () => {
    expect(
      resolveThreadSessionKeys({ baseSessionKey: 'agent:main:slack:channel:c1', threadId: '  ' }).sessionKey,
    ).toBe('agent:main:slack:channel:c1');
  });

  it('same, useSuffix:false → base key unchanged (parentSessionKey passed through)', () => {
    expect(
      resolveThreadSessionKeys({
        baseSessionKey: 'agent:main:slack:channel:c1',
        threadId: '1710000000.ABC',
        useSuffix: false,
        parentSessionKey: 'agent:main:slack:channel:c0',
      }),
    ).toEqual({ sessionKey: 'agent:main:slack:channel:c1', parentSessionKey: 'agent:main:slack:channel:c0' });
  });

  it('buildGroupHistoryKey({channel:"Telegram", peerKind:"group", peerId:"-100ABC"})', () => {
    expect(buildGroupHistoryKey({ channel: 'Telegram', peerKind: 'group', peerId: '-100ABC' })).toBe(
      'telegram:default:group:-100abc',
    );
  });

  it('buildGroupHistoryKey({channel:"Signal", peerKind:"group", peerId:"VWAT...="}) keeps case', () => {
    expect(buildGroupHistoryKey({ channel: 'Signal', peerKind: 'group', peerId: 'VWAT...=' })).toBe(
      'signal:default:group:VWAT...=',
    );
  });

  it('parseAgentSessionKey("AGENT:Main:Hook:Webhook:42")', () => {
    expect(parseAgentSessionKey('AGENT:Main:Hook:Webhook:42')).toEqual({
      agentId: 'main',
      rest: 'hook:webhook:42',
    });
  });

  it('parseAgentSessionKey("agent:main"), parseAgentSessionKey("main") → null, null', () => {
    expect(parseAgentSessionKey('agent:main')).toBeNull();
    expect(parseAgentSessionKey('main')).toBeNull();
  });

  it('buildAgentMainSessionKey({agentId:"Ops", mainKey:"Work"})', () => {
    expect(buildAgentMainSessionKey({ agentId: 'Ops', mainKey: 'Work' })).toBe('agent:ops:work');
  });

  it('normalizeAgentId("  My Agent!! ") / ("") / ("../../etc")', () => {
    expect(normalizeAgentId('  My Agent!! ')).toBe('my-agent');
    expect(normalizeAgentId('')).toBe('main');
    expect(normalizeAgentId('../../etc')).toBe('etc');
  });

  it('normalizeAccountId(" Prod/US East ") / ("__proto__") / ("!!!")', () => {
    expect(normalizeAccountId(' Prod/US East ')).toBe('prod-us-east');
    expect(normalizeAccountId('__proto__')).toBe('default');
    expect(normalizeAccountId('!!!')).toBe('default');
  });
});
