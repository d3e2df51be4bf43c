// Executing a due job: the turn it asks for (a heartbeat, an isolated agent turn, or a
// system event in the job's session), submitted idempotently per run id, and the delivery of
// its reply with receipts; heartbeat runs and skips are counted per agent and day.
import type { RunContext, RunResult } from '@switchboard/scheduler';
import { isolatedSessionKey } from '@switchboard/scheduler';
import type { SessionStore } from '@switchboard/sessions';
import type { ExtensionContext } from '../extension.ts';
import { deliverText, resolveTarget } from './delivery.ts';
import { heartbeatReply, planHeartbeat, recordHeartbeatUsage } from './heartbeat.ts';
import { syncHeartbeat } from './heartbeat-jobs.ts';
import { awaitFinal, outcomeOf } from './run-final.ts';
import { announceToLast, type SchedulerState } from './scheduler-state.ts';

/** The engine's `execute` for the gateway. */
export function jobExecutor(
  state: SchedulerState,
  context: ExtensionContext,
): (run: RunContext) => Promise<RunResult> {
  return (run) => execute(state, context, run);
}

/** Never settles before `signal` fires; then rejects with its reason. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** The session a job's turn runs in: reset first for a fresh one, with the job's model. */
async function prepareSession(
  store: SessionStore,
  sessionKey: string,
  agentId: string,
  model: string | undefined,
  fresh: boolean,
) {
  if (fresh && (await store.getSession(sessionKey)) !== undefined) await store.resetSession(sessionKey);
  if (model === undefined) return;
  await store.ensureSession(sessionKey, { agentId, channel: 'cron', chatType: 'direct' });
  await store.patchSession(sessionKey, { modelOverride: model });
}

/** Runs one due job: its turn, then the delivery of its reply. */
async function execute(
  state: SchedulerState,
  context: ExtensionContext,
  { job, run, resumed, signal }: RunContext,
): Promise<RunResult> {
  const { store } = context;
  const current = state.mustRuntime();
  const config = context.config();
  const agentId = job.agentId ?? state.defaultAgent();
  const mainKey = state.mainSessionOf(agentId);
  let sessionKey: string;
  let message: string;
  let lastRouteSession = job.sessionKey ?? mainKey;
  let delivery = job.delivery ?? announceToLast;
  let thinking: NonNullable<Parameters<typeof current.inbound.submitRpc>[0]['thinking']> | undefined;
  let timeoutMs: number | undefined;
  const payload = job.payload;
  if (payload.kind === 'heartbeat') {
    const plan = await planHeartbeat({
      job,
      config,
      store,
      workspace: context.workspaceFor(agentId),
      mainSessionKey: mainKey,
      busy: current.runs.activeForSession(mainKey).length > 0,
      nowMs: context.now(),
    });
    if (plan.settings.everyMs !== (job.schedule.kind === 'every' ? job.schedule.everyMs : -1)) {
      // The config changed since the job was written: follow it from the next run on.
      queueMicrotask(
        () => void syncHeartbeat(state, context.config(), context.logger, agentId).catch(() => undefined),
      );
    }
    if (plan.skip !== undefined && !resumed) {
      await recordHeartbeatUsage(store, agentId, context.now(), {
        ran: false,
        input: 0,
        output: 0,
        total: 0,
      });
      return plan.skip;
    }
    sessionKey = `agent:${agentId}:heartbeat`;
    message = plan.prompt;
    lastRouteSession = mainKey;
    const target = plan.settings.target ?? 'last';
    delivery =
      target === 'none'
        ? { mode: 'none', channel: 'last' }
        : {
            mode: 'announce',
            channel: target,
            to: plan.settings.to,
            accountId: plan.settings.accountId,
          };
    if (!resumed) await prepareSession(store, sessionKey, agentId, plan.settings.model, true);
  } else if (payload.kind === 'agentTurn') {
    sessionKey = isolatedSessionKey(agentId, job.id, run.runId);
    message = payload.message;
    thinking = payload.thinking;
    if (payload.timeoutSeconds !== undefined) timeoutMs = payload.timeoutSeconds * 1000;
    if (!resumed) await prepareSession(store, sessionKey, agentId, payload.model, false);
  } else {
    sessionKey = job.sessionKey ?? mainKey;
    message = `[Scheduled: ${job.name}] ${payload.text}`;
  }

  const final = await awaitFinal(
    current.runs,
    () =>
      current.inbound.submitRpc({
        message,
        idempotencyKey: `cron:${job.id}:${run.runId}`,
        sessionKey,
        agentId,
        channel: 'cron',
        deliver: false,
        thinking,
        timeoutMs,
      }),
    signal,
  );
  const outcome = outcomeOf(final);
  if (!outcome.ok) {
    // A turn cut by the shutdown stays claimed: the next start resumes it.
    if (outcome.interrupted) await untilAborted(signal);
    return { status: 'error', error: outcome.error };
  }
  const usage = outcome.usage;
  let text = outcome.text;
  if (payload.kind === 'heartbeat') {
    await recordHeartbeatUsage(store, agentId, context.now(), {
      ran: true,
      input: usage?.input ?? 0,
      output: usage?.output ?? 0,
      total: usage?.total ?? 0,
    });
    const reply = heartbeatReply(text);
    if (reply === undefined) {
      return {
        status: 'ok',
        deliveryStatus: 'nothing_to_deliver',
        detail: 'HEARTBEAT_OK: nothing needs attention',
        usage,
      };
    }
    text = reply;
  }
  const withUsage = usage === undefined ? {} : { usage };
  if (text.trim() === '')
    return { status: 'ok', deliveryStatus: 'nothing_to_deliver', detail: 'NO_REPLY', ...withUsage };
  const target = await resolveTarget(store, delivery, lastRouteSession);
  if (target.kind === 'none') {
    if (delivery.mode === 'none')
      return { status: 'ok', deliveryStatus: 'not_requested', detail: text.slice(0, 200), ...withUsage };
    return {
      status: 'error',
      error: `not delivered: ${target.reason}`,
      deliveryStatus: 'not_delivered',
      ...withUsage,
    };
  }
  const delivered = await deliverText({
    send: current.send,
    plugins: context.plugins,
    route: target.route,
    text,
    idempotencyKey: `cron:${job.id}:${run.runId}`,
    scope: { sessionKey, agentId, runId: `cron:${job.id}:${run.runId}` },
  });
  if (delivered.deliveryStatus === 'not_delivered') {
    return {
      status: 'error',
      error: delivered.error ?? 'not delivered',
      deliveryStatus: 'not_delivered',
      ...withUsage,
    };
  }
  return {
    status: 'ok',
    deliveryStatus: delivered.deliveryStatus,
    messageIds: delivered.messageIds,
    detail: text.slice(0, 200),
    ...withUsage,
  };
}
