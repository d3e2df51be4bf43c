import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { posix } from 'node:path';
import type { SandboxLimits } from './policy.ts';

/** Where the workspace appears inside the sandbox; `HOME` too. */
export const sandboxWorkspacePath = '/workspace';

/** The user and group id a command runs as inside the sandbox (its own user namespace). */
const sandboxUserId = 1000;

/** Top-level system folders: bound read-only, or recreated as the symlink they are on a merged-/usr host. */
const systemFolders = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/**
 * The parts of /etc a shell and its tools need (users and groups for names, name resolution,
 * TLS roots, the dynamic linker, shell start-up files). Everything else in /etc (shadow
 * passwords, SSH host keys, service configs) stays out.
 */
const etcEntries = [
  'alternatives',
  'bash.bashrc',
  'ca-certificates',
  'ca-certificates.conf',
  'debian_version',
  'environment',
  'gitconfig',
  'group',
  'host.conf',
  'hosts',
  'inputrc',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'mime.types',
  'nsswitch.conf',
  'os-release',
  'passwd',
  'profile',
  'profile.d',
  'protocols',
  'resolv.conf',
  'services',
  'ssl',
  'timezone',
] as const;

/** What this host's filesystem looks like where the sandbox copies it (read once per process). */
interface HostLayout {
  /** bwrap arguments recreating the system folders and /etc entries. */
  readonly systemArguments: readonly string[];
}

let cachedLayout: HostLayout | undefined;

function hostLayout(): HostLayout {
  if (cachedLayout !== undefined) return cachedLayout;
  const systemArguments: string[] = [];
  for (const folder of systemFolders) {
    const info = lstatSync(folder, { throwIfNoEntry: false });
    if (info === undefined) continue;
    if (info.isSymbolicLink()) systemArguments.push('--symlink', readlinkSync(folder), folder);
    else if (info.isDirectory()) systemArguments.push('--ro-bind', folder, folder);
  }
  systemArguments.push('--dir', '/etc');
  for (const entry of etcEntries) {
    const path = `/etc/${entry}`;
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (info === undefined) continue;
    // A symlink is recreated as is (resolv.conf often points into /run); its target is bound when present.
    if (info.isSymbolicLink()) {
      const target = readlinkSync(path);
      const resolved = posix.resolve('/etc', target);
      if (!resolved.startsWith('/etc/') && existsSync(resolved)) {
        systemArguments.push('--ro-bind', resolved, resolved);
      }
      systemArguments.push('--symlink', target, path);
    } else systemArguments.push('--ro-bind', path, path);
  }
  cachedLayout = { systemArguments };
  return cachedLayout;
}

/** One command to run in the sandbox. */
export interface BwrapCommandOptions {
  /** The host folder shown at /workspace. */
  readonly workspaceHostPath: string;
  readonly workspaceWritable: boolean;
  readonly network: boolean;
  /** Extra host paths bound read-only at the same path; missing ones are skipped. */
  readonly readOnlyPaths: readonly string[];
  /** Absolute working directory inside the sandbox. */
  readonly workdir: string;
  readonly limits: SandboxLimits;
  /** Run by `bash -lc` after the limits are set. */
  readonly command: string;
}

/**
 * The bubblewrap argument list (after the `bwrap` path) for one command: new user, PID, IPC,
 * UTS and (unless `network`) network namespaces; the system folders and a short list of /etc
 * read-only; fresh /tmp, /proc and /dev; the workspace at /workspace; all capabilities
 * dropped; killed with its parent; a new terminal session (no TIOCSTI into the gateway's
 * terminal). Inside, prlimit sets the rlimits, then runs `bash -lc <command>`.
 */
export function buildBwrapArguments(options: BwrapCommandOptions): string[] {
  const argumentsList: string[] = [
    '--unshare-user',
    '--uid',
    String(sandboxUserId),
    '--gid',
    String(sandboxUserId),
    '--unshare-ipc',
    '--unshare-pid',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(options.network ? [] : ['--unshare-net']),
    '--hostname',
    'sandbox',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    ...hostLayout().systemArguments,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/var/tmp',
    '--tmpfs',
    '/run',
  ];
  for (const path of options.readOnlyPaths) argumentsList.push('--ro-bind-try', path, path);
  argumentsList.push(
    options.workspaceWritable ? '--bind' : '--ro-bind',
    options.workspaceHostPath,
    sandboxWorkspacePath,
    // The root bwrap builds is a tmpfs: read-only, so nothing outside the workspace and /tmp takes a write.
    '--remount-ro',
    '/',
    '--chdir',
    options.workdir,
    '--',
    ...prlimitArguments(options.limits),
    '/bin/bash',
    '-lc',
    options.command,
  );
  return argumentsList;
}

/** prlimit (util-linux) sets soft and hard limits, which nothing in the sandbox can raise again (no capabilities). */
function prlimitArguments(limits: SandboxLimits): string[] {
  const mebibyte = 1024 * 1024;
  return [
    '/usr/bin/prlimit',
    '--core=0',
    `--cpu=${limits.cpuSeconds}`,
    `--as=${limits.memoryMegabytes * mebibyte}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileSizeMegabytes * mebibyte}`,
    `--nofile=${limits.openFiles}`,
    '--',
  ];
}

/**
 * The working directory inside the sandbox for exec's `workdir` (relative to /workspace, or
 * absolute under /workspace or /tmp); undefined when it would leave them.
 */
export function sandboxWorkdir(workdir: string | undefined): string | undefined {
  if (workdir === undefined || workdir === '') return sandboxWorkspacePath;
  const resolved = posix.resolve(sandboxWorkspacePath, workdir);
  const inside = (root: string) => resolved === root || resolved.startsWith(`${root}/`);
  return inside(sandboxWorkspacePath) || inside('/tmp') ? resolved : undefined;
}
