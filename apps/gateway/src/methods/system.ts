import { getHeapStatistics } from 'node:v8';
import { resolveQueueSettings } from '@switchboard/sessions';
import { z } from 'zod';
import { cronServiceOf } from '../extensions/scheduler/service.ts';
import { GatewayError } from '../gateway-error.ts';
import { defineMethod, type GatewayMethod } from '../protocol/method-contract.ts';
import {
  checkModelCredentials,
  modelReferencesInUse,
  probeModelEndpoint,
} from '../runtime/model-credentials.ts';
import type { MethodServices } from './context.ts';

/**
 * `doctor.check`: what `switchboard doctor` asks a running gateway, answered from the
 * gateway's own process: its resolved models and credentials (config, its environment, auth
 * profiles), a probe of each model endpoint from its network, channel health, the queue and
 * credential cooldowns.
 */
async function doctorCheck(services: MethodServices, probe: boolean) {
  const auth = services.authProfilesStatus();
  const models = modelReferencesInUse(services.config).map((reference) =>
    checkModelCredentials({
      config: services.config,
      catalog: services.catalog,
      reference,
      profiles: auth.profiles,
      environmentName: "the gateway's environment",
    }),
  );
  const baseUrls = [
    ...new Set(models.flatMap((model) => (model.baseUrl === undefined ? [] : [model.baseUrl]))),
  ];
  const endpoints = probe
    ? await Promise.all(baseUrls.map((baseUrl) => probeModelEndpoint(baseUrl, { now: services.now })))
    : [];
  const stats = services.dispatcher.stats();
  const unanswered = await services.store.listUnfinishedInbound({ limit: 1000 });
  return {
    source: 'gateway',
    runtimeVersion: services.version,
    pid: process.pid,
    uptimeMs: services.now() - services.startedAt,
    configPath: services.configPath ?? null,
    stateDir: services.stateDirectory,
    models,
    endpoints,
    channels: services.channels.status(),
    queue: {
      running: stats.runningRuns,
      waiting: stats.waitingRuns,
      queuedMessages: stats.queuedMessages,
      pendingInbound: unanswered.length,
      notAnswered: services.notAnswered.counts(),
    },
    /** Profiles that are disabled, cooling down for some models, or without a secret. */
    cooldowns: auth.profiles
      .filter((profile) => profile.state !== 'ready')
      .map((profile) => ({
        id: profile.id,
        provider: profile.provider,
        state: profile.state,
        disabled:
          profile.disabled === undefined
            ? undefined
            : { reason: profile.disabled.reason, remainingMs: profile.disabled.remainingMs },
        models: profile.models.map((window) => ({
          model: window.model,
          reason: window.reason,
          remainingMs: window.remainingMs,
        })),
      })),
    profileCount: auth.profiles.length,
    shuttingDown: services.isShuttingDown(),
  };
}

/** `health`, `status`, `doctor.check`, `send`, and the pairing methods the CLI uses. */
export function systemMethods(services: MethodServices): GatewayMethod[] {
  const health = () => {
    const report = services.pluginLoadReport();
    const channels = services.channels.status();
    return {
      ok: !services.isShuttingDown(),
      ts: services.now(),
      uptimeMs: services.now() - services.startedAt,
      plugins: { loaded: report.loaded, errors: report.failed },
      channels: Object.fromEntries(
        channels.map((channel) => [`${channel.channel}:${channel.accountId}`, channel.status]),
      ),
      channelOrder: channels.map((channel) => `${channel.channel}:${channel.accountId}`),
      defaultAgentId: services.inbound.resolveSession(undefined, undefined).agentId,
      agents: (services.config.agents.list ?? [{ id: 'main' }]).map((agent) => ({ id: agent.id })),
    };
  };
  return [
    defineMethod({
      name: 'health',
      scope: 'operator.read',
      params: z.looseObject({}),
      handle: () => health(),
    }),
    defineMethod({
      name: 'status',
      scope: 'operator.read',
      params: z.looseObject({}),
      async handle() {
        const stats = services.dispatcher.stats();
        const usage = await services.store.diskUsage();
        const unanswered = await services.store.listUnfinishedInbound({ limit: 1000 });
        return {
          runtimeVersion: services.version,
          node: process.version,
          pid: process.pid,
          uptimeMs: services.now() - services.startedAt,
          memory: (() => {
            const usage = process.memoryUsage();
            const heap = getHeapStatistics();
            return {
              rssBytes: usage.rss,
              heapUsedBytes: usage.heapUsed,
              heapTotalBytes: usage.heapTotal,
              externalBytes: usage.external,
              arrayBuffersBytes: usage.arrayBuffers,
              mallocedBytes: heap.malloced_memory,
              peakMallocedBytes: heap.peak_malloced_memory,
            };
          })(),
          cpu: process.cpuUsage(),
          configPath: services.configPath ?? null,
          stateDir: services.stateDirectory,
          channels: services.channels.status(),
          runs: {
            running: stats.runningRuns,
            waiting: stats.waitingRuns,
            queuedMessages: stats.queuedMessages,
            busySessions: stats.busySessions,
          },
          /** Gateways sharing the PostgreSQL store, with their session leases (absent on SQLite). */
          replicas: services.replicaStatus === undefined ? undefined : await services.replicaStatus(),
          /** Journaled inbound messages not yet answered (capped at 1000). */
          pendingInbound: unanswered.length,
          /** Scheduled jobs and each agent's heartbeat runs, skips and tokens per day (decision 0019). */
          schedules: await cronServiceOf(services.store)?.status(),
          /** The queue policy in force (`messages.queue`, defaults filled in). */
          queue: resolveQueueSettings({
            mode: services.config.messages.queue?.mode,
            cap: services.config.messages.queue?.cap,
            drop: services.config.messages.queue?.drop,
            debounceMs: services.config.messages.queue?.debounceMs,
          }),
          /** What the gateway decided not to answer since it started: counts and the latest. */
          notAnswered: { counts: services.notAnswered.counts(), recent: services.notAnswered.recent(20) },
          authProfiles: services.authProfilesStatus(),
          plugins: services.pluginLoadReport(),
          sessions: {
            count: usage.sessions,
            databaseBytes: usage.databaseBytes,
            walBytes: usage.walBytes,
            durability: services.durability,
          },
          shuttingDown: services.isShuttingDown(),
        };
      },
    }),
    defineMethod({
      name: 'doctor.check',
      scope: 'operator.read',
      params: z.looseObject({ probe: z.boolean().optional() }),
      handle: (params) => doctorCheck(services, params.probe !== false),
    }),
    defineMethod({
      name: 'send',
      scope: 'operator.write',
      params: z.looseObject({
        to: z.string().min(1),
        message: z.string().min(1),
        channel: z.string().optional(),
        accountId: z.string().optional(),
        threadId: z.string().optional(),
        replyToId: z.string().optional(),
        silent: z.boolean().optional(),
        idempotencyKey: z.string().min(1),
      }),
      async handle(params) {
        const configured = services.channels.accounts();
        const channel = params.channel ?? (configured.length === 1 ? configured[0]?.channel.id : undefined);
        if (channel === undefined) {
          throw new GatewayError(
            'INVALID_PARAMS',
            configured.length === 0
              ? 'Channel is required (no configured channels detected)'
              : 'Channel is required when several channels are configured',
          );
        }
        const result = await services.send(
          {
            kind: 'text',
            channel,
            accountId: params.accountId ?? 'default',
            peer: { kind: 'direct', id: params.to },
            threadId: params.threadId,
            replyToMessageId: params.replyToId,
            silent: params.silent,
            text: params.message,
          },
          { idempotencyKey: `send:${params.idempotencyKey}` },
        );
        if (result.status === 'cancelled') return { ok: false, cancelled: true, reason: result.reason };
        return {
          ok: true,
          channel,
          messageIds: result.messageIds,
          duplicate: result.status === 'already-sent',
        };
      },
    }),
    defineMethod({
      name: 'pairing.list',
      scope: 'operator.admin',
      params: z.looseObject({ channel: z.string().optional() }),
      async handle(params) {
        return { requests: await services.pairing.list(params.channel) };
      },
    }),
    defineMethod({
      name: 'pairing.approve',
      scope: 'operator.admin',
      params: z.looseObject({ channel: z.string().min(1), code: z.string().min(1) }),
      async handle(params) {
        const request = await services.pairing.approve(params.channel, params.code);
        if (request === undefined)
          throw new GatewayError(
            'NOT_FOUND',
            `no pending pairing code ${params.code.toUpperCase()} on ${params.channel} (codes expire after an hour)`,
          );
        return { ok: true, approved: request };
      },
    }),
    defineMethod({
      name: 'pairing.deny',
      scope: 'operator.admin',
      params: z.looseObject({ channel: z.string().min(1), code: z.string().min(1) }),
      async handle(params) {
        const request = await services.pairing.deny(params.channel, params.code);
        if (request === undefined)
          throw new GatewayError(
            'NOT_FOUND',
            `no pending pairing code ${params.code.toUpperCase()} on ${params.channel}`,
          );
        return { ok: true, denied: request };
      },
    }),
  ];
}
