// What the parts of the gateway's scheduler share: the running gateway (once it runs), the
// scheduler engine (once it started; never when `cron.enabled` is false), and the sessions
// both resolve to.
import type { Delivery, Scheduler } from '@switchboard/scheduler';
import { SchedulerError } from '@switchboard/scheduler';
import type { ExtensionContext, ExtensionRuntime } from '../extension.ts';

/** The default delivery: the reply goes to the last chat of the job's session. */
export const announceToLast: Delivery = { mode: 'announce', channel: 'last' };

/**
 * The scheduler's running state. Contract: `runtime` is set when the gateway runs and
 * `scheduler` when the engine started; `engine()` and `mustRuntime()` throw
 * SCHEDULER_STOPPED (saying why) before that.
 */
export class SchedulerState {
  runtime: ExtensionRuntime | undefined;
  scheduler: Scheduler | undefined;
  readonly #context: ExtensionContext;

  constructor(context: ExtensionContext) {
    this.#context = context;
  }

  /** `cron.enabled` of the current config. */
  enabled(): boolean {
    return this.#context.config().cron.enabled;
  }

  engine(): Scheduler {
    if (this.scheduler === undefined) {
      throw new SchedulerError(
        'SCHEDULER_STOPPED',
        this.enabled()
          ? 'the scheduler has not started yet'
          : 'schedules are off (cron.enabled is false in the config)',
      );
    }
    return this.scheduler;
  }

  mustRuntime(): ExtensionRuntime {
    if (this.runtime === undefined)
      throw new SchedulerError('SCHEDULER_STOPPED', 'the gateway has not started yet');
    return this.runtime;
  }

  /** The main session of an agent. */
  mainSessionOf(agentId: string): string {
    return this.mustRuntime().inbound.resolveSession(undefined, agentId).sessionKey;
  }

  /** The agent a job without one runs as. */
  defaultAgent(): string {
    return this.mustRuntime().inbound.resolveSession(undefined, undefined).agentId;
  }
}
