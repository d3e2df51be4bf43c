import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether bubblewrap can run sandboxes on this host, and why not. */
export type BubblewrapProbe =
  | { readonly usable: true; readonly path: string; readonly version: string }
  | { readonly usable: false; readonly path?: string; readonly reason: string };

/** The hint every "not usable" answer ends with. */
export const bubblewrapInstallHint =
  'Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`) and allow unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1`, or on Ubuntu 24.04+ `sysctl kernel.apparmor_restrict_unprivileged_userns=0`).';

/** The first executable `bwrap` on PATH (or the given path when it is executable). */
export function findBubblewrap(path: string | undefined = process.env.PATH): string | undefined {
  for (const folder of (path ?? '/usr/bin:/bin').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function run(file: string, argumentsList: readonly string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...argumentsList],
      { timeout: 10_000, env: { PATH: '/usr/bin:/bin' } },
      (error, stdout, stderr) => {
        resolve({ ok: error === null, output: `${stdout}${stderr}`.trim() || (error?.message ?? '') });
      },
    );
  });
}

/**
 * Runs `bwrap --version`, then `true` inside the same namespaces the sandbox uses (user, PID,
 * network, IPC, UTS), so a kernel that forbids unprivileged user namespaces is caught here,
 * not on the agent's first command.
 */
export async function probeBubblewrap(
  bwrapPath: string | undefined = findBubblewrap(),
): Promise<BubblewrapProbe> {
  if (bwrapPath === undefined) {
    return { usable: false, reason: `bwrap was not found on PATH. ${bubblewrapInstallHint}` };
  }
  for (const tool of ['/usr/bin/prlimit', '/bin/bash']) {
    try {
      accessSync(tool, constants.X_OK);
    } catch {
      return {
        usable: false,
        path: bwrapPath,
        reason: `${tool} is missing (the sandbox sets its limits with prlimit from util-linux and runs commands with bash)`,
      };
    }
  }
  const version = await run(bwrapPath, ['--version']);
  if (!version.ok) {
    return {
      usable: false,
      path: bwrapPath,
      reason: `${bwrapPath} --version failed: ${version.output}. ${bubblewrapInstallHint}`,
    };
  }
  const trial = await run(bwrapPath, [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--',
    '/bin/true',
  ]);
  if (!trial.ok) {
    return {
      usable: false,
      path: bwrapPath,
      reason: `bwrap is installed but cannot create namespaces here: ${trial.output}. ${bubblewrapInstallHint}`,
    };
  }
  return { usable: true, path: bwrapPath, version: version.output.replace(/^bubblewrap\s*/, '') };
}
