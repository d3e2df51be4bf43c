// The gateway's scheduler: the engine over the session store, the executor that turns a due
// job into a turn (`inbound.submitRpc`, idempotent per run id) and its reply into a delivery
// with receipts, the heartbeat jobs made from config, and what the tool and `cron.*` share.
import type { Logger } from '@switchboard/hooks';
import {
  createScheduler,
  createStateSchedulerStore,
  type Delivery,
  isolatedSessionKey,
  type Job,
  type RunContext,
  type RunHistoryEntry,
  type RunResult,
  type Scheduler,
  SchedulerError,
  type SchedulerEvent,
} from '@switchboard/scheduler';
import type { SessionStore } from '@switchboard/sessions';
import type { ExtensionContext, ExtensionRuntime } from '../extension.ts';
import { deliverText, resolveTarget } from './delivery.ts';
import {
  agentIds,
  type HeartbeatUsageDay,
  heartbeatJobId,
  heartbeatJobSpec,
  heartbeatReply,
  heartbeatSettings,
  heartbeatUsageNamespace,
  planHeartbeat,
  recordHeartbeatUsage,
} from './heartbeat.ts';
import { awaitFinal, outcomeOf } from './run-final.ts';

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

/** The default delivery: the reply goes to the last chat of the job's session. */
const announceToLast: Delivery = { mode: 'announce', channel: 'last' };

const services = new WeakMap<SessionStore, CronService>();

/** The scheduler of the gateway that owns `store` (methods reach it through their store). */
export function cronServiceOf(store: SessionStore): CronService | undefined {
  return services.get(store);
}

/** Never settles before `signal` fires; then rejects with its reason. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export function createCronService(context: ExtensionContext): {
  service: CronService;
  start(runtime: ExtensionRuntime): Promise<void>;
  stop(): Promise<void>;
} {
  const { store, logger } = context;
  let runtime: ExtensionRuntime | undefined;
  let scheduler: Scheduler | undefined;

  const enabled = () => context.config().cron.enabled;
  function engine(): Scheduler {
    if (scheduler === undefined) {
      throw new SchedulerError(
        'SCHEDULER_STOPPED',
        enabled()
          ? 'the scheduler has not started yet'
          : 'schedules are off (cron.enabled is false in the config)',
      );
    }
    return scheduler;
  }
  function mustRuntime(): ExtensionRuntime {
    if (runtime === undefined)
      throw new SchedulerError('SCHEDULER_STOPPED', 'the gateway has not started yet');
    return runtime;
  }
  const mainSessionOf = (agentId: string) =>
    mustRuntime().inbound.resolveSession(undefined, agentId).sessionKey;
  const defaultAgent = () => mustRuntime().inbound.resolveSession(undefined, undefined).agentId;

  async function prepareSession(
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

  async function execute({ job, run, resumed, signal }: RunContext): Promise<RunResult> {
    const current = mustRuntime();
    const config = context.config();
    const agentId = job.agentId ?? defaultAgent();
    const mainKey = mainSessionOf(agentId);
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
        queueMicrotask(() => void syncHeartbeat(agentId).catch(() => undefined));
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
              ...(plan.settings.to === undefined ? {} : { to: plan.settings.to }),
              ...(plan.settings.accountId === undefined ? {} : { accountId: plan.settings.accountId }),
            };
      if (!resumed) await prepareSession(sessionKey, agentId, plan.settings.model, true);
    } else if (payload.kind === 'agentTurn') {
      sessionKey = isolatedSessionKey(agentId, job.id, run.runId);
      message = payload.message;
      thinking = payload.thinking;
      if (payload.timeoutSeconds !== undefined) timeoutMs = payload.timeoutSeconds * 1000;
      if (!resumed) await prepareSession(sessionKey, agentId, payload.model, false);
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
          ...(thinking === undefined ? {} : { thinking }),
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
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
          ...(usage === undefined ? {} : { usage }),
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

  /** Tells the operators, and the job's chat when it has one, that a job keeps failing. */
  async function alert(event: Extract<SchedulerEvent, { type: 'failure_alert' }>): Promise<void> {
    const current = mustRuntime();
    const { job } = event;
    const agentId = job.agentId ?? defaultAgent();
    const target = await resolveTarget(
      store,
      job.delivery ?? announceToLast,
      job.sessionKey ?? mainSessionOf(agentId),
    );
    if (target.kind === 'none') return;
    await deliverText({
      send: current.send,
      plugins: context.plugins,
      route: target.route,
      text: `Scheduled job "${job.name}" failed ${event.consecutiveErrors} times in a row: ${event.lastError}`,
      idempotencyKey: `cron-alert:${job.id}:${job.state.lastRunAtMs ?? 0}:${event.consecutiveErrors}`,
      scope: { sessionKey: job.sessionKey ?? mainSessionOf(agentId), agentId },
    });
  }

  function onEvent(event: SchedulerEvent): void {
    runtime?.broadcast('cron', event);
    if (event.type === 'failure_alert') {
      void alert(event).catch((error: unknown) =>
        logger.warn('could not send a scheduled job failure alert', {
          jobId: event.job.id,
          error: String(error),
        }),
      );
    }
  }

  /** Makes the agent's heartbeat job match the config: added, changed, or removed when off. */
  async function syncHeartbeat(agentId: string): Promise<void> {
    const current = engine();
    const id = heartbeatJobId(agentId);
    const settings = heartbeatSettings(context.config(), agentId);
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

  function refuseHeartbeat(id: string, what: string): void {
    if (id.startsWith('heartbeat-')) {
      throw new SchedulerError(
        'SCHEDULER_INVALID_JOB',
        `job ${id} is a heartbeat; ${what} it in agents.defaults.heartbeat (or agents.list[].heartbeat), "every": 0 turns it off`,
      );
    }
  }

  const service: CronService = {
    list: () => engine().list(),
    async add(input, origin) {
      if (origin === undefined) return engine().add(input);
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
                ...(route.accountId === undefined ? {} : { accountId: route.accountId }),
                ...(route.threadId === undefined ? {} : { threadId: route.threadId }),
              };
      }
      return engine().add(spec);
    },
    update(id, patch) {
      refuseHeartbeat(id, 'change');
      return engine().update(id, patch);
    },
    remove(id) {
      refuseHeartbeat(id, 'turn off');
      return engine().remove(id);
    },
    run: (id) => engine().run(id),
    runs: (id, limit) => engine().runs(id, limit),
    async status() {
      const counters = scheduler?.status();
      const heartbeat = (await store.listState(heartbeatUsageNamespace))
        .map((record) => record.value as HeartbeatUsageDay)
        .sort((a, b) => b.day.localeCompare(a.day) || a.agentId.localeCompare(b.agentId));
      return {
        enabled: enabled(),
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
      const job = await scheduler?.get(match[1]!);
      return job === undefined ? undefined : (job.delivery ?? announceToLast);
    },
  };
  services.set(store, service);

  return {
    service,
    async start(started) {
      runtime = started;
      const config = context.config();
      if (!config.cron.enabled) {
        logger.info('schedules are off (cron.enabled is false): no jobs or heartbeats run');
        return;
      }
      scheduler = createScheduler({
        store: createStateSchedulerStore(store, { historyLimit: config.cron.historyLimit }),
        execute,
        logger: logger as Logger,
        onEvent,
        timers: {
          now: context.now,
          setTimeout: (callback, delayMs) => setTimeout(callback, delayMs).unref(),
          clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
        },
        failureAlertAfter: config.cron.failureAlertAfter,
        missedGraceMs: config.cron.missedGraceSeconds * 1000,
      });
      await scheduler.start();
      for (const agentId of agentIds(config)) await syncHeartbeat(agentId);
      const status = scheduler.status();
      logger.info('scheduler started', { jobs: status.jobs, scheduled: status.scheduled });
    },
    async stop() {
      await scheduler?.stop();
    },
  };
}
