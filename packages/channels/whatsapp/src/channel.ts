// createWhatsAppChannel: the WhatsApp channel plugin, with the transport chosen per account.
import {
  type ChannelAccount,
  type ChannelCapabilities,
  type ChannelPlugin,
  type ChannelStartContext,
  unreferencedTimers,
} from '@switchboard/hooks';
import { normalizeAllowEntry } from './address.ts';
import { type BaileysAccountDependencies, startBaileysAccount } from './baileys/account.ts';
import type { BaileysConnectionState } from './baileys/connection.ts';
import type { MediaDownloader } from './baileys/media.ts';
import type { MakeWhatsAppSocket } from './baileys/socket.ts';
import { resolveSocketFactory } from './baileys/socket-factory.ts';
import { startCloudAccount } from './cloud/account.ts';
import { type WhatsAppAccountConfig, whatsappChannelConfig } from './config.ts';
import { defaultRateLimitRetry, type RateLimitRetryPolicy } from './retry.ts';
import type { Timers } from './timers.ts';

/** WhatsApp's limit is 4096 characters (Cloud API); 4000 leaves room, as OpenClaw does. */
export const whatsappTextLimit = 4000;

/** What WhatsApp can do, for both transports. */
export const whatsappCapabilities: ChannelCapabilities = {
  chatTypes: ['direct', 'group'],
  threads: false,
  media: true,
  edits: false,
  typing: true,
  reactions: false,
  textLimit: whatsappTextLimit,
  markup: 'whatsapp',
};

export interface WhatsAppChannelOptions {
  /**
   * Opens the linked-device socket (`baileys` transport). Default: Baileys' `makeWASocket`.
   * Tests pass testkit's fake socket factory here.
   */
  readonly makeSocket?: MakeWhatsAppSocket;
  /** The HTTP client of the `cloud` transport. Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Timers for reconnect backoff, retries and typing leases. Default: Node's (unreferenced). */
  readonly timers?: Timers;
  readonly now?: () => number;
  /** Jitter of the reconnect backoff. Default: `Math.random`. */
  readonly random?: () => number;
  /** How the gateway retries a rate-limited send (attempts, the wait when WhatsApp gives none, the longest wait). */
  readonly rateLimitRetry?: RateLimitRetryPolicy;
  /**
   * Read for the test-only socket factory (`SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY` with
   * `NODE_ENV=test`), when `makeSocket` is not given. Default: `process.env`.
   */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** Shows a linking QR code (rendered for a terminal, and the raw payload). Default: the gateway log. */
  readonly printQr?: (rendered: string, qr: string) => void;
  /** Observes the linked-device connection's state changes (per account). */
  readonly onConnectionState?: (accountId: string, state: BaileysConnectionState) => void;
  /** Replaces Baileys' media download (tests). */
  readonly downloadMedia?: MediaDownloader;
}

/** Creates the WhatsApp channel: `baileys` (linked device) or `cloud` (Business Cloud API) per account. */
export function createWhatsAppChannel(
  options: WhatsAppChannelOptions = {},
): ChannelPlugin<WhatsAppAccountConfig> {
  const timers = options.timers ?? unreferencedTimers;
  const rateLimitRetry = options.rateLimitRetry ?? defaultRateLimitRetry;
  return {
    id: 'whatsapp',
    label: 'WhatsApp',
    capabilities: whatsappCapabilities,
    config: whatsappChannelConfig,
    normalizeAllowEntry,
    async start(context: ChannelStartContext<WhatsAppAccountConfig>): Promise<ChannelAccount> {
      if (context.account.transport === 'cloud') {
        return startCloudAccount(context, {
          fetch: options.fetch ?? fetch,
          now: options.now ?? Date.now,
          textLimit: whatsappTextLimit,
          rateLimitRetry,
        });
      }
      const factory = await resolveSocketFactory(
        options.makeSocket,
        options.environment ?? process.env,
        context.logger,
      );
      const dependencies: BaileysAccountDependencies = {
        makeSocket: factory.makeSocket,
        testModule: factory.testModule,
        timers,
        now: options.now ?? Date.now,
        random: options.random ?? Math.random,
        textLimit: whatsappTextLimit,
        rateLimitRetry,
        printQr: options.printQr,
        onConnectionState:
          options.onConnectionState === undefined
            ? undefined
            : (state: BaileysConnectionState) => options.onConnectionState?.(context.accountId, state),
        downloadMedia: options.downloadMedia,
      };
      return startBaileysAccount(context, dependencies);
    },
  };
}
