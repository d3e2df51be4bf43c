import { describe, expect, it } from 'vitest';
import { createRunEvents } from './run-events.ts';

describe('run events', () => {
  it('a wait for a rate-limited model is an agent lifecycle event, phase waiting, with why and how long', () => {
    const sent: Array<{ event: string; payload: unknown }> = [];
    const events = createRunEvents({
      broadcast: (event, payload) => sent.push({ event, payload }),
      runId: 'run-1',
      sessionKey: 'agent:main:main',
      agentId: 'main',
      now: () => 1_000,
    });
    events.start();
    events.waiting({
      waitMs: 1500,
      reason: 'rate_limit',
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      profileId: 'anthropic:main',
      attempt: 2,
    });
    expect(sent.filter((item) => item.event === 'agent')[1]).toEqual({
      event: 'agent',
      payload: {
        runId: 'run-1',
        sessionKey: 'agent:main:main',
        agentId: 'main',
        stream: 'lifecycle',
        seq: 2,
        ts: 1_000,
        data: {
          phase: 'waiting',
          waitMs: 1500,
          reason: 'rate_limit',
          provider: 'anthropic',
          model: 'claude-sonnet-4-6',
          profileId: 'anthropic:main',
          attempt: 2,
          until: 2_500,
        },
      },
    });
  });

  it('every run event names its session and run; unfollowing connections get a start and an end summary', () => {
    const sent: Array<{ event: string; payload: unknown; filter: unknown }> = [];
    const events = createRunEvents({
      broadcast: (event, payload, filter) => sent.push({ event, payload, filter }),
      runId: 'run-2',
      sessionKey: 'agent:main:other',
      agentId: 'main',
      now: () => 5,
    });
    events.start();
    events.text('hello');
    events.end({ status: 'ok', message: undefined, text: 'hello' });
    const session = { sessionKey: 'agent:main:other', runId: 'run-2' };
    for (const item of sent.filter((each) => each.event !== 'session.run'))
      expect(item.filter).toMatchObject({ session });
    expect(sent.filter((each) => each.event === 'session.run')).toEqual([
      {
        event: 'session.run',
        payload: {
          runId: 'run-2',
          sessionKey: 'agent:main:other',
          agentId: 'main',
          state: 'started',
          status: undefined,
          ts: 5,
        },
        filter: { session, toUnfollowers: true },
      },
      {
        event: 'session.run',
        payload: {
          runId: 'run-2',
          sessionKey: 'agent:main:other',
          agentId: 'main',
          state: 'ended',
          status: 'ok',
          ts: 5,
        },
        filter: { session, toUnfollowers: true },
      },
    ]);
  });
});
