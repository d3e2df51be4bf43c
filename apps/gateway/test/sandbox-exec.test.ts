// The agent's shell end to end (issue 21): the fake Anthropic model calls `exec`, the command
// runs in bubblewrap in the agent's workspace (mounted at /workspace), escapes fail, background
// jobs outlive the turn and die with their session, and operators see the sandbox's state.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeBubblewrap } from '@switchboard/sandbox';
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, runCli } from '../src/cli/main.ts';
import { startTestGateway, type TestGateway } from './harness.ts';

const gatewayToken = 'test-gateway-token-0123456789';

beforeAll(async () => {
  const probe = await probeBubblewrap();
  if (!probe.usable) {
    throw new Error(
      `These tests run the real bubblewrap: ${probe.reason} (CI: scripts/install-test-packages.sh installs it)`,
    );
  }
});

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

async function start(
  config: Record<string, unknown>,
  turns: NonNullable<Parameters<typeof startTestGateway>[0]>['model'],
) {
  const harness = await startTestGateway({ config, model: turns });
  running.push(harness);
  return harness;
}

/** The text of the tool result the request ends with. */
function lastToolResult(request: RecordedRequest): string {
  return JSON.stringify(request.messages.at(-1)?.content ?? '');
}

function hostProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(marker))
        found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('gateway: sandboxed exec', () => {
  it('completes a multi-step shell task in the sandbox, in the agent workspace', async () => {
    const harness = await start(
      {},
      {
        turns: [
          {
            toolCalls: [
              {
                name: 'exec',
                input: {
                  command:
                    'mkdir -p tools && printf \'#!/bin/bash\\necho "sum=$((20+22))"\\n\' > tools/sum.sh && chmod +x tools/sum.sh && pwd && id -u',
                },
              },
            ],
          },
          {
            toolCalls: [
              { name: 'exec', input: { command: './tools/sum.sh > result.txt && cat result.txt' } },
            ],
          },
          // The file tools see what exec sees.
          { toolCalls: [{ name: 'read', input: { path: 'result.txt' } }] },
          (request) => ({
            text: `the answer: ${/sum=(\d+)/.exec(lastToolResult(request))?.[1] ?? 'missing'}`,
          }),
        ],
      },
    );
    const client = await harness.connect();
    const reply = await client.requestFinal('agent', {
      message: 'add 20 and 22 with a script',
      idempotencyKey: 'one',
    });
    expect(reply.final.payload).toMatchObject({
      status: 'ok',
      result: { payloads: [{ text: 'the answer: 42' }] },
    });
    const [first, second, third] = harness.model.messageRequests;
    expect(first?.toolNames).toEqual(expect.arrayContaining(['exec', 'process', 'read']));
    expect(lastToolResult(second as RecordedRequest)).toContain('exit 0\\n/workspace\\n1000');
    expect(lastToolResult(third as RecordedRequest)).toContain('sum=42');
    const workspace = join(harness.stateDirectory, 'workspace');
    expect(readFileSync(join(workspace, 'result.txt'), 'utf8')).toBe('sum=42\n');
  });

  it('keeps the config, the token and the gateway port out of reach', async () => {
    let stateDirectory = '';
    let port = '';
    const harness = await start(
      {},
      {
        turns: [
          () => ({
            toolCalls: [
              {
                name: 'exec',
                input: {
                  command: `cat ${stateDirectory}/switchboard.json; ls ${stateDirectory}; echo > /dev/tcp/127.0.0.1/${port} && echo reached-gateway; echo done`,
                },
              },
            ],
          }),
          { text: 'tried' },
        ],
      },
    );
    stateDirectory = harness.stateDirectory;
    port = new URL(harness.gateway.url).port;
    const client = await harness.connect();
    await client.requestFinal('agent', { message: 'look around', idempotencyKey: 'escape' });
    const result = lastToolResult(harness.model.messageRequests[1] as RecordedRequest);
    expect(result).toContain('done');
    expect(result).toContain('No such file or directory');
    expect(result).not.toContain(gatewayToken);
    expect(result).not.toContain('reached-gateway');
  });

  it('lets one agent opt in to the network, and reports the sandbox state to operators', async () => {
    let port = '';
    const harness = await start(
      {
        agents: {
          defaults: { model: 'anthropic/claude-sonnet-4-6' },
          list: [{ id: 'main', sandbox: { network: true } }],
        },
      },
      {
        turns: [
          () => ({
            toolCalls: [
              {
                name: 'exec',
                input: { command: `echo > /dev/tcp/127.0.0.1/${port} && echo reached-gateway` },
              },
            ],
          }),
          { text: 'ok' },
        ],
      },
    );
    port = new URL(harness.gateway.url).port;
    const client = await harness.connect();
    await client.requestFinal('agent', { message: 'ping the gateway', idempotencyKey: 'network' });
    expect(lastToolResult(harness.model.messageRequests[1] as RecordedRequest)).toContain('reached-gateway');
    const status = await client.request('sandbox.status', {});
    expect(status.payload).toMatchObject({
      bubblewrap: { usable: true },
      agents: [{ agentId: 'main', mode: 'all', workspaceAccess: 'rw', network: true }],
    });
    const out: string[] = [];
    const io: CliIo = {
      out: (text) => out.push(text),
      error: (text) => out.push(text),
      environment: {
        SWITCHBOARD_STATE_DIR: harness.stateDirectory,
        SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
      },
    };
    expect(await runCli(['sandbox', 'status'], io)).toBe(0);
    expect(out.join('')).toMatch(/bubblewrap \S+ at \S+: usable/);
    expect(out.join('')).toContain('agent main: mode all, workspace rw, network on');
  });

  it('keeps a background job running after the turn, lists it in the next one, and kills it on reset', async () => {
    const marker = `${Date.now() % 100_000}.9191`;
    const harness = await start(
      {},
      {
        turns: [
          { toolCalls: [{ name: 'exec', input: { command: `sleep ${marker}`, background: true } }] },
          { text: 'started' },
          { toolCalls: [{ name: 'process', input: { action: 'list' } }] },
          (request) => ({ text: lastToolResult(request) }),
        ],
      },
    );
    const client = await harness.connect();
    await client.requestFinal('agent', { message: 'start a server', idempotencyKey: 'bg-1' });
    await harness.settle();
    expect(hostProcessesWith(`sleep ${marker}`).length).toBeGreaterThan(0);
    const listed = await client.requestFinal('agent', { message: 'is it running?', idempotencyKey: 'bg-2' });
    expect(JSON.stringify(listed.final.payload)).toMatch(
      new RegExp(`job-\\d+ running \\(pid \\d+\\): sleep ${marker.replace('.', '\\.')}`),
    );
    await client.request('sessions.reset', { key: 'agent:main:main' });
    await until(() => hostProcessesWith(`sleep ${marker}`).length === 0, 'the job to die with its session');
    await until(
      async () =>
        ((await client.request('sandbox.status', {})).payload as { runningJobs: number }).runningJobs === 0,
      'the registry to see the job gone',
    );
  });

  it('gives unsandboxed sessions only the host allowlist (mode off), and no process tool', async () => {
    const harness = await start(
      {
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', sandbox: { mode: 'off' } } },
        tools: { exec: { allow: ['echo'] } },
      },
      {
        turns: [
          { toolCalls: [{ name: 'exec', input: { command: 'echo', args: ['$(id)'] } }] },
          (request) => ({ text: lastToolResult(request) }),
        ],
      },
    );
    const client = await harness.connect();
    const reply = await client.requestFinal('agent', { message: 'echo', idempotencyKey: 'host' });
    expect(harness.model.messageRequests[0]?.toolNames).toContain('exec');
    expect(harness.model.messageRequests[0]?.toolNames).not.toContain('process');
    expect(JSON.stringify(reply.final.payload)).toContain('$(id)');
  });
});
