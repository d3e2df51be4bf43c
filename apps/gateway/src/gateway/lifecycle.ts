// The end of a gateway: stop admitting, let running turns finish (up to the grace period,
// then abort them: their journal records stay open and resume on the next start), then
// close the server, the channels, the extensions, the plugins and the store, in that order.
import type { Logger, PluginRegistry } from '@switchboard/hooks';
import type { SessionDispatcher, SessionStore } from '@switchboard/sessions';
import type { ProtocolServer } from '../protocol/server.ts';
import type { ChannelManager } from '../runtime/channels.ts';
import type { TurnInput } from '../runtime/turn-input.ts';

export interface GatewayCloseOptions {
  /** Marks the gateway as shutting down (new work is refused from then on). */
  readonly beginShutdown: () => void;
  /** Stops timers and watchers that would start new work. */
  readonly stopBackground: () => void;
  readonly dispatcher: SessionDispatcher<TurnInput>;
  readonly registry: PluginRegistry;
  /** Aborted once gateway_stop has run (the signal gateway_start received). */
  readonly gatewaySignal: AbortController;
  readonly server: ProtocolServer;
  readonly channels: ChannelManager;
  /** The extensions' stop callbacks (MCP connections, schedulers, …): after the channels, before the store. */
  readonly stopExtensions: () => Promise<void>;
  readonly store: SessionStore;
  readonly logger: Logger;
}

/** The gateway's `close`: the first call does the work, later calls share its promise. */
export function createGatewayClose(
  options: GatewayCloseOptions,
): (reason?: string, graceMs?: number) => Promise<void> {
  let closing: Promise<void> | undefined;
  return (reason = 'shutdown', graceMs = 10_000) => {
    closing ??= (async () => {
      options.beginShutdown();
      options.stopBackground();
      const drained = options.dispatcher.close({ abort: false });
      const timer = new Promise<'timeout'>((resolveTimeout) =>
        setTimeout(() => resolveTimeout('timeout'), graceMs).unref(),
      );
      if ((await Promise.race([drained.then(() => 'done' as const), timer])) === 'timeout')
        await options.dispatcher.close({ abort: true });
      const hooks = options.registry.hooks;
      if (hooks.has('gateway_stop'))
        await hooks.run('gateway_stop', { reason: reason === 'restart' ? 'restart' : 'shutdown' });
      options.gatewaySignal.abort();
      await options.server.close(reason);
      await options.channels.stop();
      await options.stopExtensions();
      await options.registry.unregisterAll();
      await options.store.close();
      options.logger.info('gateway stopped', { reason });
    })();
    return closing;
  };
}
