import { describe, expect, it } from 'vitest';
import {
  classifySessionKeyShape,
  deriveSessionChatType,
  getSubagentDepth,
  isAcpSessionKey,
  isCronRunSessionKey,
  isCronSessionKey,
  isSubagentSessionKey,
  isUnscopedSessionKeySentinel,
  normalizeSessionKey,
  parseAgentSessionKey,
  parseThreadSessionSuffix,
  resolveAgentIdFromSessionKey,
  toAgentRequestSessionKey,
  toAgentStoreSessionKey,
} from './session-key-parse.ts';

describe('session key parsing', () => {
  it('canonical keys are trimmed and lowercased', () => {
    expect(normalizeSessionKey('  AGENT:Main:Telegram:Group:-100ABC ')).toBe(
      'agent:main:telegram:group:-100abc',
    );
    expect(normalizeSessionKey('')).toBe('');
    expect(normalizeSessionKey(undefined)).toBe('');
  });

  it('Signal group id segments keep their case, scoped or not; Signal DMs do not', () => {
    expect(normalizeSessionKey('Agent:Main:Signal:Group:AbC=')).toBe('agent:main:signal:group:AbC=');
    expect(normalizeSessionKey('SIGNAL:GROUP:AbC=:Thread:X')).toBe('signal:group:AbC=:thread:x');
    expect(normalizeSessionKey('agent:main:signal:direct:+1AB')).toBe('agent:main:signal:direct:+1ab');
  });

  it('Matrix room tails keep their case, apart from the thread marker', () => {
    expect(normalizeSessionKey('AGENT:Main:Matrix:Channel:!Room:Example.org')).toBe(
      'agent:main:matrix:channel:!Room:Example.org',
    );
    expect(normalizeSessionKey('agent:main:matrix:group:!Room:Example.org:THREAD:$Event')).toBe(
      'agent:main:matrix:group:!Room:Example.org:thread:$Event',
    );
    expect(normalizeSessionKey('Matrix:Channel:!Room:X')).toBe('matrix:channel:!Room:X');
    expect(normalizeSessionKey('agent:main:matrix:direct:@Alice:X')).toBe(
      'agent:main:matrix:direct:@alice:x',
    );
  });

  it('parses agent keys case-insensitively and rejects malformed ones', () => {
    expect(parseAgentSessionKey('AGENT:Main:Hook:Webhook:42')).toEqual({
      agentId: 'main',
      rest: 'hook:webhook:42',
    });
    expect(parseAgentSessionKey('agent:ops:signal:group:AbC=')).toEqual({
      agentId: 'ops',
      rest: 'signal:group:AbC=',
    });
    expect(parseAgentSessionKey('agent:main')).toBeNull();
    expect(parseAgentSessionKey('main')).toBeNull();
    expect(parseAgentSessionKey('agent::x')).toBeNull();
    expect(parseAgentSessionKey('agent:main:')).toBeNull();
    expect(parseAgentSessionKey('cron:job')).toBeNull();
    expect(parseAgentSessionKey(null)).toBeNull();
  });

  it('classifies key shapes', () => {
    expect(classifySessionKeyShape('')).toBe('missing');
    expect(classifySessionKeyShape('  ')).toBe('missing');
    expect(classifySessionKeyShape(undefined)).toBe('missing');
    expect(classifySessionKeyShape('agent:main:main')).toBe('agent');
    expect(classifySessionKeyShape('Agent:main')).toBe('malformed_agent');
    expect(classifySessionKeyShape('agent::x')).toBe('malformed_agent');
    expect(classifySessionKeyShape('main')).toBe('legacy_or_alias');
    expect(classifySessionKeyShape('hook:123')).toBe('legacy_or_alias');
  });

  it('store keys: main maps to the main key, bare keys get the prefix once, agent keys are canonicalized', () => {
    expect(toAgentStoreSessionKey({ agentId: 'Ops', requestKey: 'main' })).toBe('agent:ops:main');
    expect(toAgentStoreSessionKey({ agentId: 'ops', requestKey: ' MAIN ', mainKey: 'desk' })).toBe(
      'agent:ops:desk',
    );
    expect(toAgentStoreSessionKey({ agentId: 'ops', requestKey: '' })).toBe('agent:ops:main');
    expect(toAgentStoreSessionKey({ agentId: 'ops', requestKey: 'hook:ABC' })).toBe('agent:ops:hook:abc');
    expect(toAgentStoreSessionKey({ agentId: 'ops', requestKey: 'Agent:Work:Cron:J1' })).toBe(
      'agent:work:cron:j1',
    );
    expect(toAgentStoreSessionKey({ agentId: 'ops', requestKey: 'agent:main' })).toBe('agent:main');
    expect(toAgentStoreSessionKey({ agentId: 'ops', requestKey: 'signal:group:AbC=' })).toBe(
      'agent:ops:signal:group:AbC=',
    );
  });

  it('request keys strip the agent prefix', () => {
    expect(toAgentRequestSessionKey('agent:ops:hook:1')).toBe('hook:1');
    expect(toAgentRequestSessionKey('hook:1')).toBe('hook:1');
    expect(toAgentRequestSessionKey('  ')).toBeUndefined();
  });

  it('finds the agent of a key, main when it names none', () => {
    expect(resolveAgentIdFromSessionKey('agent:Ops:main')).toBe('ops');
    expect(resolveAgentIdFromSessionKey('hook:1')).toBe('main');
  });

  it('recognizes cron, cron-run, sub-agent, ACP and sentinel keys', () => {
    expect(isCronSessionKey('agent:main:cron:nightly')).toBe(true);
    expect(isCronSessionKey('cron:nightly')).toBe(false);
    expect(isCronRunSessionKey('agent:main:cron:nightly:run:r1')).toBe(true);
    expect(isCronRunSessionKey('agent:main:cron:nightly')).toBe(false);
    expect(isSubagentSessionKey('subagent:x')).toBe(true);
    expect(isSubagentSessionKey('agent:main:subagent:a:subagent:b')).toBe(true);
    expect(isSubagentSessionKey('agent:main:main')).toBe(false);
    expect(getSubagentDepth('agent:main:subagent:a:subagent:b')).toBe(2);
    expect(getSubagentDepth('agent:main:main')).toBe(0);
    expect(isAcpSessionKey('agent:codex:acp:6f1c')).toBe(true);
    expect(isAcpSessionKey('acp:6f1c')).toBe(true);
    expect(isAcpSessionKey('agent:codex:main')).toBe(false);
    expect(isUnscopedSessionKeySentinel(' Global ')).toBe(true);
    expect(isUnscopedSessionKeySentinel('unknown')).toBe(true);
    expect(isUnscopedSessionKeySentinel('agent:main:main')).toBe(false);
  });

  it('splits a key at its last thread marker', () => {
    expect(parseThreadSessionSuffix('agent:main:slack:channel:c1:thread:171.1')).toEqual({
      baseSessionKey: 'agent:main:slack:channel:c1',
      threadId: '171.1',
    });
    expect(parseThreadSessionSuffix('agent:main:main')).toEqual({
      baseSessionKey: 'agent:main:main',
      threadId: undefined,
    });
    expect(parseThreadSessionSuffix('')).toEqual({ baseSessionKey: undefined, threadId: undefined });
  });

  it('derives the chat type, accepting legacy dm segments as direct', () => {
    expect(deriveSessionChatType('agent:main:telegram:group:-100')).toBe('group');
    expect(deriveSessionChatType('agent:main:slack:channel:c1:thread:1')).toBe('channel');
    expect(deriveSessionChatType('agent:main:discord:direct:u1')).toBe('direct');
    expect(deriveSessionChatType('whatsapp:dm:+1555')).toBe('direct');
    expect(deriveSessionChatType('agent:main:main')).toBe('unknown');
    expect(deriveSessionChatType('')).toBe('unknown');
  });
});
