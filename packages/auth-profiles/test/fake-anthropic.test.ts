// End to end: runWithFailover drives core-loop's Agent through the Anthropic provider (the
// real @anthropic-ai/sdk) against testkit's fake Messages API on 127.0.0.1.
import {
  Agent,
  type AgentMessage,
  anthropicModel,
  createStreamFunction,
  type StreamFunction,
} from '@switchboard/core-loop';
import { createAnthropicProvider } from '@switchboard/core-loop/anthropic';
import type { AssistantMessage } from '@switchboard/hooks';
import {
  createFakeAnthropic,
  type FakeAnthropic,
  type RecordedRequest,
} from '@switchboard/testkit/anthropic';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type AttemptCandidate,
  type AuthProfileManager,
  AuthProfilesError,
  type AuthStateStorage,
  createAuthProfileManager,
  createMemoryAuthStateStorage,
  type FailoverRequest,
  outcomeFromAssistantMessage,
} from '../src/index.ts';

const sonnet = 'claude-sonnet-4-6';
const haiku = 'claude-haiku-4-5';
const start = 1_700_000_000_000;
const config = {
  profiles: {
    'anthropic:a': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-a' },
    'anthropic:b': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-b' },
    'anthropic:c': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-c' },
  },
  order: { anthropic: ['anthropic:a', 'anthropic:b', 'anthropic:c'] },
};

let fake: FakeAnthropic;
let streamFn: StreamFunction;
let clock: { now: number };

beforeAll(async () => {
  fake = await createFakeAnthropic().start();
  streamFn = createStreamFunction([createAnthropicProvider({ baseUrl: fake.baseURL, maxRetries: 0 })]);
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  clock = { now: start };
});

async function manager(
  storage: AuthStateStorage = createMemoryAuthStateStorage(),
): Promise<AuthProfileManager> {
  return createAuthProfileManager({ config, storage, now: () => clock.now });
}

/** What the gateway does per attempt: an Agent on the candidate's model, key and thinking level. */
async function runAgent(candidate: AttemptCandidate, history: readonly AgentMessage[], text: string) {
  const agent = new Agent({
    model: anthropicModel(candidate.model),
    thinkingLevel: candidate.thinkingLevel ?? 'off',
    messages: history,
    streamFn,
    getApiKey: () => candidate.credential,
  });
  await agent.prompt(text);
  return outcomeFromAssistantMessage(agent.state.messages.at(-1) as AssistantMessage);
}

function run(
  auth: AuthProfileManager,
  request: Partial<FailoverRequest<AssistantMessage>> = {},
  text = 'hello',
) {
  return auth.runWithFailover<AssistantMessage>({
    model: `anthropic/${sonnet}`,
    attempt: (candidate) => runAgent(candidate, [], text),
    ...request,
  });
}

const sent = () =>
  fake.messageRequests.map((request: RecordedRequest) => `${request.model}:${request.credential}`);
const forModel = (model: string) => (request: RecordedRequest) => request.model === model;
const textOf = (message: AssistantMessage) =>
  message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

async function rejection(promise: Promise<unknown>): Promise<AuthProfilesError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AuthProfilesError) return error;
    throw error;
  }
  throw new Error('expected the run to fail');
}

describe('failover through the real SDK', () => {
  it("429 on key A: key B answers and A cools down for the provider's retry-after (1 s), not 10 s", async () => {
    const auth = await manager();
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 1 }, { credential: 'sk-a' });
    const result = await run(auth);
    expect(textOf(result.value)).toBe('hello');
    expect(sent()).toEqual([`${sonnet}:sk-a`, `${sonnet}:sk-b`]);
    expect(result.attempts[0]).toMatchObject({ errorClass: 'rate_limit', status: 429, action: 'rotate' });
    expect(auth.status().profiles[0]).toMatchObject({
      id: 'anthropic:a',
      state: 'cooling',
      models: [{ model: sonnet, reason: 'rate_limit', until: start + 1000, remainingMs: 1000 }],
    });
    // Other models of key A stay usable, and A is back after 1 s.
    await run(auth, { model: `anthropic/${haiku}` });
    clock.now += 1000;
    await run(auth);
    expect(sent().slice(2)).toEqual([`${haiku}:sk-a`, `${sonnet}:sk-a`]);
  });

  it('401: key A is disabled and no longer tried', async () => {
    const auth = await manager();
    fake.injectFault({ type: 'authentication' }, { credential: 'sk-a', times: Number.POSITIVE_INFINITY });
    await run(auth);
    expect(auth.status().profiles[0]).toMatchObject({
      state: 'disabled',
      disabled: { reason: 'auth', remainingMs: 5 * 60_000 },
    });
    clock.now += 60_000;
    await run(auth, { model: `anthropic/${haiku}` });
    expect(sent()).toEqual([`${sonnet}:sk-a`, `${sonnet}:sk-b`, `${haiku}:sk-b`]);
  });

  it('all keys cooling: the fallback model answers without a request to the cooling model', async () => {
    const auth = await manager();
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 10 }, { match: forModel(sonnet), times: 3 });
    const exhausted = await rejection(run(auth));
    expect(exhausted.code).toBe('AUTH_PROFILES_EXHAUSTED');
    expect(exhausted.message).toContain('Soonest usable again: anthropic/claude-sonnet-4-6 in 10 s.');
    clock.now += 2000;
    const result = await run(auth, { fallbacks: [`anthropic/${haiku}`] });
    expect(result).toMatchObject({ model: haiku, fellBack: true, profileId: 'anthropic:a' });
    expect(sent()).toEqual([`${sonnet}:sk-a`, `${sonnet}:sk-b`, `${sonnet}:sk-c`, `${haiku}:sk-a`]);
  });

  it('529: one rotation, then the fallback model', async () => {
    const auth = await manager();
    fake.injectFault({ type: 'overloaded' }, { match: forModel(sonnet), times: Number.POSITIVE_INFINITY });
    const result = await run(auth, { fallbacks: [`anthropic/${haiku}`] });
    expect(sent()).toEqual([`${sonnet}:sk-a`, `${sonnet}:sk-b`, `${haiku}:sk-a`]);
    expect(result.attempts.map((attempt) => attempt.action ?? 'ok')).toEqual(['rotate', 'next_model', 'ok']);
    expect(result.attempts[0]?.recorded).toMatchObject({ lane: 'cooldown', reason: 'overloaded' });
  });

  it('402: the key is disabled for billing (5 h), and the next key answers', async () => {
    const auth = await manager();
    fake.injectFault({ type: 'billing' }, { credential: 'sk-a' });
    const result = await run(auth);
    expect(result.profileId).toBe('anthropic:b');
    expect(auth.status().profiles[0]?.disabled).toMatchObject({
      reason: 'billing',
      remainingMs: 5 * 3_600_000,
    });
  });

  it('context overflow is not a failover: surfaced once, nothing recorded', async () => {
    const auth = await manager();
    fake.injectFault({ type: 'prompt_too_long', tokens: 250_000 }, { times: Number.POSITIVE_INFINITY });
    const error = await rejection(run(auth, { fallbacks: [`anthropic/${haiku}`] }));
    expect(error.code).toBe('AUTH_PROFILES_CONTEXT_OVERFLOW');
    expect(error.modelError?.observedTokens).toBe(250_000);
    expect(sent()).toEqual([`${sonnet}:sk-a`]);
    expect(auth.status().profiles.map((profile) => profile.state)).toEqual(['ready', 'ready', 'ready']);
  });

  it('a thinking-level rejection: the same key and model retry with a supported level', async () => {
    const auth = await manager();
    fake.injectFault(
      {
        type: 'http',
        status: 400,
        errorType: 'invalid_request_error',
        message: 'thinking effort "high" is not supported for this model. Supported values are: low, medium.',
      },
      {
        match: (request) =>
          (request.body?.output_config as { effort?: string } | undefined)?.effort === 'high',
      },
    );
    const result = await run(auth, { thinkingLevel: 'high' });
    expect(result.thinkingLevel).toBe('medium');
    expect(sent()).toEqual([`${sonnet}:sk-a`, `${sonnet}:sk-a`]);
    expect(fake.messageRequests.map((request) => request.body?.output_config)).toEqual([
      { effort: 'high' },
      { effort: 'medium' },
    ]);
    expect(auth.status().profiles[0]?.state).toBe('ready');
  });

  it('a timeout (500, or a cut stream) rotates but records no cooldown', async () => {
    const auth = await manager();
    fake.injectFault({ type: 'server' }, { credential: 'sk-a' });
    const first = await run(auth);
    expect(first.attempts[0]).toMatchObject({ errorClass: 'timeout', status: 500, action: 'rotate' });
    expect(first.attempts[0]?.recorded).toBeUndefined();
    fake.enqueue({ text: 'this answer is cut short', fault: { type: 'stream_cut', afterEvents: 3 } });
    const second = await run(auth, { sessionPin: { profileId: 'anthropic:a', source: 'auto' } });
    expect(second.attempts[0]).toMatchObject({
      profileId: 'anthropic:a',
      errorClass: 'timeout',
      action: 'rotate',
    });
    expect(sent()).toEqual([`${sonnet}:sk-a`, `${sonnet}:sk-b`, `${sonnet}:sk-a`, `${sonnet}:sk-b`]);
    expect(auth.status().profiles[0]).toMatchObject({ state: 'ready', failureCounts: {}, models: [] });
  });

  it('a restart keeps the cooldowns: a second manager over the same storage skips the cooling key', async () => {
    const storage = createMemoryAuthStateStorage();
    const first = await manager(storage);
    fake.injectFault({ type: 'billing' }, { credential: 'sk-a' });
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 30 }, { credential: 'sk-b' });
    await run(first);
    expect(sent()).toEqual([`${sonnet}:sk-a`, `${sonnet}:sk-b`, `${sonnet}:sk-c`]);
    clock.now += 5000;
    const second = await manager(storage);
    expect(second.status().profiles.map((profile) => profile.state)).toEqual([
      'disabled',
      'cooling',
      'ready',
    ]);
    const result = await run(second);
    expect(result.profileId).toBe('anthropic:c');
    expect(sent().slice(3)).toEqual([`${sonnet}:sk-c`]);
  });

  it('one Agent across attempts: the next key continues the same turn (the gateway pattern)', async () => {
    const auth = await manager();
    fake.injectFault({ type: 'rate_limit' }, { credential: 'sk-a' });
    let key: AttemptCandidate['credential'];
    const agent = new Agent({ model: anthropicModel(sonnet), streamFn, getApiKey: () => key });
    const result = await auth.runWithFailover<AssistantMessage>({
      model: `anthropic/${sonnet}`,
      attempt: async (candidate) => {
        key = candidate.credential;
        agent.setModel(anthropicModel(candidate.model));
        if (candidate.attempt === 1) await agent.prompt('what is 2 + 2?');
        else {
          // Drop the failed assistant message and resume the turn with the new key.
          agent.replaceMessages(agent.state.messages.slice(0, -1));
          await agent.continue();
        }
        return outcomeFromAssistantMessage(agent.state.messages.at(-1) as AssistantMessage);
      },
    });
    expect(result.profileId).toBe('anthropic:b');
    expect(agent.state.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(textOf(agent.state.messages[1] as AssistantMessage)).toBe('what is 2 + 2?');
    expect(fake.messageRequests.map((request) => request.lastUserText)).toEqual([
      'what is 2 + 2?',
      'what is 2 + 2?',
    ]);
  });

  it('an explicit abort stops the run without rotating', async () => {
    const auth = await manager();
    fake.setLatency({ firstByteMs: 2000 });
    const controller = new AbortController();
    const pending = auth.runWithFailover<AssistantMessage>({
      model: `anthropic/${sonnet}`,
      fallbacks: [`anthropic/${haiku}`],
      signal: controller.signal,
      attempt: async (candidate) => {
        const agent = new Agent({
          model: anthropicModel(candidate.model),
          streamFn,
          getApiKey: () => candidate.credential,
        });
        candidate.signal?.addEventListener('abort', () => agent.abort(), { once: true });
        await agent.prompt('hello');
        return outcomeFromAssistantMessage(agent.state.messages.at(-1) as AssistantMessage);
      },
    });
    await fake.nextRequest();
    controller.abort();
    const error = await rejection(pending);
    fake.setLatency({});
    expect(error.code).toBe('AUTH_PROFILES_ABORTED');
    expect(sent()).toEqual([`${sonnet}:sk-a`]);
  });
});
