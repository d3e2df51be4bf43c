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
    expect(sent[1]).toEqual({
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
});
