// `agents.defaults.sandbox` and `agents.list[].sandbox` (issue 21, decision 0015): OpenClaw's
// shape. Every key is optional here; @switchboard/sandbox merges an agent's section over the
// defaults and fills the rest (mode all, workspace rw at /workspace, network off).
import { z } from 'zod';

const positiveInteger = z.number().int().positive();

const sandboxLimitsSchema = z.strictObject({
  timeoutSeconds: positiveInteger.optional(),
  backgroundTimeoutSeconds: positiveInteger.optional(),
  maxTimeoutSeconds: positiveInteger.optional(),
  cpuSeconds: positiveInteger.optional(),
  memoryMegabytes: positiveInteger.optional(),
  processes: positiveInteger.optional(),
  fileSizeMegabytes: positiveInteger.optional(),
  openFiles: positiveInteger.optional(),
  outputBytes: positiveInteger.optional(),
  maxBackgroundJobs: positiveInteger.optional(),
});

export const agentSandboxSchema = z
  .strictObject({
    /** `all` (default): every session's exec runs sandboxed; `non-main`: all but the agent's main session; `off`: none. */
    mode: z.enum(['off', 'non-main', 'all']).optional(),
    /** `rw` (default): the agent workspace read-write at /workspace; `ro`: read-only; `none`: a scratch folder per agent. */
    workspaceAccess: z.enum(['none', 'ro', 'rw']).optional(),
    /** Off by default: a private network namespace. On shares the host's network, 127.0.0.1 included. */
    network: z.boolean().optional(),
    limits: sandboxLimitsSchema.optional(),
    /** Environment variables every sandboxed command gets; nothing else of the gateway's is passed. */
    env: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name'),
        z.string(),
      )
      .optional(),
    /** Host paths bound read-only at the same path (a toolchain under /opt, …). */
    readOnlyPaths: z
      .array(z.string().regex(/^\/(?!.*(^|\/)\.\.(\/|$))/, 'expected an absolute path without ..'))
      .optional(),
  })
  .optional();
