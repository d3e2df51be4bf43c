// The runtime, built in dependency order once storage, plugins and extensions exist: run
// registry, channels, the outbound path, model services, the turn runner, the session
// dispatcher with its queue outcomes, directives and inbound admission.
import { join } from 'node:path';
import type { AuthProfileManager } from '@switchboard/auth-profiles';
import type { StreamFunction } from '@switchboard/core-loop';
import type { Logger, PluginRegistry } from '@switchboard/hooks';
import { createSessionDispatcher, defaultQueueSettings, type SessionDispatcher } from '@switchboard/sessions';
import type { Broadcast } from '../access/event-audience.ts';
import { createPairingStore, type PairingStore } from '../access/pairing.ts';
import type { ExtensionHost } from '../extensions/host.ts';
import { type ChannelManager, createChannelManager } from '../runtime/channels.ts';
import { createDirectives } from '../runtime/directives.ts';
import { type IdleHeapTrim, startIdleHeapTrim } from '../runtime/idle-heap-trim.ts';
import { createInbound, type Inbound } from '../runtime/inbound.ts';
import type { LiveConfig } from '../runtime/live-config.ts';
import { createModelServices } from '../runtime/model-services.ts';
import type { ModelCatalog } from '../runtime/models.ts';
import { createNotAnsweredLog, type NotAnsweredLog } from '../runtime/not-answered.ts';
import { createOutbound, type SendOutbound } from '../runtime/outbound.ts';
import { createQueueOutcomes } from '../runtime/queue-outcomes.ts';
import { createTurnRunner } from '../runtime/runner.ts';
import { createRunRegistry, type RunRegistry } from '../runtime/runs.ts';
import type { TurnInput } from '../runtime/turn-input.ts';
import { subagentSettings } from '../subagents/settings.ts';
import type { GatewayStorage } from './gateway-storage.ts';

export interface RuntimeAssemblyOptions {
  readonly live: LiveConfig;
  readonly stateDirectory: string;
  readonly storage: GatewayStorage;
  readonly registry: PluginRegistry;
  readonly extensions: ExtensionHost;
  readonly catalog: ModelCatalog;
  /** The model stream (the provider registry's, or a test's replacement). */
  readonly streamFn: StreamFunction;
  /** Where run events go (the event hub: sockets and, with replicas, the relay). */
  readonly broadcast: Broadcast;
  readonly workspaceFor: (agentId: string) => string;
  readonly isShuttingDown: () => boolean;
  readonly logger: Logger;
  readonly now: () => number;
}

export interface GatewayRuntime {
  readonly runs: RunRegistry;
  readonly notAnswered: NotAnsweredLog;
  readonly pairing: PairingStore;
  readonly channels: ChannelManager;
  readonly send: SendOutbound;
  readonly auth: AuthProfileManager;
  readonly dispatcher: SessionDispatcher<TurnInput>;
  readonly inbound: Inbound;
  readonly heapTrim: IdleHeapTrim;
}

export async function assembleRuntime(options: RuntimeAssemblyOptions): Promise<GatewayRuntime> {
  const { live, storage, registry, extensions, catalog, logger, now } = options;
  const { store, journal } = storage;
  const config = live.current();
  const pairing = createPairingStore(store, { now });
  await pairing.load();
  const relay = storage.replicas?.relay;
  const runs = relay?.runs(createRunRegistry({ now })) ?? createRunRegistry({ now });
  const notAnswered = createNotAnsweredLog({ now });
  // Channels deliver to inbound admission and inbound answers through the channels: the one
  // cycle of the runtime, closed by this late-bound receiver (no message arrives before
  // `channels.start`, which runs once everything is built).
  let receiver: Inbound | undefined;
  const channels = createChannelManager({
    logger,
    now,
    dataRoot: join(options.stateDirectory, 'channels'),
    receive: (account, message) => receiver!.receiveFromChannel(account, message),
    notAnswered,
    leases: storage.replicas?.channelLeases,
  });
  const send = createOutbound({
    hooks: registry.hooks,
    channels,
    store,
    confirmSendAllowed: storage.replicas?.channelLeases.confirmSendAllowed,
    logger,
    now,
  });
  const { streamFn, auth, compactor, compactionSettings } = await createModelServices({
    config,
    store,
    registry,
    catalog,
    logger,
    now,
    streamFn: options.streamFn,
  });
  const runner = createTurnRunner({
    config: live,
    stateDirectory: options.stateDirectory,
    store,
    journal,
    hooks: registry.hooks,
    catalog,
    streamFn,
    channels,
    send,
    runs,
    broadcast: options.broadcast,
    logger,
    now,
    tools: extensions.tools,
    promptSections: extensions.promptSections,
    auth,
    compactor,
    compactionSettings,
    workspaceFor: options.workspaceFor,
    isShuttingDown: options.isShuttingDown,
  });
  const queueOutcomes = createQueueOutcomes({
    journal,
    runs,
    send,
    logger,
    notAnswered,
    capFor: (channel) =>
      live.current().messages.queue?.byChannel?.[channel]?.cap ??
      live.current().messages.queue?.cap ??
      defaultQueueSettings.cap,
  });
  // Gives the heap back once traffic stops (decision 0008).
  const heapTrim = startIdleHeapTrim({
    onCollected: (report) =>
      logger.debug('gave heap back after traffic stopped', {
        ms: Math.round(report.durationMs),
        heapMbBefore: Math.round(report.heapBeforeBytes / 1_048_576),
        heapMbAfter: Math.round(report.heapAfterBytes / 1_048_576),
      }),
    // The dispatcher is built just below; the trim asks it only once traffic has stopped.
    isBusy: () => {
      const stats = dispatcher.stats();
      return (
        stats !== undefined && (stats.runningRuns > 0 || stats.waitingRuns > 0 || stats.queuedMessages > 0)
      );
    },
  });
  const dispatcher = createSessionDispatcher<TurnInput>({
    runBatch: (batch, signal) => runner.runBatch(batch, signal),
    trySteer: (run, message) => runner.trySteer(run, message),
    maxConcurrentRuns: config.agents.defaults.maxConcurrent,
    laneLimits: { subagent: subagentSettings(config).maxConcurrent },
    defaults: {},
    onEvent: (event) => {
      if (event.type === 'run_end') heapTrim.noteActivity();
      if (event.type === 'dropped' || event.type === 'summarized') {
        queueOutcomes(event);
      } else if (event.type === 'run_end' && event.outcome === 'error') {
        logger.error('run crashed', {
          sessionKey: event.sessionKey,
          runId: event.runId,
          error: String(event.error),
        });
      }
    },
  });
  const directives = createDirectives({
    config: live,
    store,
    hooks: registry.hooks,
    registry,
    catalog,
    dispatcher,
    now,
  });
  const inbound = createInbound({
    config: live,
    store,
    journal,
    hooks: registry.hooks,
    pairing,
    directives,
    runs,
    send,
    logger,
    now,
    dispatcher,
    notAnswered,
    replicas: storage.replicas?.coordinator,
  });
  receiver = inbound;
  return { runs, notAnswered, pairing, channels, send, auth, dispatcher, inbound, heapTrim };
}
