// sessions_send across a crash (issue 23): the gateway runs as a child process and is SIGKILLed
// while the target session works on the message. After the restart the target answers it once,
// and the sender's resumed turn gets that reply instead of sending the message again.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { lastIsToolResult } from './model-requests.ts';
import { payloadOf } from './protocol-client.ts';

const token = 'session-send-crash-token-0123456789';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function transcript(gateway: ChildGateway, sessionKey: string): Promise<string[]> {
  const client = await gateway.client();
  const response = await client.request('chat.history', { sessionKey });
  return payloadOf<{ messages: Array<{ role: string; content: unknown }> }>(response).messages.map(
    (message) =>
      `${message.role}: ${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`,
  );
}

describe('sessions_send across a crash', () => {
  it('SIGKILL while the target works: after the restart it answers once and the sender gets the reply', async () => {
    let targetRequests = 0;
    const model = await createFakeAnthropic({
      fallback: (request) => {
        const text = request.lastUserText ?? '';
        if (lastIsToolResult(request)) {
          const result = JSON.stringify(request.messages.at(-1)?.content);
          return { text: `other says: ${/researcher answers (\d+)/.exec(result)?.[1] ?? 'nothing'}` };
        }
        if (text.startsWith('[Message from session')) {
          targetRequests += 1;
          // The first attempt hangs until the crash; the one after the restart answers.
          return {
            text: 'researcher answers 42',
            ...(targetRequests === 1 ? { latency: { firstByteMs: 120_000 } } : {}),
          };
        }
        if (text === 'ask the other session')
          return {
            toolCalls: [
              {
                name: 'sessions_send',
                input: {
                  sessionKey: 'agent:main:other',
                  message: 'what is six times seven?',
                  timeoutSeconds: 120,
                },
              },
            ],
          };
        return { text: 'hello back' };
      },
    }).start();
    cleanups.push(() => model.close());
    const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-session-send-crash-'));
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
      }),
    );
    const gateway = await startChildGateway({ stateDirectory, token });
    cleanups.push(() => gateway.kill('SIGKILL'));

    const client = await gateway.client();
    const hello = await client.requestFinal('agent', {
      message: 'hi',
      idempotencyKey: 'hello-other',
      sessionKey: 'agent:main:other',
    });
    expect(hello.final.ok).toBe(true);
    const asked = await client.request('chat.send', {
      sessionKey: 'agent:main:main',
      message: 'ask the other session',
      idempotencyKey: 'ask-1',
    });
    expect(asked.ok).toBe(true);
    await expect.poll(() => targetRequests, { timeout: 30_000, interval: 50 }).toBe(1);

    await gateway.restart();
    await expect
      .poll(async () => (await transcript(gateway, 'agent:main:main')).at(-1), {
        timeout: 60_000,
        interval: 200,
      })
      .toBe('assistant: [{"type":"text","text":"other says: 42"}]');
    await gateway.settle(30_000);

    const other = await transcript(gateway, 'agent:main:other');
    expect(other.filter((line) => line.includes('what is six times seven?'))).toHaveLength(1);
    expect(other.filter((line) => line.includes('researcher answers 42'))).toHaveLength(1);
    expect(targetRequests).toBe(2);
  }, 120_000);
});
