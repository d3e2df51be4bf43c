import { ModelError, type ModelErrorClass } from '@switchboard/core-loop';
import { describe, expect, it, vi } from 'vitest';
import { AuthProfilesError } from './errors.ts';
import { type AuthProfileManagerOptions, createAuthProfileManager } from './manager.ts';
import type {
  AttemptCandidate,
  AttemptOutcome,
  AuthProfilesEvent,
  FailoverRequest,
  FailoverWait,
} from './types.ts';

const sonnet = 'anthropic/claude-sonnet-4-6';
const haiku = 'anthropic/claude-haiku-4-5';
const start = 1_700_000_000_000;

const threeKeys = {
  profiles: {
    'anthropic:a': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-a' },
    'anthropic:b': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-b' },
    'anthropic:c': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-c' },
  },
  order: { anthropic: ['anthropic:a', 'anthropic:b', 'anthropic:c'] },
} as const;

type Handler = (candidate: AttemptCandidate) => ModelError | ModelErrorClass | 'ok' | unknown;

const statusOf: Partial<Record<ModelErrorClass, number>> = {
  auth: 401,
  auth_permanent: 403,
  billing: 402,
  rate_limit: 429,
  overloaded: 529,
  timeout: 500,
  context_overflow: 400,
  format: 400,
  model_not_found: 404,
};

async function setup(options: Partial<AuthProfileManagerOptions> = {}) {
  const clock = { now: start };
  const events: AuthProfilesEvent[] = [];
  const manager = await createAuthProfileManager({
    config: threeKeys,
    now: () => clock.now,
    onEvent: (event) => events.push(event),
    ...options,
  });
  const calls: string[] = [];
  const run = (handler: Handler, request: Partial<FailoverRequest<string>> = {}) =>
    manager.runWithFailover<string>({
      model: sonnet,
      ...request,
      attempt: async (candidate): Promise<AttemptOutcome<string>> => {
        const key =
          candidate.credential !== undefined && 'apiKey' in candidate.credential
            ? candidate.credential.apiKey
            : '-';
        calls.push(
          `${candidate.model}:${key}${candidate.thinkingLevel === undefined ? '' : `:${candidate.thinkingLevel}`}`,
        );
        const result = handler(candidate);
        if (result === 'ok') return { ok: true, value: `answer from ${key}` };
        if (typeof result === 'string' && result in statusOf) {
          const errorClass = result as ModelErrorClass;
          const status = statusOf[errorClass];
          return {
            ok: false,
            error: new ModelError(
              errorClass,
              `${status} ${errorClass}`,
              status === undefined ? {} : { status },
            ),
          };
        }
        return { ok: false, error: result };
      },
    });
  return { manager, clock, events, calls, run };
}

const keyOf = (candidate: AttemptCandidate) =>
  candidate.credential !== undefined && 'apiKey' in candidate.credential
    ? candidate.credential.apiKey
    : undefined;

async function rejection(promise: Promise<unknown>): Promise<AuthProfilesError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AuthProfilesError) return error;
    throw error;
  }
  throw new Error('expected the run to fail');
}

describe('rotation within a run', () => {
  it('429 on key A: key B answers, A cools down 10 s for that model only, B becomes the auto pin', async () => {
    const { manager, run, calls, clock } = await setup();
    const result = await run((candidate) => (keyOf(candidate) === 'sk-a' ? 'rate_limit' : 'ok'));
    expect(result).toMatchObject({ value: 'answer from sk-b', profileId: 'anthropic:b', fellBack: false });
    expect(result.attempts.map((attempt) => attempt.action ?? 'ok')).toEqual(['rotate', 'ok']);
    expect(result.attempts[0]?.recorded).toEqual({
      lane: 'cooldown',
      reason: 'rate_limit',
      until: start + 10_000,
      step: 1,
      opened: true,
    });
    expect(result.sessionPin).toEqual({ profileId: 'anthropic:b', source: 'auto' });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-a', 'claude-sonnet-4-6:sk-b']);
    expect(manager.orderFor('anthropic', 'claude-sonnet-4-6').map((entry) => entry.profileId)).toEqual([
      'anthropic:b',
      'anthropic:c',
      'anthropic:a',
    ]);
    expect(manager.orderFor('anthropic', 'claude-haiku-4-5')[0]?.profileId).toBe('anthropic:a');
    clock.now += 10_000;
    expect(manager.orderFor('anthropic', 'claude-sonnet-4-6')[0]?.profileId).toBe('anthropic:a');
  });

  it('rotates at most once on a rate limit, then falls back to the next model', async () => {
    const { run, calls } = await setup();
    const result = await run((candidate) => (candidate.model === 'claude-sonnet-4-6' ? 'rate_limit' : 'ok'), {
      fallbacks: [haiku],
    });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-a', 'claude-sonnet-4-6:sk-b', 'claude-haiku-4-5:sk-a']);
    expect(result).toMatchObject({ model: 'claude-haiku-4-5', fellBack: true, profileId: 'anthropic:a' });
    expect(result.attempts.map((attempt) => attempt.action ?? 'ok')).toEqual(['rotate', 'next_model', 'ok']);
  });

  it('without a fallback, rotates through every key, then one error says when to retry', async () => {
    const { run, calls } = await setup();
    const error = await rejection(run(() => 'rate_limit'));
    expect(calls).toHaveLength(3);
    expect(error.code).toBe('AUTH_PROFILES_EXHAUSTED');
    expect(error.retryAt).toBe(start + 10_000);
    expect(error.retryAfterMs).toBe(10_000);
    expect(error.message).toBe(
      [
        'All models failed (1 tried):',
        '- anthropic/claude-sonnet-4-6: rate limited on anthropic:a, anthropic:b, anthropic:c',
        'Soonest usable again: anthropic/claude-sonnet-4-6 in 10 s.',
      ].join('\n'),
    );
    expect(error.modelError?.errorClass).toBe('rate_limit');
    expect(error.attempts.map((attempt) => attempt.action)).toEqual(['rotate', 'rotate', 'stop']);
  });

  it('529: one rotation, then the fallback model, after the configured backoff', async () => {
    const sleeps: number[] = [];
    const { run, calls } = await setup({
      config: { ...threeKeys, cooldowns: { overloadedBackoffMs: 250 } },
      sleep: async (milliseconds) => {
        sleeps.push(milliseconds);
      },
    });
    const result = await run((candidate) => (candidate.model === 'claude-sonnet-4-6' ? 'overloaded' : 'ok'), {
      fallbacks: [haiku],
    });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-a', 'claude-sonnet-4-6:sk-b', 'claude-haiku-4-5:sk-a']);
    expect(sleeps).toEqual([250]);
    expect(result.model).toBe('claude-haiku-4-5');
  });

  it('401 disables the key for every model for 5 min and rotates without a cap', async () => {
    const { manager, run, calls, clock } = await setup();
    const result = await run((candidate) => (keyOf(candidate) === 'sk-c' ? 'ok' : 'auth'), {
      fallbacks: [haiku],
    });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-a', 'claude-sonnet-4-6:sk-b', 'claude-sonnet-4-6:sk-c']);
    expect(result.profileId).toBe('anthropic:c');
    const a = manager.status().profiles.find((profile) => profile.id === 'anthropic:a');
    expect(a).toMatchObject({
      state: 'disabled',
      disabled: { reason: 'auth', until: start + 5 * 60_000, remainingMs: 5 * 60_000, step: 1 },
      failureCounts: { auth: 1 },
    });
    expect(manager.orderFor('anthropic', 'claude-haiku-4-5').map((entry) => entry.usable)).toEqual([
      true,
      false,
      false,
    ]);
    clock.now += 5 * 60_000;
    expect(manager.status().profiles.find((profile) => profile.id === 'anthropic:a')?.state).toBe('ready');
  });

  it('402 disables the key for 5 h (billing)', async () => {
    const { manager, run } = await setup();
    await run((candidate) => (keyOf(candidate) === 'sk-a' ? 'billing' : 'ok'));
    const a = manager.status().profiles.find((profile) => profile.id === 'anthropic:a');
    expect(a?.disabled).toMatchObject({ reason: 'billing', remainingMs: 5 * 3_600_000 });
  });

  it('a timeout rotates once and then falls back, and is never held against a key', async () => {
    const { manager, run, calls } = await setup();
    const result = await run((candidate) => (candidate.model === 'claude-sonnet-4-6' ? 'timeout' : 'ok'), {
      fallbacks: [haiku],
    });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-a', 'claude-sonnet-4-6:sk-b', 'claude-haiku-4-5:sk-a']);
    expect(result.attempts[0]?.recorded).toBeUndefined();
    expect(manager.status().profiles.map((profile) => profile.state)).toEqual(['ready', 'ready', 'ready']);
    expect(manager.status().profiles[1]?.failureCounts).toEqual({});
  });

  it('a model that is not found goes to the next model without trying the other keys', async () => {
    const { manager, run, calls } = await setup();
    await run((candidate) => (candidate.model === 'claude-sonnet-4-6' ? 'model_not_found' : 'ok'), {
      fallbacks: [haiku],
    });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-a', 'claude-haiku-4-5:sk-a']);
    expect(manager.status().profiles[0]?.models).toEqual([
      expect.objectContaining({ model: 'claude-sonnet-4-6', reason: 'model_not_found' }),
    ]);
  });

  it('an unknown failure without an HTTP status moves on to the next model and is not recorded', async () => {
    const { manager, run, calls } = await setup();
    const refusal = new ModelError('unknown', 'The model declined to answer (stop reason: refusal).');
    await run((candidate) => (candidate.model === 'claude-sonnet-4-6' ? refusal : 'ok'), {
      fallbacks: [haiku],
    });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-a', 'claude-haiku-4-5:sk-a']);
    expect(manager.status().profiles[0]?.state).toBe('ready');
  });

  it('normalizes what the attempt throws (an SDK-like HTTP error)', async () => {
    const { run, calls } = await setup();
    const result = await manager429(run);
    expect(result.profileId).toBe('anthropic:b');
    expect(calls).toHaveLength(2);
  });

  it('stops at the loop guard', async () => {
    const { run } = await setup();
    const error = await rejection(run(() => 'timeout', { maxAttempts: 2 }));
    expect(error.code).toBe('AUTH_PROFILES_ATTEMPT_LIMIT');
    expect(error.attempts).toHaveLength(2);
    expect(error.message).toMatch(/^Stopped after 2 attempts without an answer:/);
  });

  it('uses the provider key (no profile) for a provider without profiles', async () => {
    const { run } = await setup();
    const seen: AttemptCandidate[] = [];
    const result = await run(
      (candidate) => {
        seen.push(candidate);
        return candidate.provider === 'anthropic' ? 'auth' : 'ok';
      },
      { model: 'openai/gpt-5', fallbacksOverride: [] },
    );
    expect(seen[0]).toMatchObject({ provider: 'openai', profileId: undefined, credential: undefined });
    expect(result.sessionPin).toBeUndefined();
  });
});

async function manager429(run: Awaited<ReturnType<typeof setup>>['run']) {
  return run((candidate) => {
    if (keyOf(candidate) !== 'sk-a') return 'ok';
    throw Object.assign(new Error('429 {"type":"error","error":{"type":"rate_limit_error"}}'), {
      status: 429,
      headers: { 'retry-after': '30' },
    });
  });
}

describe('errors that never advance', () => {
  it('context overflow is surfaced distinctly: no record, no rotation, no fallback', async () => {
    const { manager, run, calls } = await setup();
    const overflow = new ModelError(
      'context_overflow',
      'prompt is too long: 250000 tokens > 200000 maximum',
      {
        status: 400,
        observedTokens: 250_000,
      },
    );
    const error = await rejection(run(() => overflow, { fallbacks: [haiku] }));
    expect(error.code).toBe('AUTH_PROFILES_CONTEXT_OVERFLOW');
    expect(error.modelError?.observedTokens).toBe(250_000);
    expect(error.candidate).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      profileId: 'anthropic:a',
    });
    expect(calls).toHaveLength(1);
    expect(manager.status().profiles[0]?.state).toBe('ready');
  });

  it('an abort is surfaced at once, and a fired signal stops before any attempt', async () => {
    const { run, calls } = await setup();
    const aborted = await rejection(
      run(() => new ModelError('aborted', 'Request was aborted'), { fallbacks: [haiku] }),
    );
    expect(aborted.code).toBe('AUTH_PROFILES_ABORTED');
    expect(calls).toHaveLength(1);
    const controller = new AbortController();
    controller.abort();
    const early = await rejection(run(() => 'ok', { signal: controller.signal }));
    expect(early.code).toBe('AUTH_PROFILES_ABORTED');
    expect(calls).toHaveLength(1);
  });

  it('an abort during a failing attempt wins over its error class', async () => {
    const { run, calls } = await setup();
    const controller = new AbortController();
    const error = await rejection(
      run(
        () => {
          controller.abort();
          return 'rate_limit';
        },
        { signal: controller.signal, fallbacks: [haiku] },
      ),
    );
    expect(error.code).toBe('AUTH_PROFILES_ABORTED');
    expect(calls).toHaveLength(1);
  });

  it('a rejected request (format) is not rotated', async () => {
    const { run, calls } = await setup();
    const error = await rejection(run(() => 'format', { fallbacks: [haiku] }));
    expect(error.code).toBe('AUTH_PROFILES_REQUEST_REJECTED');
    expect(error.message).toContain('anthropic/claude-sonnet-4-6 (anthropic:a) rejected the request');
    expect(calls).toHaveLength(1);
  });
});

describe('no credential configured (no_credentials)', () => {
  const missing = (candidate: AttemptCandidate) =>
    new ModelError(
      'no_credentials',
      `No API key or auth token for provider ${candidate.provider} (model ${candidate.model}).`,
    );

  it('is not retried nor waited for, and the error says plainly that no key is configured', async () => {
    const { run, calls } = await setup();
    const error = await rejection(
      run(missing, { model: 'openai/gpt-5', fallbacksOverride: [], maxWaitMs: 60_000 }),
    );
    expect(error.code).toBe('AUTH_PROFILES_EXHAUSTED');
    expect(error.modelError?.errorClass).toBe('no_credentials');
    expect(error.modelError?.code).toBe('MODEL_CREDENTIALS_MISSING');
    expect(calls).toEqual(['gpt-5:-']);
    expect(error.message).toBe(
      [
        'All models failed (1 tried):',
        '- openai/gpt-5: no API key configured',
        'No API key is configured for openai; trying again will not help until one is.',
      ].join('\n'),
    );
    expect(error.message).not.toContain('trying again may work');
  });

  it('falls back to a model of a provider that has a key, and holds nothing against any key', async () => {
    const { manager, run, calls } = await setup();
    const result = await run((candidate) => (candidate.provider === 'openai' ? missing(candidate) : 'ok'), {
      model: 'openai/gpt-5',
      fallbacksOverride: [sonnet],
    });
    expect(result).toMatchObject({ value: 'answer from sk-a', provider: 'anthropic', fellBack: true });
    expect(calls).toEqual(['gpt-5:-', 'claude-sonnet-4-6:sk-a']);
    expect(manager.status().profiles.map((profile) => profile.state)).toEqual(['ready', 'ready', 'ready']);
  });

  it('on a profile, neither rotates to the next key nor cools down or disables the profile', async () => {
    const { manager, run, calls } = await setup();
    const error = await rejection(run(missing, { fallbacksOverride: [] }));
    expect(error.modelError?.errorClass).toBe('no_credentials');
    expect(calls).toEqual(['claude-sonnet-4-6:sk-a']);
    const profiles = manager.status().profiles;
    expect(profiles.map((profile) => profile.state)).toEqual(['ready', 'ready', 'ready']);
    expect(profiles[0]?.failureCounts).toEqual({});
  });
});

describe('thinking downgrade', () => {
  it('retries the same key and model with a supported level', async () => {
    const { run, calls, events } = await setup();
    const rejected = new ModelError(
      'format',
      '400 invalid_request_error: thinking effort "high" is not supported by this model. Supported values are: low, medium.',
      { status: 400 },
    );
    const result = await run((candidate) => (candidate.thinkingLevel === 'high' ? rejected : 'ok'), {
      thinkingLevel: 'high',
    });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-a:high', 'claude-sonnet-4-6:sk-a:medium']);
    expect(result.thinkingLevel).toBe('medium');
    expect(result.attempts.map((attempt) => attempt.action ?? 'ok')).toEqual(['retry_thinking', 'ok']);
    expect(events.filter((event) => event.type === 'thinking_downgrade')).toEqual([
      {
        type: 'thinking_downgrade',
        provider: 'anthropic',
        model: 'claude-sonnet-4-6',
        profileId: 'anthropic:a',
        from: 'high',
        to: 'medium',
      },
    ]);
  });

  it('starts again from the run level after a rotation', async () => {
    const { run, calls } = await setup();
    const required = new ModelError('format', 'reasoning is required for this model', { status: 400 });
    await run(
      (candidate) =>
        candidate.thinkingLevel === undefined ? required : keyOf(candidate) === 'sk-a' ? 'rate_limit' : 'ok',
      {},
    );
    expect(calls).toEqual([
      'claude-sonnet-4-6:sk-a',
      'claude-sonnet-4-6:sk-a:minimal',
      'claude-sonnet-4-6:sk-b',
      'claude-sonnet-4-6:sk-b:minimal',
    ]);
  });
});

describe('model fallback and cooldown skips', () => {
  it('skips a model whose keys are all cooling, without a request, and the fallback answers', async () => {
    const { run, calls, clock, events } = await setup();
    await rejection(run(() => 'rate_limit'));
    calls.length = 0;
    clock.now += 3000;
    const result = await run(() => 'ok', { fallbacks: [haiku] });
    expect(calls).toEqual(['claude-haiku-4-5:sk-a']);
    expect(result).toMatchObject({ model: 'claude-haiku-4-5', fellBack: true });
    expect(events.filter((event) => event.type === 'candidate_skipped').at(-1)).toEqual({
      type: 'candidate_skipped',
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      usableAt: start + 10_000,
      reason: 'rate_limit',
    });
  });

  it('says when the soonest model is usable again when nothing could be tried', async () => {
    const { run, calls, clock } = await setup();
    await rejection(run(() => 'rate_limit'));
    await rejection(
      run(() => new ModelError('rate_limit', '429 slow down', { status: 429, retryAfterMs: 20_000 }), {
        model: haiku,
      }),
    );
    calls.length = 0;
    clock.now += 4000;
    const error = await rejection(run(() => 'ok', { fallbacks: [haiku] }));
    expect(calls).toEqual([]);
    expect(error.code).toBe('AUTH_PROFILES_EXHAUSTED');
    expect(error.retryAfterMs).toBe(6000);
    expect(error.message).toBe(
      [
        'No model is usable right now:',
        '- anthropic/claude-sonnet-4-6: not tried, no key is usable (anthropic:a rate limited for 6 s; anthropic:b rate limited for 6 s; anthropic:c rate limited for 6 s)',
        '- anthropic/claude-haiku-4-5: not tried, no key is usable (anthropic:a rate limited for 16 s; anthropic:b rate limited for 16 s; anthropic:c rate limited for 16 s)',
        'Soonest usable again: anthropic/claude-sonnet-4-6 in 6 s.',
      ].join('\n'),
    );
  });

  it('lists each model with its reasons, the soonest one, and the keys that need attention', async () => {
    const { run } = await setup();
    const error = await rejection(
      run((candidate) => (candidate.model === 'claude-sonnet-4-6' ? 'overloaded' : 'billing'), {
        fallbacks: [haiku],
        primary: 'anthropic/claude-opus-4-6',
      }),
    );
    expect(error.message).toBe(
      [
        'All models failed (2 tried):',
        '- anthropic/claude-sonnet-4-6: overloaded on anthropic:a, anthropic:b',
        '- anthropic/claude-haiku-4-5: out of credits on anthropic:a, anthropic:b, anthropic:c',
        '- anthropic/claude-opus-4-6: not tried, no key is usable (anthropic:a out of credits for 5 h; anthropic:b out of credits for 5 h; anthropic:c out of credits for 5 h)',
        'Soonest usable again: anthropic/claude-sonnet-4-6 in 5 h.',
        'Keys that need attention: anthropic:a (out of credits), anthropic:b (out of credits), anthropic:c (out of credits).',
      ].join('\n'),
    );
    expect(error.candidates.map((candidate) => candidate.usableAt)).toEqual([
      start + 5 * 3_600_000,
      start + 5 * 3_600_000,
      start + 5 * 3_600_000,
    ]);
  });
});

describe('session pins', () => {
  it('a user pin never rotates: its failure goes straight to the next model', async () => {
    const { run, calls } = await setup();
    const pin = { profileId: 'anthropic:b', source: 'user' } as const;
    const result = await run((candidate) => (candidate.model === 'claude-sonnet-4-6' ? 'rate_limit' : 'ok'), {
      sessionPin: pin,
      fallbacks: [haiku],
    });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-b', 'claude-haiku-4-5:sk-b']);
    expect(result.sessionPin).toBe(pin);
  });

  it('a user-pinned key in cooldown is skipped, not replaced', async () => {
    const { run, calls } = await setup();
    await run((candidate) => (candidate.model === 'claude-sonnet-4-6' ? 'rate_limit' : 'ok'), {
      sessionPin: { profileId: 'anthropic:b', source: 'user' },
      fallbacks: [haiku],
    });
    calls.length = 0;
    const error = await rejection(
      run(() => 'ok', { sessionPin: { profileId: 'anthropic:b', source: 'user' }, fallbacksOverride: [] }),
    );
    expect(calls).toEqual([]);
    expect(error.message).toContain('anthropic:b rate limited for 10 s');
    expect(error.candidates[0]?.profiles).toEqual([
      { profileId: 'anthropic:b', result: 'unavailable', reason: 'rate_limit', until: start + 10_000 },
    ]);
  });

  it('an auto pin leads while usable, and moves on after a compaction', async () => {
    const { run, calls } = await setup();
    const pin = { profileId: 'anthropic:c', source: 'auto', compactionCount: 2 } as const;
    const kept = await run(() => 'ok', { sessionPin: pin, compactionCount: 2 });
    expect(kept.sessionPin).toEqual({ profileId: 'anthropic:c', source: 'auto', compactionCount: 2 });
    const moved = await run(() => 'ok', { sessionPin: pin, compactionCount: 3 });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-c', 'claude-sonnet-4-6:sk-a']);
    expect(moved.sessionPin).toEqual({ profileId: 'anthropic:a', source: 'auto', compactionCount: 3 });
  });

  it('drops a pin naming a profile that is gone', async () => {
    const { run, events } = await setup();
    const result = await run(() => 'ok', { sessionPin: { profileId: 'anthropic:gone', source: 'user' } });
    expect(events).toContainEqual({
      type: 'pin_dropped',
      profileId: 'anthropic:gone',
      reason: 'the profile no longer exists',
    });
    expect(result.sessionPin).toEqual({ profileId: 'anthropic:a', source: 'auto' });
  });
});

describe('explicit order', () => {
  it('uses only the keys it lists, also for the usable-again time', async () => {
    const { run, calls } = await setup({ config: { ...threeKeys, order: { anthropic: ['anthropic:b'] } } });
    const error = await rejection(run(() => 'rate_limit'));
    expect(calls).toEqual(['claude-sonnet-4-6:sk-b']);
    expect(error.retryAfterMs).toBe(10_000);
  });
});

describe('round robin', () => {
  it('spreads runs over the keys by last use when no order is configured', async () => {
    const { run, calls, clock } = await setup({ config: { profiles: threeKeys.profiles } });
    for (let index = 0; index < 4; index += 1) {
      clock.now += 1000;
      await run(() => 'ok');
    }
    expect(calls).toEqual([
      'claude-sonnet-4-6:sk-a',
      'claude-sonnet-4-6:sk-b',
      'claude-sonnet-4-6:sk-c',
      'claude-sonnet-4-6:sk-a',
    ]);
  });
});

describe('request validation and events', () => {
  it('names bad input', async () => {
    const { manager } = await setup();
    await expect(
      manager.runWithFailover({
        model: sonnet,
        maxAttempts: 0,
        attempt: async () => ({ ok: true, value: 1 }),
      }),
    ).rejects.toThrow(/maxAttempts must be an integer >= 1, got 0/);
    await expect(
      manager.runWithFailover({ model: ' ', attempt: async () => ({ ok: true, value: 1 }) }),
    ).rejects.toThrow(/model: expected "provider\/model"/);
    expect(() => manager.credentialFor('nope')).toThrow(/unknown auth profile "nope"; known: anthropic:a/);
  });

  it('emits a discriminated event for each step, without secrets', async () => {
    const { run, events } = await setup();
    await run((candidate) => (keyOf(candidate) === 'sk-a' ? 'rate_limit' : 'ok'));
    expect(events.map((event) => event.type)).toEqual([
      'attempt_start',
      'failure_recorded',
      'attempt_failed',
      'attempt_start',
      'succeeded',
    ]);
    expect(JSON.stringify(events)).not.toContain('sk-');
  });
});

describe('waiting out rate limits inside the run', () => {
  const oneKey = {
    profiles: { 'anthropic:main': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-main' } },
  } as const;
  const rateLimited = (retryAfterMs?: number) =>
    new ModelError('rate_limit', '429 rate_limit_error', {
      status: 429,
      retryAfterMs,
    });

  /** A manager whose sleep advances the fake clock: the run "waits" without real time passing. */
  async function waiting(config: unknown = oneKey) {
    const sleeps: number[] = [];
    const context = await setup({
      config,
      sleep: async (milliseconds) => {
        sleeps.push(milliseconds);
        context.clock.now += milliseconds;
      },
    });
    const waits: FailoverWait[] = [];
    const onWait = (wait: FailoverWait) => waits.push(wait);
    return { ...context, sleeps, waits, onWait };
  }

  it('one key, 429 with retry-after 1 s: waits 1 s, then the same key answers', async () => {
    const { run, calls, sleeps, waits, onWait, events, clock } = await waiting();
    let failures = 0;
    const result = await run(() => (failures++ === 0 ? rateLimited(1000) : 'ok'), {
      maxWaitMs: 60_000,
      onWait,
    });
    expect(result).toMatchObject({ value: 'answer from sk-main', profileId: 'anthropic:main' });
    expect(calls).toEqual(['claude-sonnet-4-6:sk-main', 'claude-sonnet-4-6:sk-main']);
    expect(sleeps).toEqual([1000]);
    expect(clock.now).toBe(start + 1000);
    const wait = {
      waitMs: 1000,
      reason: 'rate_limit',
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      profileId: 'anthropic:main',
      attempt: 2,
    };
    expect(waits).toEqual([wait]);
    expect(events).toContainEqual({ type: 'waiting', wait });
    expect(result.attempts.map((attempt) => attempt.action ?? 'ok')).toEqual(['wait', 'ok']);
  });

  it('the provider key (no profiles) waits for its retry-after too', async () => {
    const { run, calls, sleeps, waits, onWait } = await waiting({});
    let failures = 0;
    const result = await run(() => (failures++ === 0 ? rateLimited(2000) : 'ok'), {
      maxWaitMs: 60_000,
      onWait,
    });
    expect(result.profileId).toBeUndefined();
    expect(calls).toEqual(['claude-sonnet-4-6:-', 'claude-sonnet-4-6:-']);
    expect(sleeps).toEqual([2000]);
    expect(waits).toEqual([
      { waitMs: 2000, reason: 'rate_limit', provider: 'anthropic', model: 'claude-sonnet-4-6', attempt: 2 },
    ]);
  });

  it('a wait beyond what is left of the bound fails at once with the time to wait', async () => {
    const { run, calls, sleeps } = await waiting();
    // 20 s fits in 30 s; after it, the next 20 s does not fit in the 10 s left.
    const error = await rejection(run(() => rateLimited(20_000), { maxWaitMs: 30_000 }));
    expect(sleeps).toEqual([20_000]);
    expect(calls).toHaveLength(2);
    expect(error.code).toBe('AUTH_PROFILES_EXHAUSTED');
    expect(error.retryAfterMs).toBe(20_000);
    expect(error.retryAt).toBe(start + 40_000);
    expect(error.message).toContain('Soonest usable again: anthropic/claude-sonnet-4-6 in 20 s.');
    expect(error.attempts.map((attempt) => attempt.action)).toEqual(['wait', 'stop']);
  });

  it('without maxWaitMs (or with 0) it never waits, and the error carries the retry-after', async () => {
    const { run, calls, sleeps } = await waiting();
    const error = await rejection(run(() => rateLimited(1000)));
    expect(sleeps).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(error.retryAfterMs).toBe(1000);
    const provider = await waiting({});
    const providerError = await rejection(provider.run(() => rateLimited(1000), { maxWaitMs: 0 }));
    expect(provider.sleeps).toEqual([]);
    expect(providerError.retryAfterMs).toBe(1000);
  });

  it('an abort during the wait ends it at once (the default timer) and the run reports the abort', async () => {
    vi.useFakeTimers({ now: start });
    try {
      // No injected sleep or clock: the manager's own timer, under fake timers.
      const manager = await createAuthProfileManager({ config: oneKey });
      const controller = new AbortController();
      let calls = 0;
      let waitStarted: (wait: FailoverWait) => void = () => {};
      const started = new Promise<FailoverWait>((resolve) => {
        waitStarted = resolve;
      });
      const running = manager.runWithFailover({
        model: sonnet,
        signal: controller.signal,
        maxWaitMs: 60_000,
        onWait: (wait) => waitStarted(wait),
        attempt: async (): Promise<AttemptOutcome<string>> => {
          calls += 1;
          return { ok: false, error: rateLimited(30_000) };
        },
      });
      const outcome = rejection(running);
      expect(await started).toMatchObject({ waitMs: 30_000, reason: 'rate_limit' });
      expect(vi.getTimerCount()).toBe(1);
      controller.abort();
      const error = await outcome;
      expect(error.code).toBe('AUTH_PROFILES_ABORTED');
      expect(calls).toBe(1);
      expect(Date.now()).toBe(start); // no time passed: the abort, not the timer, ended the wait
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("the key's cooldown is the provider's retry-after, not the 10 s schedule", async () => {
    const { manager, run } = await waiting();
    await rejection(run(() => rateLimited(1000)));
    expect(manager.status().profiles[0]?.models).toEqual([
      expect.objectContaining({ model: 'claude-sonnet-4-6', reason: 'rate_limit', until: start + 1000 }),
    ]);
    // Without a retry-after the escalating schedule stays: 10 s.
    const other = await waiting();
    await rejection(other.run(() => rateLimited()));
    expect(other.manager.status().profiles[0]?.models[0]?.until).toBe(start + 10_000);
  });

  it('529 without a retry-after: backs off along the schedule (10 s), then answers', async () => {
    const { run, calls, sleeps, waits, onWait } = await waiting();
    let failures = 0;
    const result = await run(() => (failures++ === 0 ? 'overloaded' : 'ok'), { maxWaitMs: 60_000, onWait });
    expect(result.value).toBe('answer from sk-main');
    expect(calls).toHaveLength(2);
    expect(sleeps).toEqual([10_000]);
    expect(waits[0]).toMatchObject({ waitMs: 10_000, reason: 'overloaded' });
  });

  it('529 again right after the backoff: the next step (60 s) does not fit the 60 s bound any more', async () => {
    const { run, calls, sleeps } = await waiting();
    const error = await rejection(run(() => 'overloaded', { maxWaitMs: 60_000 }));
    expect(sleeps).toEqual([10_000]);
    expect(calls).toHaveLength(2);
    expect(error.retryAfterMs).toBe(60_000);
  });

  it('does not wait while another key is usable, nor for a failure no wait helps', async () => {
    // Key B answers: no wait.
    const rotating = await waiting(threeKeys);
    await rotating.run((candidate) => (keyOf(candidate) === 'sk-a' ? rateLimited(1000) : 'ok'), {
      maxWaitMs: 60_000,
    });
    expect(rotating.sleeps).toEqual([]);
    // A rejected key (disabled 5 min) and a timeout (the key stays usable) fail at once.
    for (const failure of ['auth', 'timeout'] as const) {
      const { run, sleeps, calls } = await waiting();
      const error = await rejection(run(() => failure, { maxWaitMs: 60_000 }));
      expect(error.code).toBe('AUTH_PROFILES_EXHAUSTED');
      expect(sleeps).toEqual([]);
      expect(calls).toHaveLength(1);
    }
  });

  it('waits for the fallback model when it is the soonest usable again', async () => {
    const { run, calls, sleeps, waits, onWait } = await waiting();
    let haikuFailures = 0;
    const result = await run(
      (candidate) => {
        if (candidate.model === 'claude-sonnet-4-6') return rateLimited(30_000);
        return haikuFailures++ === 0 ? rateLimited(2000) : 'ok';
      },
      { fallbacks: [haiku], maxWaitMs: 60_000, onWait },
    );
    expect(result).toMatchObject({ model: 'claude-haiku-4-5', fellBack: true });
    expect(sleeps).toEqual([2000]);
    expect(waits[0]).toMatchObject({ model: 'claude-haiku-4-5', waitMs: 2000 });
    // After the wait sonnet is still cooling: skipped without a request.
    expect(calls).toEqual([
      'claude-sonnet-4-6:sk-main',
      'claude-haiku-4-5:sk-main',
      'claude-haiku-4-5:sk-main',
    ]);
  });

  it('rejects a bad maxWaitMs', async () => {
    const { manager } = await setup();
    await expect(
      manager.runWithFailover({
        model: sonnet,
        maxWaitMs: -1,
        attempt: async () => ({ ok: true, value: 1 }),
      }),
    ).rejects.toThrow(/maxWaitMs must be a number >= 0, got -1/);
  });
});
