// Background jobs: they outlive the call that started them, belong to their session, and die with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxError } from '../src/errors.ts';
import { resolveSandboxPolicy } from '../src/policy.ts';
import { createSandbox, type ExecRequest } from '../src/sandbox.ts';
import { createFixture, hostProcessesWith, requireBubblewrap, waitFor } from './helpers.ts';

const fixture = createFixture();
const sandbox = createSandbox();
const session = 'agent:a:telegram:group:1';

beforeAll(requireBubblewrap);
afterAll(() => sandbox.close());

const request = (command: string, extra: Partial<ExecRequest> = {}): ExecRequest => ({
  sessionKey: session,
  workspaceHostPath: fixture.workspace,
  policy: resolveSandboxPolicy({ limits: { maxBackgroundJobs: 2 } }),
  command,
  ...extra,
});

describe('background jobs', () => {
  it('keeps running after exec returns; list, poll new output, kill', async () => {
    const marker = `${Date.now() % 100_000}.6161`;
    const outcome = await sandbox.exec(
      request(`for i in 1 2 3; do echo tick $i; sleep 0.1; done; sleep ${marker}`, { background: true }),
    );
    if (outcome.type !== 'backgrounded') throw new Error('expected a background job');
    const { jobId } = outcome.job;
    expect(sandbox.processes.list(session).map((job) => [job.jobId, job.status])).toEqual([
      [jobId, 'running'],
    ]);
    let seen = '';
    await waitFor(() => {
      seen += sandbox.processes.poll(session, jobId).text;
      return seen.includes('tick 3');
    });
    expect(seen).toBe('tick 1\ntick 2\ntick 3\n');
    expect(sandbox.processes.poll(session, jobId).text).toBe('');
    expect(sandbox.processes.log(session, jobId).text).toBe('tick 1\ntick 2\ntick 3\n');
    expect(hostProcessesWith(`sleep ${marker}`).length).toBeGreaterThan(0);
    const killed = await sandbox.processes.kill(session, jobId);
    expect(killed.status).toBe('exited');
    expect(killed.exit?.killed).toBe(true);
    await waitFor(() => hostProcessesWith(`sleep ${marker}`).length === 0);
  });

  it('is invisible to other sessions', async () => {
    const outcome = await sandbox.exec(request('sleep 300', { background: true }));
    if (outcome.type !== 'backgrounded') throw new Error('expected a background job');
    expect(sandbox.processes.list('agent:b:main')).toEqual([]);
    expect(() => sandbox.processes.poll('agent:b:main', outcome.job.jobId)).toThrow(SandboxError);
    await expect(sandbox.processes.kill('agent:b:main', outcome.job.jobId)).rejects.toMatchObject({
      code: 'SANDBOX_JOB_NOT_FOUND',
    });
    expect(sandbox.processes.list(session).find((job) => job.jobId === outcome.job.jobId)?.status).toBe(
      'running',
    );
    await sandbox.processes.killSession(session);
  });

  it('takes stdin with write', async () => {
    const outcome = await sandbox.exec(request('read line; echo "got $line"', { background: true }));
    if (outcome.type !== 'backgrounded') throw new Error('expected a background job');
    await sandbox.processes.write(session, outcome.job.jobId, 'hello\n', true);
    await waitFor(() => sandbox.processes.list(session).some((job) => job.status === 'exited'));
    expect(sandbox.processes.log(session, outcome.job.jobId).text).toBe('got hello\n');
    await sandbox.processes.killSession(session);
  });

  it('moves a foreground command still running after yieldMs to the background', async () => {
    const outcome = await sandbox.exec(request('echo started; sleep 300', { yieldMs: 300 }));
    expect(outcome.type).toBe('backgrounded');
    if (outcome.type !== 'backgrounded') return;
    await waitFor(() => sandbox.processes.log(session, outcome.job.jobId).text.includes('started'));
    await expect(sandbox.processes.write(session, outcome.job.jobId, 'x', false)).rejects.toMatchObject({
      code: 'SANDBOX_JOB_STDIN_CLOSED',
    });
    await sandbox.processes.killSession(session);
  });

  it('caps the running jobs of a session', async () => {
    await sandbox.exec(request('sleep 300', { background: true }));
    await sandbox.exec(request('sleep 300', { background: true }));
    await expect(sandbox.exec(request('sleep 300', { background: true }))).rejects.toMatchObject({
      code: 'SANDBOX_JOB_LIMIT',
    });
    await sandbox.processes.killSession(session);
  });

  it('does not outlive its session: a reset kills its jobs and forgets them', async () => {
    const marker = `${Date.now() % 100_000}.7171`;
    await sandbox.exec(request(`sleep ${marker}`, { background: true }));
    await waitFor(() => hostProcessesWith(`sleep ${marker}`).length > 0);
    expect(await sandbox.processes.killSession(session)).toBe(1);
    expect(sandbox.processes.list(session)).toEqual([]);
    expect(hostProcessesWith(`sleep ${marker}`)).toEqual([]);
  });

  it('dies when the sandbox closes (the gateway stopping)', async () => {
    const other = createSandbox();
    const marker = `${Date.now() % 100_000}.8181`;
    await other.exec(request(`sleep ${marker}`, { background: true }));
    await waitFor(() => hostProcessesWith(`sleep ${marker}`).length > 0);
    await other.close();
    expect(hostProcessesWith(`sleep ${marker}`)).toEqual([]);
  });

  it('refuses to run when bubblewrap is missing, and never falls back to the host', async () => {
    const missing = createSandbox({ bwrapPath: '/nonexistent/bwrap' });
    await expect(missing.exec(request('touch host-fallback'))).rejects.toMatchObject({
      code: 'SANDBOX_UNAVAILABLE',
    });
    expect((await missing.probe()).usable).toBe(false);
  });

  it('rejects a workdir outside /workspace and /tmp', async () => {
    await expect(sandbox.exec(request('pwd', { workdir: '../..' }))).rejects.toMatchObject({
      code: 'SANDBOX_INVALID_ARGUMENT',
    });
    const inside = await sandbox.exec(request('mkdir -p deep/er && cd deep && pwd'));
    expect(inside.output.trim()).toBe('/workspace/deep');
    const sub = await sandbox.exec(request('pwd', { workdir: 'deep/er' }));
    expect(sub.output.trim()).toBe('/workspace/deep/er');
  });
});
