import { describe, expect, it } from 'vitest';
import { defaultCooldownSettings as settings } from './config.ts';
import { emptyProfileState, recordFailure } from './cooldown.ts';
import { buildCandidateChain, parseModelRef } from './model-ref.ts';
import { type OrderableProfile, orderProfiles } from './ordering.ts';
import type { ProfileRuntimeState } from './types.ts';

const profiles: OrderableProfile[] = [
  { id: 'anthropic:a', provider: 'anthropic', mode: 'api_key', hasCredential: true },
  { id: 'anthropic:b', provider: 'anthropic', mode: 'api_key', hasCredential: true },
  { id: 'anthropic:c', provider: 'anthropic', mode: 'api_key', hasCredential: true },
  { id: 'anthropic:tok', provider: 'anthropic', mode: 'token', hasCredential: true },
  { id: 'anthropic:nokey', provider: 'anthropic', mode: 'api_key', hasCredential: false },
  { id: 'openai:a', provider: 'openai', mode: 'api_key', hasCredential: true },
];
const apiKeys = profiles.filter((profile) => profile.mode === 'api_key');
const model = 'claude-sonnet-4-6';

function used(at: number): ProfileRuntimeState {
  return { ...emptyProfileState(), lastUsed: at };
}
function cooling(until: number, model = 'claude-sonnet-4-6'): ProfileRuntimeState {
  return recordFailure(
    emptyProfileState(),
    { reason: 'rate_limit', model, provider: 'anthropic', now: 0, retryAfterMs: until },
    settings,
  ).state;
}
const ids = (input: Parameters<typeof orderProfiles>[0]) =>
  orderProfiles(input).map((entry) => entry.profileId);

describe('orderProfiles', () => {
  it('round robin: least recently used first, never used first of all, tokens before keys', () => {
    const states = new Map([
      ['anthropic:a', used(300)],
      ['anthropic:b', used(100)],
      ['anthropic:tok', used(500)],
    ]);
    expect(ids({ provider: 'anthropic', model, now: 1000, profiles, states })).toEqual([
      'anthropic:tok',
      'anthropic:c',
      'anthropic:b',
      'anthropic:a',
    ]);
  });

  it('rotates through the keys as each one is used (round robin by last use)', () => {
    const states = new Map<string, ProfileRuntimeState>();
    const picked: string[] = [];
    for (let now = 1; now <= 4; now += 1) {
      const first = ids({ provider: 'anthropic', model, now, profiles: apiKeys, states })[0]!;
      picked.push(first);
      states.set(first, used(now));
    }
    expect(picked).toEqual(['anthropic:a', 'anthropic:b', 'anthropic:c', 'anthropic:a']);
  });

  it('keeps an explicit order, drops unknown, foreign and secretless ids, and moves blocked ones last', () => {
    const states = new Map([
      ['anthropic:c', cooling(60_000)],
      ['anthropic:b', cooling(20_000)],
    ]);
    const order = orderProfiles({
      provider: 'anthropic',
      model,
      now: 1000,
      profiles,
      states,
      explicitOrder: ['anthropic:c', 'openai:a', 'ghost', 'anthropic:nokey', 'anthropic:b', 'anthropic:a'],
    });
    expect(order).toEqual([
      { profileId: 'anthropic:a', usable: true, blockedBy: undefined },
      { profileId: 'anthropic:b', usable: false, blockedBy: expect.objectContaining({ until: 20_000 }) },
      { profileId: 'anthropic:c', usable: false, blockedBy: expect.objectContaining({ until: 60_000 }) },
    ]);
  });

  it('judges usability per model: a key rate-limited on one model leads for another', () => {
    const states = new Map([['anthropic:a', cooling(60_000, model)]]);
    expect(ids({ provider: 'anthropic', model, now: 10, profiles: apiKeys, states })[0]).toBe('anthropic:b');
    expect(
      ids({ provider: 'anthropic', model: 'claude-haiku-4-5', now: 10, profiles: apiKeys, states })[0],
    ).toBe('anthropic:a');
  });

  it('puts a usable preferred profile first, and ignores it while it is blocked', () => {
    const states = new Map<string, ProfileRuntimeState>();
    expect(
      ids({ provider: 'anthropic', model, now: 1, profiles: apiKeys, states, preferred: 'anthropic:c' }),
    ).toEqual(['anthropic:c', 'anthropic:a', 'anthropic:b']);
    states.set('anthropic:c', cooling(5000));
    expect(
      ids({ provider: 'anthropic', model, now: 1, profiles: apiKeys, states, preferred: 'anthropic:c' }),
    ).toEqual(['anthropic:a', 'anthropic:b', 'anthropic:c']);
  });

  it('advances cyclically past a profile (an auto pin after a compaction)', () => {
    const states = new Map<string, ProfileRuntimeState>();
    expect(
      ids({ provider: 'anthropic', model, now: 1, profiles: apiKeys, states, advanceFrom: 'anthropic:b' }),
    ).toEqual(['anthropic:c', 'anthropic:a', 'anthropic:b']);
    expect(
      ids({ provider: 'anthropic', model, now: 1, profiles: apiKeys, states, advanceFrom: 'anthropic:c' }),
    ).toEqual(['anthropic:a', 'anthropic:b', 'anthropic:c']);
  });
});

describe('buildCandidateChain', () => {
  const base = { defaultProvider: 'anthropic' };
  const names = (input: Parameters<typeof buildCandidateChain>[0]) =>
    buildCandidateChain(input).map((candidate) => `${candidate.provider}/${candidate.model}`);

  it('is the requested model, the fallbacks, then the primary, without duplicates', () => {
    expect(
      names({
        ...base,
        model: 'anthropic/claude-opus-4-6',
        primary: 'anthropic/claude-sonnet-4-6',
        fallbacks: ['anthropic/claude-haiku-4-5', 'claude-opus-4-6', 'openai/gpt-5'],
      }),
    ).toEqual([
      'anthropic/claude-opus-4-6',
      'anthropic/claude-haiku-4-5',
      'openai/gpt-5',
      'anthropic/claude-sonnet-4-6',
    ]);
  });

  it('leaves the fallbacks out when the user switched to an unrelated provider, but keeps the primary', () => {
    expect(
      names({
        ...base,
        model: 'openrouter/meta/llama-4',
        primary: 'anthropic/claude-sonnet-4-6',
        fallbacks: ['anthropic/claude-haiku-4-5'],
      }),
    ).toEqual(['openrouter/meta/llama-4', 'anthropic/claude-sonnet-4-6']);
    // …unless the requested model is one of the fallbacks.
    expect(
      names({
        ...base,
        model: 'openai/gpt-5',
        primary: 'anthropic/claude-sonnet-4-6',
        fallbacks: ['openai/gpt-5', 'anthropic/claude-haiku-4-5'],
      }),
    ).toEqual(['openai/gpt-5', 'anthropic/claude-haiku-4-5', 'anthropic/claude-sonnet-4-6']);
  });

  it('lets an explicit override (even empty) replace the fallbacks and the primary', () => {
    const configured = { primary: 'claude-sonnet-4-6', fallbacks: ['claude-haiku-4-5'] };
    expect(names({ ...base, ...configured, model: 'claude-opus-4-6', fallbacksOverride: [] })).toEqual([
      'anthropic/claude-opus-4-6',
    ]);
    expect(
      names({
        ...base,
        ...configured,
        model: 'claude-opus-4-6',
        fallbacksOverride: [{ provider: 'x', model: 'y' }],
      }),
    ).toEqual(['anthropic/claude-opus-4-6', 'x/y']);
  });

  it('parses provider/model at the first slash and names a bad reference', () => {
    expect(parseModelRef('openrouter/anthropic/claude-x', 'anthropic')).toEqual({
      provider: 'openrouter',
      model: 'anthropic/claude-x',
    });
    expect(parseModelRef(' claude-x ', 'anthropic')).toEqual({ provider: 'anthropic', model: 'claude-x' });
    expect(() => buildCandidateChain({ ...base, model: 'anthropic/', fallbacks: [] })).toThrow(
      /model: expected "provider\/model"/,
    );
    expect(() => buildCandidateChain({ ...base, model: 'x', fallbacks: ['ok', ''] })).toThrow(
      /fallbacks\[1\]/,
    );
  });
});
