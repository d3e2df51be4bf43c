// The subagent hooks (issue 23): `subagent_spawned` when a run is accepted, `subagent_ended`
// once when it ends, carrying the runtime's outcome (ok, error, timeout, killed), never one
// guessed from the child's text.
import { definePlugin, type SubagentEndedEvent, type SubagentSpawnedEvent } from '@switchboard/hooks';
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { lastIsToolResult } from './model-requests.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

function brain(request: RecordedRequest) {
  const text = request.lastUserText ?? '';
  if (lastIsToolResult(request)) return { text: 'started' };
  if (text.startsWith('[Subagent result')) return { text: 'relayed' };
  const spawn = /^spawn: (\w+)(?: within (\d+))?$/.exec(text);
  if (spawn !== null)
    return {
      toolCalls: [
        {
          name: 'sessions_spawn',
          input: {
            task: `CHILD ${spawn[1]}`,
            label: spawn[1],
            ...(spawn[2] === undefined ? {} : { runTimeoutSeconds: Number(spawn[2]) }),
          },
        },
      ],
    };
  // The child of "fail" says it succeeded while its model call fails: the outcome is the runtime's.
  if (text === 'CHILD fail')
    return {
      text: 'all fine, no error here',
      fault: {
        type: 'http' as const,
        status: 400,
        errorType: 'invalid_request_error',
        message: 'bad child request',
      },
    };
  if (text === 'CHILD slow') return { text: 'finished in time', latency: { firstByteMs: 8000 } };
  if (text.startsWith('CHILD ')) return { text: `done ${text.slice(6)}` };
  return { text: 'ok' };
}

describe('subagent hooks', () => {
  it('subagent_spawned fires on accept and subagent_ended once per run with ok, timeout and error from the runtime', async () => {
    const spawned: SubagentSpawnedEvent[] = [];
    const ended: SubagentEndedEvent[] = [];
    const recorder = definePlugin({
      name: 'subagent-recorder',
      version: '1.0.0',
      specVersion: 1,
      setup(api) {
        api.on('subagent_spawned', (event) => {
          spawned.push(event);
        });
        api.on('subagent_ended', (event) => {
          ended.push(event);
        });
      },
    });
    const harness = await startTestGateway({
      plugins: [recorder],
      config: { agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } } },
      model: { fallback: brain },
    });
    running.push(harness);
    const client = await harness.connect();
    const spawnFrom = async (message: string) => {
      const { final } = await client.requestFinal('agent', {
        message,
        idempotencyKey: message,
        sessionKey: 'agent:main:main',
      });
      expect(final.ok).toBe(true);
    };

    await spawnFrom('spawn: quick');
    // Fires when the spawn is accepted, before the child can have ended.
    expect(spawned).toHaveLength(1);
    expect(spawned[0]).toEqual({
      runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      childSessionKey: expect.stringMatching(/^agent:main:subagent:[0-9a-f-]{36}$/),
      agentId: 'main',
      requesterSessionKey: 'agent:main:main',
      requesterAgentId: 'main',
      task: 'CHILD quick',
      label: 'quick',
      model: 'anthropic/claude-sonnet-4-6',
      depth: 1,
    });
    await expect.poll(() => ended.length, { timeout: 20_000 }).toBe(1);
    expect(ended[0]).toEqual({
      runId: spawned[0]!.runId,
      childSessionKey: spawned[0]!.childSessionKey,
      agentId: 'main',
      requesterSessionKey: 'agent:main:main',
      outcome: 'ok',
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
    });
    expect(ended[0]!.endedAt).toBeGreaterThanOrEqual(ended[0]!.startedAt);

    await spawnFrom('spawn: slow within 1');
    await expect.poll(() => ended.length, { timeout: 30_000 }).toBe(2);
    expect(ended[1]).toMatchObject({
      runId: spawned[1]!.runId,
      outcome: 'timeout',
      error: expect.any(String),
    });

    await spawnFrom('spawn: fail');
    await expect.poll(() => ended.length, { timeout: 30_000 }).toBe(3);
    expect(ended[2]).toMatchObject({
      runId: spawned[2]!.runId,
      outcome: 'error',
      error: expect.stringContaining('bad child request'),
    });

    // Once per run: the announcements and cleanups that follow fire nothing more.
    await harness.settle(30_000);
    expect(spawned).toHaveLength(3);
    expect(ended.map((event) => event.runId)).toEqual(spawned.map((event) => event.runId));
  });
});
