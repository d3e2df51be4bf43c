// The switchboard command runs the bundle when it is current and the source otherwise
// (issue 28: the README's start command starts from the faster bundle once it is built).
// Checked on a copy of the bin in a scratch checkout, with SWITCHBOARD_NODE=/bin/echo so the
// command prints what it would run instead of running it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const realBin = join(import.meta.dirname, '..', 'bin', 'switchboard');

function scratchCheckout() {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-bin-'));
  const gateway = join(root, 'apps', 'gateway');
  for (const folder of ['bin', 'src', 'dist']) mkdirSync(join(gateway, folder), { recursive: true });
  mkdirSync(join(root, 'packages', 'hooks', 'src'), { recursive: true });
  mkdirSync(join(root, 'packages', 'channels', 'telegram', 'src'), { recursive: true });
  copyFileSync(realBin, join(gateway, 'bin', 'switchboard'));
  const files = {
    gatewaySource: join(gateway, 'src', 'main.ts'),
    packageSource: join(root, 'packages', 'hooks', 'src', 'index.ts'),
    channelSource: join(root, 'packages', 'channels', 'telegram', 'src', 'index.ts'),
    bundle: join(gateway, 'dist', 'main.mjs'),
  };
  for (const file of Object.values(files)) writeFileSync(file, '');
  const setTime = (file: string, secondsAgo: number) => {
    const time = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(file, time, time);
  };
  const run = (environment: NodeJS.ProcessEnv = {}) =>
    execFileSync('sh', [join(gateway, 'bin', 'switchboard'), 'gateway', 'run'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, SWITCHBOARD_NODE: '/bin/echo', ...environment },
    }).trim();
  return { files, setTime, run };
}

describe('the switchboard command picks the bundle or the source', () => {
  it('runs the bundle when it is newer than every source file, the source after an edit', () => {
    const { files, setTime, run } = scratchCheckout();
    for (const file of [files.gatewaySource, files.packageSource, files.channelSource]) setTime(file, 120);
    setTime(files.bundle, 60);
    expect(run()).toMatch(/dist\/main\.mjs gateway run$/);
    expect(run({ SWITCHBOARD_FROM_SOURCE: '1' })).toMatch(
      /--conditions=@switchboard\/source .*src\/main\.ts gateway run$/,
    );

    for (const edited of [files.packageSource, files.channelSource, files.gatewaySource]) {
      setTime(edited, 10);
      expect(run(), edited).toMatch(/src\/main\.ts gateway run$/);
      setTime(edited, 120);
    }
    expect(run()).toMatch(/dist\/main\.mjs gateway run$/);
  });
});
