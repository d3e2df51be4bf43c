// For the gateway: the sandbox, its tools and its policy.

// Errors.
export { SandboxError, type SandboxErrorCode, sandboxErrorCodes } from './errors.ts';
export {
  defaultSandboxLimits,
  defaultSandboxPolicy,
  isSandboxedSession,
  resolveSandboxPolicy,
  type SandboxLimits,
  type SandboxMode,
  type SandboxPolicy,
  type SandboxPolicyInput,
  type WorkspaceAccess,
} from './policy.ts';
// For doctor and start-up: whether bubblewrap works here.
export { type BubblewrapProbe, bubblewrapInstallHint, probeBubblewrap } from './probe.ts';
// Background jobs (the process tool's registry).
export type { JobPoll, JobSummary, ProcessRegistry } from './process-registry.ts';
export {
  createSandbox,
  type ExecOutcome,
  type ExecRequest,
  type Sandbox,
  type SandboxOptions,
} from './sandbox.ts';
export type { SandboxExit } from './sandbox-process.ts';
export { createSandboxTools, type ExecToolDetails, type SandboxToolsContext } from './tools.ts';
