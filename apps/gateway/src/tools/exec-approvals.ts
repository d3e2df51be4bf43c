// Operator approvals for host exec (issue 21): an unsandboxed session's command that is not on
// `tools.exec.allow` (with `tools.exec.ask: "on-miss"`) waits for an operator. The request
// goes to operator clients as `exec.approval.requested`; `exec.approval.resolve` (the CLI's
// `switchboard approvals`) answers allow-once, allow-always or deny; no answer within
// `approvalTimeoutSeconds` denies. "Always" is remembered per agent and command name in the
// state store, so it survives restarts.
import { randomUUID } from 'node:crypto';
import type { StateRecordStore } from '@switchboard/sessions';

export type ExecApprovalDecision = 'allow-once' | 'allow-always' | 'deny';

/** One command waiting for an operator. */
export interface ExecApprovalRequest {
  readonly id: string;
  readonly agentId: string;
  readonly sessionKey: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly requestedAt: number;
  readonly expiresAt: number;
}

/** How a request ended: an operator's decision, or the timeout (a denial). */
type ExecApprovalOutcome = ExecApprovalDecision | 'timeout';

/**
 * The approvals of one gateway. Contract: `ask` resolves exactly once per request (a decision
 * or the timeout) and never rejects; `resolve` returns false for an unknown or finished id.
 */
export interface ExecApprovals {
  ask(
    request: Omit<ExecApprovalRequest, 'id' | 'requestedAt' | 'expiresAt'>,
    timeoutMs: number,
  ): Promise<ExecApprovalOutcome>;
  resolve(id: string, decision: ExecApprovalDecision): boolean;
  pending(): ExecApprovalRequest[];
  /** Whether an operator chose "allow always" for this agent and command name. */
  isAlwaysAllowed(agentId: string, command: string): Promise<boolean>;
}

const namespace = 'exec-approvals';

export function createExecApprovals(options: {
  readonly store: StateRecordStore;
  readonly now: () => number;
  /** Sends an event to operator clients (absent before the gateway listens). */
  readonly broadcast: (event: string, payload: unknown) => void;
}): ExecApprovals {
  const waiting = new Map<
    string,
    { request: ExecApprovalRequest; finish: (outcome: ExecApprovalOutcome) => void }
  >();

  const alwaysAllowed = async (agentId: string): Promise<string[]> => {
    const record = await options.store.getState(namespace, agentId);
    const commands = (record?.value as { commands?: unknown } | undefined)?.commands;
    return Array.isArray(commands)
      ? commands.filter((entry): entry is string => typeof entry === 'string')
      : [];
  };

  return {
    ask(fields, timeoutMs) {
      const requestedAt = options.now();
      const request: ExecApprovalRequest = {
        ...fields,
        id: randomUUID(),
        requestedAt,
        expiresAt: requestedAt + timeoutMs,
      };
      return new Promise<ExecApprovalOutcome>((resolve) => {
        const timer = setTimeout(() => finish('timeout'), timeoutMs);
        timer.unref();
        const finish = (outcome: ExecApprovalOutcome) => {
          if (!waiting.delete(request.id)) return;
          clearTimeout(timer);
          options.broadcast('exec.approval.resolved', { id: request.id, decision: outcome });
          if (outcome !== 'allow-always') {
            resolve(outcome);
            return;
          }
          void alwaysAllowed(request.agentId)
            .then((commands) =>
              options.store.putState(namespace, request.agentId, {
                commands: [...new Set([...commands, request.command])].sort(),
              }),
            )
            .finally(() => resolve(outcome));
        };
        waiting.set(request.id, { request, finish });
        options.broadcast('exec.approval.requested', request);
      });
    },

    resolve(id, decision) {
      const entry = waiting.get(id);
      if (entry === undefined) return false;
      entry.finish(decision);
      return true;
    },

    pending: () => [...waiting.values()].map((entry) => entry.request),

    isAlwaysAllowed: async (agentId, command) => (await alwaysAllowed(agentId)).includes(command),
  };
}
