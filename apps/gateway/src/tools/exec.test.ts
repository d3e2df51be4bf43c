import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAllowedCommand } from './exec.ts';

const cwd = mkdtempSync(join(tmpdir(), 'switchboard-exec-'));
writeFileSync(join(cwd, 'a.txt'), 'alpha');

describe('exec tool', () => {
  it('is off unless commands are allowlisted', () => {
    expect(() => runAllowedCommand('ls', [], { allow: [], cwd })).toThrow(/exec is disabled/);
  });

  it('runs an allowlisted command in the workspace without a shell', async () => {
    const result = await runAllowedCommand('ls', ['-1'], { allow: ['ls', 'echo'], cwd });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe('a.txt');
    const injected = await runAllowedCommand('echo', ['$(id); rm -rf /'], { allow: ['echo'], cwd });
    expect(injected.stdout.trim()).toBe('$(id); rm -rf /');
  });

  it('refuses commands off the list and paths', () => {
    expect(() => runAllowedCommand('rm', ['-rf', '.'], { allow: ['ls'], cwd })).toThrow(/not allowlisted/);
    expect(() => runAllowedCommand('/bin/ls', [], { allow: ['ls'], cwd })).toThrow(/bare command name/);
  });

  it('passes no secrets in the environment and enforces the timeout', async () => {
    process.env.SWITCHBOARD_TEST_SECRET = 'sk-should-not-leak';
    const environment = await runAllowedCommand('env', [], { allow: ['env'], cwd });
    expect(environment.stdout).not.toContain('sk-should-not-leak');
    const slow = await runAllowedCommand('sleep', ['5'], { allow: ['sleep'], cwd, timeoutMs: 100 });
    expect(slow.timedOut).toBe(true);
  });
});
