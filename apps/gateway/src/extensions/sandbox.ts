// The agent's shell (issue 21, decision 0015). Sandboxed sessions get @switchboard/sandbox's
// `exec` (bash in bubblewrap, the workspace at /workspace) and `process` (background jobs);
// unsandboxed ones (mode `off`, or the main session in `non-main`) get the host exec of
// `tools.exec.allow`, if any. A sandbox that cannot run refuses each call with the reason:
// nothing falls back to the host. Jobs die with their session (session_end) and the gateway.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyAgentTool } from '@switchboard/core-loop';
import { definePlugin } from '@switchboard/hooks';
import { buildAgentMainSessionKey } from '@switchboard/routing';
import type { Sandbox, SandboxPolicy } from '@switchboard/sandbox';
import { z } from 'zod';
import type { GatewayConfig } from '../config/schema.ts';
import { GatewayError } from '../gateway-error.ts';
import { createHostExecTool } from '../tools/exec.ts';
import { createExecApprovals, type ExecApprovalDecision } from '../tools/exec-approvals.ts';
import type { GatewayExtension } from './extension.ts';

// The package's code (policies, the sandbox, its process registry and tools) loads with the
// first turn or `sandbox.status`, not at start-up (decision 0025). Nothing here imports a value
// from it statically: the bundle would then load it whole.
const loadSandboxPackage = () => import('@switchboard/sandbox');
let sandboxPackage: ReturnType<typeof loadSandboxPackage> | undefined;
const sandboxCode = (): ReturnType<typeof loadSandboxPackage> => {
  sandboxPackage ??= loadSandboxPackage();
  return sandboxPackage;
};

/** Policies resolved once per config object (a reload makes a new one) and agent. */
const resolvedPolicies = new WeakMap<GatewayConfig, Map<string, SandboxPolicy>>();

type SandboxPackage = Awaited<ReturnType<typeof loadSandboxPackage>>;

/** The agent's sandbox policy: its own `sandbox` section over `agents.defaults.sandbox`. */
function sandboxPolicyOf(
  { resolveSandboxPolicy }: SandboxPackage,
  config: GatewayConfig,
  agentId: string,
): SandboxPolicy {
  let policies = resolvedPolicies.get(config);
  if (policies === undefined) {
    policies = new Map();
    resolvedPolicies.set(config, policies);
  }
  const key = agentId.toLowerCase();
  let policy = policies.get(key);
  if (policy === undefined) {
    const own = config.agents.list?.find((agent) => agent.id.toLowerCase() === key)?.sandbox;
    policy = resolveSandboxPolicy(config.agents.defaults.sandbox, own);
    policies.set(key, policy);
  }
  return policy;
}

function agentIds(config: GatewayConfig): string[] {
  const listed = config.agents.list?.map((agent) => agent.id.toLowerCase()) ?? [];
  return listed.length > 0 ? listed : ['main'];
}

const approvalResolveParameters = z.strictObject({
  id: z.string().min(1),
  decision: z.enum(['allow-once', 'allow-always', 'deny']) satisfies z.ZodType<ExecApprovalDecision>,
});

/** What `sandbox.status` answers (and start-up logs). */
export interface SandboxStatus {
  readonly bubblewrap: {
    readonly usable: boolean;
    readonly path?: string;
    readonly version?: string;
    readonly reason?: string;
  };
  readonly processLimit: 'cgroup' | 'rlimit' | 'unenforced';
  readonly agents: readonly {
    readonly agentId: string;
    readonly mode: SandboxPolicy['mode'];
    readonly workspaceAccess: SandboxPolicy['workspaceAccess'];
    readonly network: boolean;
  }[];
  readonly runningJobs: number;
}

export const sandboxExtension: GatewayExtension = {
  id: 'sandbox',
  async setup(context) {
    // Created on first use (creating it does no work either: bubblewrap is probed on first use).
    let sandboxCreated: Promise<Sandbox> | undefined;
    const sandboxNow = (): Promise<Sandbox> => {
      sandboxCreated ??= sandboxCode().then(({ createSandbox }) =>
        createSandbox({ logger: context.logger, now: context.now }),
      );
      return sandboxCreated;
    };

    const scratchFolder = (agentId: string): string => {
      const folder = join(context.stateDirectory, 'sandboxes', agentId);
      mkdirSync(folder, { recursive: true });
      return folder;
    };

    // Host exec approvals go to operator clients once the gateway listens.
    let broadcast: (event: string, payload: unknown) => void = () => {};
    const approvals = createExecApprovals({
      store: context.store,
      now: context.now,
      broadcast: (event, payload) => broadcast(event, payload),
    });

    context.tools.register({
      id: 'sandbox',
      async tools({ config, agentId, sessionKey, workspaceDir }) {
        const code = await sandboxCode();
        const policy = sandboxPolicyOf(code, config, agentId);
        const mainSessionKey = buildAgentMainSessionKey({ agentId, mainKey: config.session.mainKey });
        if (code.isSandboxedSession(policy.mode, sessionKey, mainSessionKey)) {
          const sandbox = await sandboxNow();
          reportOnce();
          return code.createSandboxTools({
            sandbox,
            sessionKey,
            workspaceHostPath: policy.workspaceAccess === 'none' ? scratchFolder(agentId) : workspaceDir,
            policy,
          });
        }
        const hostExec = createHostExecTool({
          allow: config.tools.exec?.allow ?? [],
          ask: config.tools.exec?.ask ?? 'off',
          approvals,
          approvalTimeoutMs: (config.tools.exec?.approvalTimeoutSeconds ?? 120) * 1000,
          agentId,
          sessionKey,
          cwd: workspaceDir,
          timeoutMs: (config.tools.exec?.timeoutSeconds ?? 30) * 1000,
        });
        const tools: AnyAgentTool[] = [];
        if (hostExec !== undefined) tools.push(hostExec);
        return tools;
      },
    });

    const status = async (): Promise<SandboxStatus> => {
      const config = context.config();
      const code = await sandboxCode();
      const sandbox = await sandboxNow();
      const probe = await sandbox.probe();
      return {
        bubblewrap: probe.usable
          ? { usable: true, path: probe.path, version: probe.version }
          : {
              usable: false,
              path: probe.path,
              reason: probe.reason,
            },
        processLimit: sandbox.processLimit(),
        agents: agentIds(config).map((agentId) => {
          const policy = sandboxPolicyOf(code, config, agentId);
          return {
            agentId,
            mode: policy.mode,
            workspaceAccess: policy.workspaceAccess,
            network: policy.network,
          };
        }),
        runningJobs: sandbox.processes.runningCount(),
      };
    };

    await context.plugins.register(
      definePlugin({
        name: 'sandbox',
        version: '1.0.0',
        specVersion: 1,
        description: 'bubblewrap exec: background jobs end with their session; sandbox.status for operators',
        setup(api) {
          api.on('session_end', async (event) => {
            // No sandbox yet: no background job can run.
            if (sandboxCreated === undefined) return;
            const killed = await (await sandboxCreated).processes.killSession(event.sessionKey);
            if (killed > 0)
              context.logger.info('sandbox: killed the background jobs of an ended session', {
                sessionKey: event.sessionKey,
                killed,
              });
          });
          api.registerGatewayMethod('sandbox.status', status);
        },
      }),
    );

    // Operators answer host exec approvals: `exec.approval.list`, `exec.approval.resolve`.
    await context.plugins.register(
      definePlugin({
        name: 'exec',
        version: '1.0.0',
        specVersion: 1,
        description: 'host exec approvals: exec.approval.list and exec.approval.resolve for operators',
        setup(api) {
          api.registerGatewayMethod('exec.approval.list', () => ({ pending: approvals.pending() }));
          api.registerGatewayMethod('exec.approval.resolve', (params) => {
            const parsed = approvalResolveParameters.safeParse(params);
            if (!parsed.success) {
              throw new GatewayError(
                'INVALID_PARAMS',
                `exec.approval.resolve: ${parsed.error.issues[0]?.path.join('.') || 'params'}: ${parsed.error.issues[0]?.message ?? 'invalid'} (expected { id, decision: allow-once | allow-always | deny })`,
              );
            }
            const resolved = approvals.resolve(parsed.data.id, parsed.data.decision);
            if (!resolved) {
              throw new GatewayError(
                'NOT_FOUND',
                `no pending exec approval "${parsed.data.id}" (answered already, or timed out)`,
              );
            }
            return { id: parsed.data.id, decision: parsed.data.decision };
          });
        },
      }),
    );

    context.onStart(async (runtime) => {
      broadcast = (event, payload) => runtime.broadcast(event, payload);
      const config = context.config();
      // Without a host allowlist there is nothing to warn about, and no reason to load the package.
      if (!config.tools.exec?.allow?.length) return;
      const code = await sandboxCode();
      const policies = agentIds(config).map((agentId) => sandboxPolicyOf(code, config, agentId));
      if (policies.every((policy) => policy.mode === 'all')) {
        context.logger.warn(
          'tools.exec.allow is unused: every session runs exec in the sandbox (agents.defaults.sandbox.mode "all"); it applies to unsandboxed sessions only (mode "off", or the main session with "non-main")',
          {},
        );
      }
    });

    // The probe runs bubblewrap (hundreds of ms on a busy host, and a child process): start-up
    // does not run it. The first turn that offers the sandboxed tools starts it in the
    // background and logs the verdict; an exec waits for the same cached result, and
    // `sandbox.status` / `switchboard doctor` probe on demand.
    let reported = false;
    const reportOnce = () => {
      if (reported) return;
      reported = true;
      void reportProbe().catch((error: unknown) =>
        context.logger.warn('sandbox: probing bubblewrap failed', { error: String(error) }),
      );
    };

    async function reportProbe(): Promise<void> {
      const current = await status();
      if (current.bubblewrap.usable) {
        context.logger.info('sandbox: bubblewrap is usable', {
          version: current.bubblewrap.version,
          processLimit: current.processLimit,
        });
        if (current.processLimit === 'unenforced') {
          context.logger.warn(
            'sandbox: the process limit is not enforced (running as root without a writable pids cgroup)',
            {},
          );
        }
      } else {
        context.logger.warn(
          `sandbox: exec will refuse every sandboxed command: ${current.bubblewrap.reason}`,
          {},
        );
      }
    }

    context.onStop(async () => {
      if (sandboxCreated !== undefined) await (await sandboxCreated).close();
    });
  },
};
