// Escape attempts against the real bubblewrap: each one must fail.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSandboxPolicy, type SandboxPolicyInput } from '../src/policy.ts';
import { createSandbox, type ExecOutcome } from '../src/sandbox.ts';
import { createFixture, requireBubblewrap } from './helpers.ts';

const fixture = createFixture();
const sandbox = createSandbox();
let server: Server;
let port = 0;

beforeAll(async () => {
  await requireBubblewrap();
  server = createServer((socket) => socket.end('gateway-port\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((resolve) => server.close(resolve));
});

async function run(
  command: string,
  policy: SandboxPolicyInput = {},
): Promise<Extract<ExecOutcome, { type: 'exited' }>> {
  const outcome = await sandbox.exec({
    sessionKey: 'agent:a:group',
    workspaceHostPath: fixture.workspace,
    policy: resolveSandboxPolicy(policy),
    command,
    timeoutSeconds: 60,
    yieldMs: 120_000,
  });
  if (outcome.type !== 'exited')
    throw new Error(`expected the command to exit, it was moved to the background: ${command}`);
  return outcome;
}

describe('the sandbox filesystem', () => {
  it('runs in the workspace at /workspace as an unprivileged user, and its files land in the workspace', async () => {
    const result = await run(
      'pwd; id -u; echo built > made.txt; mkdir -p sub && echo nested > sub/n.txt; cat made.txt',
    );
    expect(result.exit.exitCode).toBe(0);
    expect(result.output.split('\n').slice(0, 3)).toEqual(['/workspace', '1000', 'built']);
    expect(readFileSync(join(fixture.workspace, 'made.txt'), 'utf8')).toBe('built\n');
    expect(readFileSync(join(fixture.workspace, 'sub/n.txt'), 'utf8')).toBe('nested\n');
  });

  it('cannot read the state directory, the config or another agent workspace', async () => {
    const attempts = [
      `cat ${fixture.configPath}`,
      `ls ${fixture.stateDirectory}`,
      `cat ${join(fixture.otherWorkspace, 'secret.txt')}`,
      'cat ../workspace-b/secret.txt',
      'cat /workspace/../workspace-b/secret.txt',
      `ln -s ${fixture.configPath} config-link && cat config-link`,
    ];
    for (const command of attempts) {
      const result = await run(command);
      expect(result.exit.exitCode, command).not.toBe(0);
      expect(result.output, command).not.toContain(fixture.token);
    }
    const search = await run(
      `grep -rs ${fixture.token} / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr; echo searched`,
    );
    expect(search.output.trim()).toBe('searched');
  });

  it('cannot write outside the workspace: absolute paths, .., symlinks pointing out', async () => {
    const attempts = [
      'touch /escape',
      'touch /usr/escape',
      'echo x > /etc/escape',
      'touch /workspace/../escape',
      `touch ${join(fixture.stateDirectory, 'escape')}`,
      `ln -s ${fixture.stateDirectory} state-link && touch state-link/escape`,
      'ln -s / root-link && touch root-link/usr/escape',
      `ln -s ${fixture.otherWorkspace} other-link && echo owned > other-link/secret.txt`,
    ];
    for (const command of attempts) {
      const result = await run(command);
      expect(result.exit.exitCode, command).not.toBe(0);
    }
    expect(existsSync(join(fixture.stateDirectory, 'escape'))).toBe(false);
    expect(existsSync('/usr/escape')).toBe(false);
    expect(readFileSync(join(fixture.otherWorkspace, 'secret.txt'), 'utf8')).toContain('other agent');
  });

  it('gets a fresh /tmp for every command, never the host one', async () => {
    const hostMarker = join(tmpdir(), `host-marker-${process.pid}`);
    writeFileSync(hostMarker, 'host');
    const first = await run(
      `test -e ${hostMarker} && echo visible; echo scratch > /tmp/left-behind; ls /tmp`,
    );
    expect(first.output).not.toContain('visible');
    expect(first.output.trim()).toBe('left-behind');
    const second = await run('ls -A /tmp | wc -l');
    expect(second.output.trim()).toBe('0');
  });

  it('mounts the workspace read-only with workspaceAccess ro', async () => {
    const result = await run('cat made.txt && touch new-file', { workspaceAccess: 'ro' });
    expect(result.output).toContain('built');
    expect(result.exit.exitCode).not.toBe(0);
    expect(existsSync(join(fixture.workspace, 'new-file'))).toBe(false);
  });
});

describe('the sandbox process and network', () => {
  it('sees none of the host processes', async () => {
    const result = await run('for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < $f; echo; done');
    expect(result.exit.exitCode).toBe(0);
    expect(result.output).not.toMatch(/node|vitest/);
    const count = await run('ls -d /proc/[0-9]* | wc -l');
    expect(Number(count.output.trim())).toBeLessThan(10);
  });

  it('has no network by default: not the gateway port on 127.0.0.1, not the outside', async () => {
    const local = await run(`echo > /dev/tcp/127.0.0.1/${port} && echo connected`);
    expect(local.exit.exitCode).not.toBe(0);
    expect(local.output).not.toContain('connected');
    const outside = await run('timeout 5 bash -c "echo > /dev/tcp/1.1.1.1/53" && echo connected');
    expect(outside.output).not.toContain('connected');
    const interfaces = await run('cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "');
    expect(interfaces.output.trim()).toBe('lo');
  });

  it('reaches the network when the agent opts in', async () => {
    const result = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, { network: true });
    expect(result.exit.exitCode).toBe(0);
    expect(result.output).toContain('gateway-port');
  });

  it('passes a clean environment: the policy env and the call env, never the gateway secrets', async () => {
    process.env.SWITCHBOARD_TEST_SECRET = 'sk-must-not-leak';
    const outcome = await sandbox.exec({
      sessionKey: 'agent:a:group',
      workspaceHostPath: fixture.workspace,
      policy: resolveSandboxPolicy({ env: { FROM_POLICY: 'policy-value' } }),
      command: 'env',
      env: { FROM_CALL: 'call-value' },
    });
    if (outcome.type !== 'exited') throw new Error('expected exit');
    expect(outcome.output).not.toContain('sk-must-not-leak');
    expect(outcome.output).toContain('FROM_POLICY=policy-value');
    expect(outcome.output).toContain('FROM_CALL=call-value');
    expect(outcome.output).toContain('HOME=/workspace');
  });
});
