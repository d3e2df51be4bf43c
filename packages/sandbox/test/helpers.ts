import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bubblewrapInstallHint, probeBubblewrap } from '../src/probe.ts';

/** Fails (never skips) when bubblewrap cannot run, saying how to install it. */
export async function requireBubblewrap(): Promise<void> {
  const probe = await probeBubblewrap();
  if (!probe.usable) {
    throw new Error(
      `These tests run the real bubblewrap and it is not usable here: ${probe.reason}\n${bubblewrapInstallHint} (CI: scripts/install-test-packages.sh)`,
    );
  }
}

/** A gateway-like state folder: a config with a token, agent A's workspace and agent B's. */
export interface Fixture {
  readonly root: string;
  readonly stateDirectory: string;
  readonly configPath: string;
  readonly workspace: string;
  readonly otherWorkspace: string;
  readonly token: string;
}

export function createFixture(): Fixture {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'switchboard-sandbox-')));
  const stateDirectory = join(root, 'state');
  const workspace = join(stateDirectory, 'workspace-a');
  const otherWorkspace = join(stateDirectory, 'workspace-b');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(otherWorkspace, { recursive: true });
  const token = `tok-${Math.random().toString(36).slice(2)}`;
  const configPath = join(stateDirectory, 'switchboard.json');
  writeFileSync(configPath, JSON.stringify({ gateway: { auth: { token } } }));
  writeFileSync(join(otherWorkspace, 'secret.txt'), `other agent ${token}`);
  return { root, stateDirectory, configPath, workspace, otherWorkspace, token };
}

/** Waits for a condition (polling), never a fixed sleep. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Host processes whose command line contains `marker` (reads /proc of the host); with
 * `startsWith`, only those whose command line begins with it (the command itself, not the
 * bwrap that carries it in its arguments).
 */
export function hostProcessesWith(marker: string, startsWith = false): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (startsWith ? commandLine.startsWith(marker) : commandLine.includes(marker))
        found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
