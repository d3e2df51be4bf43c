// The commands a new operator copies work as written: README.md, AGENTS.md and .ci/run install
// exactly the pnpm that package.json pins (another 10.x tries to switch to the pinned one and
// can refuse), and CI runs the README's test command itself rather than a copy of it.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readmeCommand, readRootFile, repositoryRoot } from './readme.ts';

const packageManager = String(
  (JSON.parse(readRootFile('package.json')) as { packageManager?: unknown }).packageManager,
);
const pinned = /^pnpm@(\d+\.\d+\.\d+)(\+.*)?$/.exec(packageManager)?.[1] ?? '';

/** Every pnpm version a file names (`pnpm@10`, `pnpm@10.34.8`, `pnpm@latest`). */
const pnpmVersionsIn = (text: string): string[] =>
  [...text.matchAll(/pnpm@([\w.+$-]+)/g)].map((match) => match[1] ?? '');

describe('the install commands', () => {
  it('package.json pins an exact pnpm version', () => {
    expect(packageManager).toMatch(/^pnpm@\d+\.\d+\.\d+(\+.*)?$/);
  });

  it('both README commands install exactly that pnpm, and README.md and AGENTS.md name no other', () => {
    const prefix = `npm install -g pnpm@${pinned} && pnpm install && `;
    expect(readmeCommand('Start the gateway')).toBe(`${prefix}pnpm start`);
    expect(readmeCommand('Run the tests')).toBe(`${prefix}./scripts/install-test-packages.sh && pnpm test`);
    for (const file of ['README.md', 'AGENTS.md']) {
      const versions = pnpmVersionsIn(readRootFile(file));
      expect(versions.length, file).toBeGreaterThan(0);
      expect(new Set(versions), file).toEqual(new Set([pinned]));
    }
  });

  it('.ci/run installs the version packageManager names and runs the README test command as written', () => {
    const script = readRootFile('.ci/run');
    // The line that reads the pin, run as CI runs it.
    const pinLine = script.split('\n').find((line) => line.startsWith('pinned=$('));
    expect(pinLine).toBeDefined();
    const fromCi = execFileSync('bash', ['-c', `${pinLine}\nprintf %s "$pinned"`], {
      cwd: repositoryRoot,
      encoding: 'utf8',
    });
    expect(fromCi).toBe(pinned);
    expect(script).toContain('npm install -g "pnpm@$pinned"');
    expect(new Set(pnpmVersionsIn(script))).toEqual(new Set(['$pinned']));

    expect(script).toContain('readme_test_command=$(scripts/readme-command.sh "Run the tests")');
    expect(script).toContain('CI=1 bash -euo pipefail -c "$readme_test_command"');
    const extracted = execFileSync('sh', ['scripts/readme-command.sh', 'Run the tests'], {
      cwd: repositoryRoot,
      encoding: 'utf8',
    });
    expect(extracted).toBe(`${readmeCommand('Run the tests')}\n`);
  });
});
