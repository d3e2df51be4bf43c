import { describe, expect, it } from 'vitest';
import { createFollowedSessions } from './followed-sessions.ts';

describe('followed sessions', () => {
  it('follows sessions and runs, and forgets the oldest past the limit', () => {
    const followed = createFollowedSessions(2);
    followed.follow('agent:main:a', 'run-1');
    expect(followed.follows({ sessionKey: 'agent:main:a' })).toBe(true);
    expect(followed.follows({ sessionKey: 'agent:main:elsewhere', runId: 'run-1' })).toBe(true);
    expect(followed.follows({ sessionKey: 'agent:main:b', runId: 'run-2' })).toBe(false);
    followed.follow('agent:main:b', undefined);
    followed.follow('agent:main:a', undefined); // used again: now the newest
    followed.follow('agent:main:c', undefined); // over the limit: b, the oldest, goes
    expect(followed.follows({ sessionKey: 'agent:main:a' })).toBe(true);
    expect(followed.follows({ sessionKey: 'agent:main:b' })).toBe(false);
    expect(followed.follows({ sessionKey: 'agent:main:c' })).toBe(true);
  });
});
