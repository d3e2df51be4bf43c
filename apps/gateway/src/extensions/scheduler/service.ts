// The gateway's scheduler: the engine over the session store, the executor that turns a due
// job into a turn (`inbound.submitRpc`, idempotent per run id) and its reply into a delivery
// with receipts, the heartbeat jobs made from config, and what the tool and `cron.*` share.
//
// This module is the service the tool and the methods call, and the engine's start and stop;
// the parts: `job-execution.ts`, `failure-alerts.ts`, `heartbeat-jobs.ts`, `scheduler-state.ts`.
import type { Logger } from '@switchboard/hooks';
import {
  createScheduler,
  createStateSchedulerStore,
  type Delivery,
  type Job,
  type RunHistoryEntry,
} from '@switchboard/scheduler';
import type { SessionStore } from '@switchboard/sessions';
import type { ExtensionContext, ExtensionRuntime } from '../extension.ts';
import { schedulerEvents } from './failure-alerts.ts';
import { agentIds, type HeartbeatUsageDay, heartbeatUsageNamespace } from './heartbeat.ts';
import { refuseHeartbeat, syncHeartbeat } from './heartbeat-jobs.ts';
import { jobExecutor } from './job-execution.ts';
import { announceToLast, SchedulerState } from './scheduler-state.ts';

/** Where a job was made from (the `cron` tool's turn): its replies go back to that chat. */
interface JobOrigin {
  readonly agentId: string;
  readonly sessionKey: string;
}

interface CronStatus {
  readonly enabled: boolean;
  readonly started: boolean;
  readonly jobs: number;
  readonly scheduled: number;
  readonly running: number;
  readonly nextWakeAt: string | undefined;
  /** Timer callbacks since the gateway started. */
  readonly wakeups: number;
  /** Each agent's heartbeat runs, skips and tokens per day (UTC), newest first. */
  readonly heartbeat: readonly HeartbeatUsageDay[];
}

/** What the `cron` tool and the `cron.*` methods call. */
export interface CronService {
  list(): Promise<Job[]>;
  add(input: unknown, origin?: JobOrigin): Promise<Job>;
  update(id: string, patch: unknown): Promise<Job>;
  remove(id: string): Promise<boolean>;
  run(id: string): Promise<RunHistoryEntry>;
  runs(id: string, limit?: number): Promise<RunHistoryEntry[]>;
  status(): Promise<CronStatus>;
  /**
   * The seam for subagents spawned by a cron run: the delivery of the job whose isolated run
   * owns `sessionKey` (`agent:<id>:cron:<jobId>:run:<runId>`), so their announcement goes to
   * the job's target; undefined for any other session.
   */
  deliveryForSession(sessionKey: string): Promise<Delivery | undefined>;
}

const services = new WeakMap<SessionStore, CronService>();

/** The scheduler of the gateway that owns `store` (methods reach it through their store). */
export function cronServiceOf(store: SessionStore): CronService | undefined {
  return services.get(store);
}

export function createCronService(context: ExtensionContext): {
  service: CronService;
  start(runtime: ExtensionRuntime): Promise<void>;
  stop(): Promise<void>;
} {
  const { store, logger } = context;
  const state = new SchedulerState(context);

  const service: CronService = {
    list: () => state.engine().list(),
    async add(input, origin) {
      if (origin === undefined) return state.engine().add(input);
      const spec = { ...(input as Record<string, unknown>) };
      spec.agentId ??= origin.agentId;
      spec.sessionKey ??= origin.sessionKey;
      if (spec.delivery === undefined) {
        // Freeze the chat the job was made in, so the reply comes back there.
        const route = (await store.getSession(origin.sessionKey))?.lastRoute;
        spec.delivery =
          route === undefined
            ? announceToLast
            : {
                mode: 'announce',
                channel: route.channel,
                to: route.to,
                accountId: route.accountId,
                threadId: route.threadId,
              };
      }
      return state.engine().add(spec);
    },
    update(id, patch) {
      refuseHeartbeat(id, 'change');
      return state.engine().update(id, patch);
    },
    remove(id) {
      refuseHeartbeat(id, 'turn off');
      return state.engine().remove(id);
    },
    run: (id) => state.engine().run(id),
    runs: (id, limit) => state.engine().runs(id, limit),
    async status() {
      const counters = state.scheduler?.status();
      const heartbeat = (await store.listState(heartbeatUsageNamespace))
        .map((record) => record.value as HeartbeatUsageDay)
        .sort((a, b) => b.day.localeCompare(a.day) || a.agentId.localeCompare(b.agentId));
      return {
        enabled: state.enabled(),
        started: counters?.started ?? false,
        jobs: counters?.jobs ?? 0,
        scheduled: counters?.scheduled ?? 0,
        running: counters?.running ?? 0,
        nextWakeAt:
          counters?.nextWakeAtMs === undefined ? undefined : new Date(counters.nextWakeAtMs).toISOString(),
        wakeups: counters?.wakeups ?? 0,
        heartbeat,
      };
    },
    async deliveryForSession(sessionKey) {
      const match = /^agent:[^:]+:cron:(.+):run:[^:]+$/.exec(sessionKey);
      if (match === null) return undefined;
      const job = await state.scheduler?.get(match[1]!);
      return job === undefined ? undefined : (job.delivery ?? announceToLast);
    },
  };
  services.set(store, service);

  return {
    service,
    async start(started) {
      state.runtime = started;
      const config = context.config();
      if (!config.cron.enabled) {
        logger.info('schedules are off (cron.enabled is false): no jobs or heartbeats run');
        return;
      }
      const scheduler = createScheduler({
        store: createStateSchedulerStore(store, { historyLimit: config.cron.historyLimit }),
        execute: jobExecutor(state, context),
        logger: logger as Logger,
        onEvent: schedulerEvents(state, context),
        timers: {
          now: context.now,
          setTimeout: (callback, delayMs) => setTimeout(callback, delayMs).unref(),
          clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
        },
        failureAlertAfter: config.cron.failureAlertAfter,
        missedGraceMs: config.cron.missedGraceSeconds * 1000,
      });
      state.scheduler = scheduler;
      await scheduler.start();
      for (const agentId of agentIds(config)) await syncHeartbeat(state, context.config(), logger, agentId);
      const status = scheduler.status();
      logger.info('scheduler started', { jobs: status.jobs, scheduled: status.scheduled });
    },
    async stop() {
      await state.scheduler?.stop();
    },
  };
}
