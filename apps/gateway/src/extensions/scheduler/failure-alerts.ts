// The scheduler's events: each is broadcast to operators (`cron` events), and a job that keeps
// failing is reported in its chat too (a failed alert is logged, never thrown).
import type { SchedulerEvent } from '@switchboard/scheduler';
import type { ExtensionContext } from '../extension.ts';
import { deliverText, resolveTarget } from './delivery.ts';
import { announceToLast, type SchedulerState } from './scheduler-state.ts';

/** The engine's `onEvent`: broadcasts the event and sends failure alerts. */
export function schedulerEvents(
  state: SchedulerState,
  context: ExtensionContext,
): (event: SchedulerEvent) => void {
  return (event) => {
    state.runtime?.broadcast('cron', event);
    if (event.type === 'failure_alert') {
      void alert(state, context, event).catch((error: unknown) =>
        context.logger.warn('could not send a scheduled job failure alert', {
          jobId: event.job.id,
          error: String(error),
        }),
      );
    }
  };
}

/** Tells the operators, and the job's chat when it has one, that a job keeps failing. */
async function alert(
  state: SchedulerState,
  context: ExtensionContext,
  event: Extract<SchedulerEvent, { type: 'failure_alert' }>,
): Promise<void> {
  const current = state.mustRuntime();
  const { job } = event;
  const agentId = job.agentId ?? state.defaultAgent();
  const target = await resolveTarget(
    context.store,
    job.delivery ?? announceToLast,
    job.sessionKey ?? state.mainSessionOf(agentId),
  );
  if (target.kind === 'none') return;
  await deliverText({
    send: current.send,
    plugins: context.plugins,
    route: target.route,
    text: `Scheduled job "${job.name}" failed ${event.consecutiveErrors} times in a row: ${event.lastError}`,
    idempotencyKey: `cron-alert:${job.id}:${job.state.lastRunAtMs ?? 0}:${event.consecutiveErrors}`,
    scope: { sessionKey: job.sessionKey ?? state.mainSessionOf(agentId), agentId },
  });
}
