import { SandboxError } from './errors.ts';

/** Which sessions run `exec` in the sandbox (OpenClaw's `agents.defaults.sandbox.mode`). */
export type SandboxMode = 'off' | 'non-main' | 'all';

/**
 * What the sandbox sees at `/workspace`: `rw` the agent's workspace read-write, `ro` read-only,
 * `none` a separate scratch folder (the caller chooses it) read-write.
 */
export type WorkspaceAccess = 'none' | 'ro' | 'rw';

/** Resource limits of one sandboxed command (each process of it, where the kernel counts per process). */
export interface SandboxLimits {
  /** Wall time of a foreground command, when the call gives none. */
  readonly timeoutSeconds: number;
  /** Wall time of a background job, when the call gives none. */
  readonly backgroundTimeoutSeconds: number;
  /** The most a call may ask for with `timeoutSeconds`. */
  readonly maxTimeoutSeconds: number;
  /** CPU seconds per process (RLIMIT_CPU). */
  readonly cpuSeconds: number;
  /** Address space per process in MiB (RLIMIT_AS). */
  readonly memoryMegabytes: number;
  /** Processes and threads of the sandbox (a pids cgroup when the gateway runs as root, else RLIMIT_NPROC). */
  readonly processes: number;
  /** Largest file a process may write, in MiB (RLIMIT_FSIZE). */
  readonly fileSizeMegabytes: number;
  /** Open files per process (RLIMIT_NOFILE). */
  readonly openFiles: number;
  /** Output kept per command (stdout and stderr together); older output is dropped with a note. */
  readonly outputBytes: number;
  /** Background jobs one session may run at once. */
  readonly maxBackgroundJobs: number;
}

/** The sandbox settings of one agent, defaults applied. */
export interface SandboxPolicy {
  readonly mode: SandboxMode;
  readonly workspaceAccess: WorkspaceAccess;
  /** Network access; off means a private network namespace with only a loopback of its own. */
  readonly network: boolean;
  readonly limits: SandboxLimits;
  /** Environment variables every command gets (nothing else of the gateway's environment is passed). */
  readonly env: Readonly<Record<string, string>>;
  /** Extra host paths bound read-only at the same path (absolute), e.g. a toolchain under /opt. */
  readonly readOnlyPaths: readonly string[];
}

/** A policy as written in config: every field optional, agent overrides merged over defaults. */
export interface SandboxPolicyInput {
  readonly mode?: SandboxMode | undefined;
  readonly workspaceAccess?: WorkspaceAccess | undefined;
  readonly network?: boolean | undefined;
  readonly limits?: Partial<SandboxLimits> | undefined;
  readonly env?: Readonly<Record<string, string>> | undefined;
  readonly readOnlyPaths?: readonly string[] | undefined;
}

export const defaultSandboxLimits: SandboxLimits = Object.freeze({
  timeoutSeconds: 120,
  backgroundTimeoutSeconds: 1800,
  maxTimeoutSeconds: 3600,
  cpuSeconds: 600,
  memoryMegabytes: 2048,
  processes: 256,
  fileSizeMegabytes: 1024,
  openFiles: 1024,
  outputBytes: 64 * 1024,
  maxBackgroundJobs: 8,
});

/** The secure default: every session sandboxed, the workspace read-write, no network. */
export const defaultSandboxPolicy: SandboxPolicy = Object.freeze({
  mode: 'all',
  workspaceAccess: 'rw',
  network: false,
  limits: defaultSandboxLimits,
  env: Object.freeze({}),
  readOnlyPaths: Object.freeze([]),
});

const modes: readonly SandboxMode[] = ['off', 'non-main', 'all'];
const accessLevels: readonly WorkspaceAccess[] = ['none', 'ro', 'rw'];

/**
 * Merges policy inputs, later ones winning key by key (`limits` and `env` merge per key), over
 * the defaults; validates the result. Throws `SANDBOX_INVALID_POLICY` naming the key.
 */
export function resolveSandboxPolicy(...inputs: readonly (SandboxPolicyInput | undefined)[]): SandboxPolicy {
  let policy: SandboxPolicy = defaultSandboxPolicy;
  for (const input of inputs) {
    if (input === undefined) continue;
    policy = {
      mode: input.mode ?? policy.mode,
      workspaceAccess: input.workspaceAccess ?? policy.workspaceAccess,
      network: input.network ?? policy.network,
      limits: { ...policy.limits, ...definedEntries(input.limits ?? {}) },
      env: { ...policy.env, ...(input.env ?? {}) },
      readOnlyPaths: input.readOnlyPaths ?? policy.readOnlyPaths,
    };
  }
  validatePolicy(policy);
  return policy;
}

function definedEntries<Value extends object>(value: Value): Partial<Value> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<Value>;
}

function validatePolicy(policy: SandboxPolicy): void {
  if (!modes.includes(policy.mode)) invalid('mode', `must be one of ${modes.join(', ')}`);
  if (!accessLevels.includes(policy.workspaceAccess))
    invalid('workspaceAccess', `must be one of ${accessLevels.join(', ')}`);
  for (const [key, value] of Object.entries(policy.limits)) {
    if (!Number.isSafeInteger(value) || (value as number) <= 0)
      invalid(`limits.${key}`, 'must be a positive integer');
  }
  for (const name of Object.keys(policy.env)) {
    if (!environmentName.test(name)) invalid(`env.${name}`, 'is not a valid environment variable name');
  }
  for (const path of policy.readOnlyPaths) {
    if (!path.startsWith('/') || path.split('/').includes('..'))
      invalid('readOnlyPaths', `"${path}" must be an absolute path without ".."`);
  }
}

/** A shell identifier: what `env` keys and exec's `env` argument may use. */
export const environmentName: RegExp = /^[A-Za-z_][A-Za-z0-9_]*$/;

function invalid(key: string, problem: string): never {
  throw new SandboxError('SANDBOX_INVALID_POLICY', `sandbox.${key} ${problem}`, { details: { key } });
}

/**
 * Whether a session runs `exec` in the sandbox: `all` every session, `off` none, `non-main`
 * every session but the agent's main one (the owner's direct chat), so group and channel
 * sessions are sandboxed.
 */
export function isSandboxedSession(mode: SandboxMode, sessionKey: string, mainSessionKey: string): boolean {
  if (mode === 'all') return true;
  if (mode === 'off') return false;
  return sessionKey !== mainSessionKey;
}
