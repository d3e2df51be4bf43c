// Host exec approvals (issue 21): in an unsandboxed session (sandbox mode off) a command off
// tools.exec.allow waits for an operator: exec.approval.requested reaches operator clients,
// `switchboard approvals` answers, silence denies after the timeout, "always" is remembered.
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliIo, runCli } from '../src/cli/main.ts';
import { startTestGateway, type TestGateway } from './harness.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

const lastToolResult = (request: RecordedRequest | undefined): string =>
  JSON.stringify(request?.messages.at(-1)?.content ?? '');

async function start(
  approvalTimeoutSeconds: number,
  turns: NonNullable<Parameters<typeof startTestGateway>[0]>['model'],
) {
  const harness = await startTestGateway({
    config: {
      agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', sandbox: { mode: 'off' } } },
      tools: { exec: { allow: ['echo'], ask: 'on-miss', approvalTimeoutSeconds } },
    },
    model: turns,
  });
  running.push(harness);
  return harness;
}

async function cli(harness: TestGateway, argv: readonly string[]) {
  const out: string[] = [];
  const io: CliIo = {
    out: (text) => out.push(text),
    error: (text) => out.push(text),
    environment: {
      SWITCHBOARD_STATE_DIR: harness.stateDirectory,
      SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
    },
  };
  const code = await runCli(argv, io);
  return { code, output: out.join('') };
}

const callPrintf = {
  toolCalls: [{ name: 'exec', input: { command: 'printf', args: ['approved-%s', 'run'] } }],
};
const answerWithResult = (request: RecordedRequest) => ({ text: lastToolResult(request) });

describe('gateway: host exec approvals', () => {
  it('asks the operator for a command off the allowlist; allow-once from the CLI runs it', async () => {
    const harness = await start(120, { turns: [callPrintf, answerWithResult] });
    const client = await harness.connect();
    const reply = client.requestFinal('agent', { message: 'run printf', idempotencyKey: 'once' });
    const requested = await client.waitForEvent((event) => event.event === 'exec.approval.requested');
    const request = requested.payload as { id: string; command: string; args: string[]; agentId: string };
    expect(request).toMatchObject({ command: 'printf', args: ['approved-%s', 'run'], agentId: 'main' });

    const listed = await cli(harness, ['approvals']);
    expect(listed.code).toBe(0);
    expect(listed.output).toContain(`${request.id}  agent main  printf approved-%s run`);
    expect((await cli(harness, ['approvals', 'allow-once', request.id])).code).toBe(0);

    expect(JSON.stringify((await reply).final.payload)).toContain('approved-run');
    await client.waitForEvent((event) => event.event === 'exec.approval.resolved');
    expect((await cli(harness, ['approvals'])).output).toContain('No exec approvals waiting.');
    const late = await cli(harness, ['approvals', 'allow-once', request.id]);
    expect(late.code).not.toBe(0);
    expect(late.output).toContain(`no pending exec approval "${request.id}"`);
  });

  it('refuses when the operator denies, and when nobody answers in time', async () => {
    const harness = await start(1, { turns: [callPrintf, answerWithResult, callPrintf, answerWithResult] });
    const client = await harness.connect();
    const denied = client.requestFinal('agent', { message: 'run printf', idempotencyKey: 'deny' });
    const requested = await client.waitForEvent((event) => event.event === 'exec.approval.requested');
    await client.request('exec.approval.resolve', {
      id: (requested.payload as { id: string }).id,
      decision: 'deny',
    });
    expect(JSON.stringify((await denied).final.payload)).toContain('the operator denied running printf');
    expect(JSON.stringify((await denied).final.payload)).not.toContain('approved-run');

    const silent = await client.requestFinal('agent', { message: 'again', idempotencyKey: 'silence' });
    expect(JSON.stringify(silent.final.payload)).toContain('no operator approved printf within 1 s');
  });

  it('remembers allow-always for the agent and command: the next call does not ask', async () => {
    const harness = await start(120, { turns: [callPrintf, answerWithResult, callPrintf, answerWithResult] });
    const client = await harness.connect();
    const first = client.requestFinal('agent', { message: 'run printf', idempotencyKey: 'always-1' });
    const requested = await client.waitForEvent((event) => event.event === 'exec.approval.requested');
    expect(
      (await cli(harness, ['approvals', 'allow-always', (requested.payload as { id: string }).id])).code,
    ).toBe(0);
    expect(JSON.stringify((await first).final.payload)).toContain('approved-run');
    const second = await client.requestFinal('agent', { message: 'again', idempotencyKey: 'always-2' });
    expect(JSON.stringify(second.final.payload)).toContain('approved-run');
    expect(client.events.filter((event) => event.event === 'exec.approval.requested')).toHaveLength(1);
  });
});
