// Resource limits and lifetimes against the real bubblewrap.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBwrapArguments } from '../src/bwrap-arguments.ts';
import { resolveSandboxPolicy, type SandboxPolicyInput } from '../src/policy.ts';
import { findBubblewrap } from '../src/probe.ts';
import { createSandbox, type ExecOutcome } from '../src/sandbox.ts';
import { createFixture, hostProcessesWith, requireBubblewrap, waitFor } from './helpers.ts';

const fixture = createFixture();
const sandbox = createSandbox();

beforeAll(requireBubblewrap);
afterAll(() => sandbox.close());

async function run(
  command: string,
  policy: SandboxPolicyInput = {},
  timeoutSeconds = 60,
): Promise<Extract<ExecOutcome, { type: 'exited' }>> {
  const outcome = await sandbox.exec({
    sessionKey: 'agent:a:limits',
    workspaceHostPath: fixture.workspace,
    policy: resolveSandboxPolicy(policy),
    command,
    timeoutSeconds,
    yieldMs: 120_000,
  });
  if (outcome.type !== 'exited') throw new Error(`expected the command to exit: ${command}`);
  return outcome;
}

describe('sandbox limits', () => {
  it('kills a command that outlives its timeout, with everything it started', async () => {
    const marker = `${Date.now() % 100_000}.4242`;
    const started = Date.now();
    const result = await run(`sleep ${marker} & sleep ${marker}`, {}, 1);
    expect(result.exit.timedOut).toBe(true);
    expect(result.exit.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(15_000);
    await waitFor(
      () => hostProcessesWith(`sleep ${marker}`).length === 0,
      15_000,
      'the sandbox processes to go',
    );
  });

  it('stops a fork bomb at the process limit, and the host stays responsive', async () => {
    const bomb = sandbox.exec({
      sessionKey: 'agent:a:limits',
      workspaceHostPath: fixture.workspace,
      policy: resolveSandboxPolicy({ limits: { processes: 32 } }),
      command: 'bomb(){ bomb | bomb & }; bomb; sleep 2; ls -d /proc/[0-9]* | wc -l',
      timeoutSeconds: 30,
      yieldMs: 120_000,
    });
    // While the bomb runs, another sandbox still starts and answers.
    const other = await run('echo still-here');
    expect(other.output.trim()).toBe('still-here');
    const outcome = await bomb;
    if (outcome.type !== 'exited') throw new Error('expected exit');
    expect(outcome.output).toMatch(/Resource temporarily unavailable/);
    const counted = outcome.output.trim().split('\n').at(-1);
    if (counted !== undefined && /^\d+$/.test(counted)) expect(Number(counted)).toBeLessThanOrEqual(34);
    expect(sandbox.processLimit()).not.toBe('unenforced');
  }, 90_000);

  it('stops a memory hog at the memory limit', async () => {
    const result = await run('python3 -c "block = bytearray(512 * 1024 * 1024); print(\'allocated\')"', {
      limits: { memoryMegabytes: 256 },
    });
    expect(result.exit.exitCode).not.toBe(0);
    expect(result.output).toContain('MemoryError');
    expect(result.output).not.toContain('allocated');
  });

  it('caps the output, keeping the end, with a note saying how much was dropped', async () => {
    const result = await run('head -c 200000 /dev/zero | tr "\\0" x; echo; echo the-end', {
      limits: { outputBytes: 1000 },
    });
    expect(result.outputBytes).toBe(200_009);
    expect(result.droppedBytes).toBe(199_009);
    expect(result.output).toMatch(/^\[output truncated: the first 199009 of 200009 bytes were dropped/);
    expect(result.output.trimEnd().endsWith('the-end')).toBe(true);
  });

  it('sets the CPU, file size and open files limits', async () => {
    const result = await run('ulimit -t; ulimit -f; ulimit -n', {
      limits: { cpuSeconds: 7, fileSizeMegabytes: 3, openFiles: 99 },
    });
    // bash reports the file size in 1024-byte blocks.
    expect(result.output.trim().split('\n')).toEqual(['7', String(3 * 1024), '99']);
  });

  it('dies with its parent: a killed gateway leaves no sandbox behind', async () => {
    const marker = `${Date.now() % 100_000}.5353`;
    const bwrapArguments = buildBwrapArguments({
      workspaceHostPath: fixture.workspace,
      workspaceWritable: true,
      network: false,
      readOnlyPaths: [],
      workdir: '/workspace',
      limits: resolveSandboxPolicy().limits,
      command: `sleep ${marker}`,
    });
    // A stand-in gateway: a Node process that starts the sandbox and is then SIGKILLed.
    const script = `require('node:child_process').spawn(${JSON.stringify(findBubblewrap())}, ${JSON.stringify(bwrapArguments)}, { stdio: 'ignore' }); setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    // Wait for the command itself: bwrap has set its parent-death signal before it runs it.
    await waitFor(
      () => hostProcessesWith(`sleep ${marker}`, true).length > 0,
      15_000,
      'the sandbox to start',
    );
    parent.kill('SIGKILL');
    await waitFor(
      () => hostProcessesWith(`sleep ${marker}`).length === 0,
      15_000,
      'the sandbox to die with its parent',
    );
  });
});
