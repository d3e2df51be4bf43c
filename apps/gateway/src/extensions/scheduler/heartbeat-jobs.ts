// The heartbeat jobs the config makes (one per agent): kept matching the config, and guarded
// against changes through the `cron.*` methods (they are changed in the config instead).
import type { Logger } from '@switchboard/hooks';
import { SchedulerError } from '@switchboard/scheduler';
import type { GatewayConfig } from '../../config/schema.ts';
import { heartbeatJobId, heartbeatJobSpec, heartbeatSettings } from './heartbeat.ts';
import type { SchedulerState } from './scheduler-state.ts';

/** Makes the agent's heartbeat job match the config: added, changed, or removed when off. */
export async function syncHeartbeat(
  state: SchedulerState,
  config: GatewayConfig,
  logger: Logger,
  agentId: string,
): Promise<void> {
  const current = state.engine();
  const id = heartbeatJobId(agentId);
  const settings = heartbeatSettings(config, agentId);
  const existing = await current.get(id);
  if (settings.everyMs === 0) {
    if (existing !== undefined) await current.remove(id);
    logger.info('heartbeat off (every is 0)', { agentId });
    return;
  }
  const spec = heartbeatJobSpec(agentId, settings.everyMs);
  if (existing === undefined) await current.add(spec, { id, allowHeartbeat: true });
  else if (existing.schedule.kind !== 'every' || existing.schedule.everyMs !== settings.everyMs) {
    await current.update(id, { schedule: spec.schedule });
  }
}

/** Throws SCHEDULER_INVALID_JOB for a heartbeat job: `what` (change, turn off) is done in the config. */
export function refuseHeartbeat(id: string, what: string): void {
  if (id.startsWith('heartbeat-')) {
    throw new SchedulerError(
      'SCHEDULER_INVALID_JOB',
      `job ${id} is a heartbeat; ${what} it in agents.defaults.heartbeat (or agents.list[].heartbeat), "every": 0 turns it off`,
    );
  }
}
