// `switchboard subagents list | kill | log` (issue 23) against a real gateway over its
// protocol methods.
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodes } from '../src/cli/main.ts';
import { runCliOn, startTestGateway, type TestGateway } from './harness.ts';
import { lastIsToolResult } from './model-requests.ts';
import { payloadOf } from './protocol-client.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

function brain(request: RecordedRequest) {
  const text = request.lastUserText ?? '';
  if (lastIsToolResult(request)) return { text: 'started' };
  if (text.startsWith('[Subagent result')) return { text: 'relayed' };
  const delegated = /^delegate: (\w+)$/.exec(text)?.[1];
  if (delegated !== undefined)
    return {
      toolCalls: [{ name: 'sessions_spawn', input: { task: `CHILD ${delegated}`, label: delegated } }],
    };
  if (text === 'CHILD slow') return { text: 'too late', latency: { firstByteMs: 120_000 } };
  if (text.startsWith('CHILD ')) return { text: `done ${text.slice(6)}` };
  return { text: 'ok' };
}

describe('switchboard subagents', () => {
  it('lists runs, prints a run log page by page, and kills a running run', async () => {
    const harness = await startTestGateway({
      config: { agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } } },
      model: { fallback: brain },
    });
    running.push(harness);
    const client = await harness.connect();
    expect((await runCliOn(['subagents', 'list'], harness)).stdout).toBe('No subagent runs.\n');

    const ask = (message: string) =>
      client.requestFinal('agent', { message, idempotencyKey: message, sessionKey: 'agent:main:main' });
    await ask('delegate: quick');
    await expect
      .poll(
        async () =>
          payloadOf<{ runs: Array<{ announce: { state: string } }> }>(
            await client.request('subagents.list', {}),
          ).runs[0]?.announce.state,
        { timeout: 20_000, interval: 100 },
      )
      .toBe('delivered');
    await ask('delegate: slow');

    const listed = await runCliOn(['subagents', 'list'], harness);
    expect(listed.code).toBe(exitCodes.ok);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^#1 [0-9a-f]{8} running \d+s {2}slow \(agent main\)$/);
    expect(lines[1]).toBe('   requester agent:main:main');
    expect(lines[2]).toMatch(/^#2 [0-9a-f]{8} ok, delivered \d+s {2}quick \(agent main\)$/);
    const json = JSON.parse((await runCliOn(['subagents', 'list', '--json'], harness)).stdout) as {
      runs: Array<{ runId: string; label: string; outcome?: string }>;
    };
    expect(json.runs.map((run) => [run.label, run.outcome])).toEqual([
      ['slow', undefined],
      ['quick', 'ok'],
    ]);
    const [slow, quick] = json.runs;

    const log = await runCliOn(['subagents', 'log', '#2'], harness);
    expect(log.code).toBe(exitCodes.ok);
    expect(log.stdout).toBe(
      `Run ${quick!.runId} (ok): ${(await payloadOf<{ runs: Array<{ childSessionKey: string }> }>(await client.request('subagents.list', {}))).runs[1]!.childSessionKey}\nuser: CHILD quick\nassistant: done quick\n`,
    );
    const page = await runCliOn(['subagents', 'log', quick!.runId.slice(0, 6), '--limit', '1'], harness);
    expect(page.stdout).toContain('\nassistant: done quick\n(older messages: switchboard subagents log ');
    expect(page.stdout).not.toContain('user: CHILD quick');
    const older = /--before (\d+)/.exec(page.stdout)?.[1];
    const back = await runCliOn(['subagents', 'log', quick!.runId, '--before', older!], harness);
    expect(back.stdout).toContain('\nuser: CHILD quick\n');
    expect(back.stdout).not.toContain('done quick');

    const missing = await runCliOn(['subagents', 'log', 'ffffffff'], harness);
    expect(missing.code).toBe(exitCodes.notFound);
    expect(missing.stderr).toContain('no run matches "ffffffff"');
    expect((await runCliOn(['subagents', 'kill'], harness)).code).toBe(exitCodes.usage);
    expect((await runCliOn(['subagents', 'log', '#1', '--limit', 'zero'], harness)).code).toBe(
      exitCodes.usage,
    );

    const killed = await runCliOn(['subagents', 'kill', '#1'], harness);
    expect(killed.code).toBe(exitCodes.ok);
    expect(killed.stdout).toBe(`Stopped: ${slow!.runId}\n`);
    await expect
      .poll(
        async () =>
          payloadOf<{ runs: Array<{ runId: string; outcome?: string }> }>(
            await client.request('subagents.list', {}),
          ).runs.find((run) => run.runId === slow!.runId)?.outcome,
        { timeout: 20_000, interval: 100 },
      )
      .toBe('killed');
    expect((await runCliOn(['subagents', 'kill', 'all'], harness)).stdout).toBe(
      'Nothing to stop: no running run matches.\n',
    );
  });
});
