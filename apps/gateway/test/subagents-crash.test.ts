// Subagent results survive crashes (issue 23): the gateway runs as a child process and is
// SIGKILLed while a child runs, after the child ended but before the hand-off, and right
// after the hand-off; after each restart the requester's transcript holds the result
// exactly once, followed by the requester's answer.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFakeAnthropic,
  type FakeAnthropic,
  type RecordedRequest,
} from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { payloadOf } from './protocol-client.ts';

const token = 'subagent-crash-token-0123456789';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

const lastIsToolResult = (request: RecordedRequest): boolean => {
  const last = request.messages.at(-1);
  return (
    last?.role === 'user' &&
    Array.isArray(last.content) &&
    last.content.some((block) => (block as { type: string }).type === 'tool_result')
  );
};

async function startFixture(options: { environment?: NodeJS.ProcessEnv; slowFirstChildMs?: number }) {
  let childRequests = 0;
  const model: FakeAnthropic = await createFakeAnthropic({
    fallback: (request) => {
      const text = request.lastUserText ?? '';
      if (lastIsToolResult(request)) return { text: 'A helper is on it.' };
      if (text.startsWith('[Subagent result')) return { text: `Relayed: ${/Result:\n(.*)/.exec(text)?.[1]}` };
      if (text.startsWith('CHILD ')) {
        childRequests += 1;
        const slow = childRequests === 1 ? options.slowFirstChildMs : undefined;
        return { text: 'child says 42', latency: slow === undefined ? undefined : { firstByteMs: slow } };
      }
      return { toolCalls: [{ name: 'sessions_spawn', input: { task: 'CHILD compute' } }] };
    },
  }).start();
  cleanups.push(() => model.close());
  const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-subagent-crash-'));
  writeFileSync(
    join(stateDirectory, 'switchboard.json'),
    JSON.stringify({
      gateway: { port: 0, auth: { mode: 'token', token } },
      models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
      agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
    }),
  );
  const gateway: ChildGateway = await startChildGateway({
    stateDirectory,
    token,
    environment: options.environment,
  });
  cleanups.push(() => gateway.kill('SIGKILL'));
  return { model, gateway };
}

/** The requester's transcript, as user/assistant texts. */
async function history(gateway: ChildGateway): Promise<Array<{ role: string; text: string }>> {
  const client = await gateway.client();
  const response = await client.request('chat.history', { sessionKey: 'agent:main:main' });
  return payloadOf<{ messages: Array<{ role: string; content: unknown }> }>(response).messages.map(
    (message) => ({
      role: message.role,
      text:
        typeof message.content === 'string'
          ? message.content
          : (message.content as Array<{ type: string; text?: string }>)
              .map((block) => (block.type === 'text' ? (block.text ?? '') : ''))
              .join(''),
    }),
  );
}

async function expectAnnouncedOnce(gateway: ChildGateway): Promise<void> {
  await expect
    .poll(
      async () =>
        (await history(gateway)).filter((message) => message.text === 'Relayed: child says 42').length,
      { timeout: 30_000, interval: 200 },
    )
    .toBe(1);
  await gateway.settle(30_000);
  const messages = await history(gateway);
  const announcements = messages.filter((message) => message.text.startsWith('[Subagent result'));
  expect(announcements).toHaveLength(1);
  expect(messages.filter((message) => message.text === 'Relayed: child says 42')).toHaveLength(1);
  const client = await gateway.client();
  const runs = payloadOf<{ runs: Array<{ outcome?: string; announce: { state: string } }> }>(
    await client.request('subagents.list', {}),
  ).runs;
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({ outcome: 'ok', announce: { state: 'delivered' } });
}

async function delegate(gateway: ChildGateway): Promise<void> {
  const client = await gateway.client();
  const response = await client.request('chat.send', {
    sessionKey: 'agent:main:main',
    message: 'please delegate',
    idempotencyKey: 'ask-1',
  });
  expect(response.ok).toBe(true);
}

describe('subagents across crashes', () => {
  it('SIGKILL while the child runs: after the restart the child finishes and is announced once', async () => {
    const { model, gateway } = await startFixture({ slowFirstChildMs: 60_000 });
    await delegate(gateway);
    await expect
      .poll(() => model.requests.some((request) => request.lastUserText?.startsWith('CHILD ')), {
        timeout: 30_000,
        interval: 50,
      })
      .toBe(true);
    // The requester's own turn is over (its spawn is persisted); only the child is running.
    const client = await gateway.client();
    const waited = await client.request('agent.wait', { runId: 'ask-1', timeoutMs: 30_000 });
    expect(payloadOf<{ status: string }>(waited).status).toBe('ok');
    await gateway.restart();
    await expectAnnouncedOnce(gateway);
  }, 90_000);

  for (const point of ['subagent-before-announce', 'subagent-after-announce'] as const) {
    it(`SIGKILL at ${point}: after the restart the result is announced exactly once`, async () => {
      const { gateway } = await startFixture({ environment: { SWITCHBOARD_TEST_CRASH_AT: point } });
      await delegate(gateway);
      expect(await gateway.waitForExit(30_000)).toBe('SIGKILL');
      await gateway.restart({});
      await expectAnnouncedOnce(gateway);
    }, 90_000);
  }
});
