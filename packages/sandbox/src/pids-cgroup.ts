import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from '@switchboard/hooks';

/** A pids cgroup holding one sandboxed command: its processes can never exceed `pids.max`. */
export interface PidsCgroup {
  /** Write a pid here (before it forks) to put it in the cgroup. */
  readonly procsFile: string;
  /** Removes the cgroup once its processes are gone; retries while the kernel still reaps them. */
  remove(): Promise<void>;
}

/**
 * Makes pids cgroups for sandboxed commands. Contract: `create` returns undefined when the
 * cgroup filesystem cannot be written (not root, no pids controller, a v2 hierarchy without
 * delegation); the caller then relies on RLIMIT_NPROC, which the kernel does not enforce
 * for root.
 */
export interface PidsCgroups {
  create(maxProcesses: number): PidsCgroup | undefined;
  /** Removes the parent folder if no command runs in it (it is also removed after each last command). */
  close(): void;
}

let counter = 0;

/** Finds a writable pids hierarchy under this process's own cgroup; undefined when there is none. */
export function openPidsCgroups(cgroupRoot = '/sys/fs/cgroup'): PidsCgroups | undefined {
  const parent = ownPidsCgroup(cgroupRoot);
  if (parent === undefined) return undefined;
  const base = join(parent, `switchboard-sandbox-${process.pid}`);
  // Folders exist only while a command runs: the parent is made for the first and removed
  // after the last, so a process that never closes leaves nothing behind.
  const ensureBase = () => {
    mkdirSync(base, { recursive: true });
    // cgroup v2: the controller must be enabled for the children of our folder too.
    if (existsSync(join(base, 'cgroup.subtree_control')))
      writeFileSync(join(base, 'cgroup.subtree_control'), '+pids');
  };
  const removeBase = () => {
    try {
      rmdirSync(base);
    } catch {
      // Another command still runs in it, or it is gone already.
    }
  };
  try {
    ensureBase();
    const probe = join(base, 'probe');
    mkdirSync(probe, { recursive: true });
    writeFileSync(join(probe, 'pids.max'), '1');
    rmdirSync(probe);
  } catch {
    removeBase();
    return undefined;
  }
  removeBase();
  return {
    create(maxProcesses) {
      counter += 1;
      const directory = join(base, `command-${counter}`);
      try {
        ensureBase();
        mkdirSync(directory);
        writeFileSync(join(directory, 'pids.max'), String(maxProcesses));
      } catch {
        return undefined;
      }
      return {
        procsFile: join(directory, 'cgroup.procs'),
        async remove() {
          for (let attempt = 0; attempt < 50; attempt += 1) {
            try {
              rmdirSync(directory);
              removeBase();
              return;
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
                removeBase();
                return;
              }
              await sleep(20 * (attempt + 1));
            }
          }
        },
      };
    },
    close: removeBase,
  };
}

/** The pids cgroup folder of this process: cgroup v1's `pids` line, or v2's unified one with `pids` enabled. */
function ownPidsCgroup(cgroupRoot: string): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return undefined;
  }
  for (const line of lines) {
    const [, controllers, path] = line.split(':');
    if (controllers?.split(',').includes('pids') && path !== undefined) return join(cgroupRoot, 'pids', path);
  }
  const unified = lines.find((line) => line.startsWith('0::'));
  if (unified === undefined) return undefined;
  try {
    const available = readFileSync(join(cgroupRoot, 'cgroup.controllers'), 'utf8').split(/\s+/);
    if (!available.includes('pids')) return undefined;
    const own = join(cgroupRoot, unified.slice(3));
    writeFileSync(join(own, 'cgroup.subtree_control'), '+pids');
    return own;
  } catch {
    return undefined;
  }
}
