// Socket Mode through bolt's SocketModeReceiver, with two changes to its defaults:
// - an envelope is acknowledged only after the gateway journaled its message (bolt acks
//   events before running listeners), so a crash before the journal write gets it again;
// - reconnection is ours: exponential backoff with an injectable sleep, and a dead app
//   token stops the account instead of retrying forever (or rejecting unhandled).
import type { App, SocketModeReceiver } from '@slack/bolt';
import { backoffDelay, type Logger, type Sleep } from '@switchboard/hooks';
import { SlackChannelError } from './errors.ts';
import { classifySlackError } from './web-api.ts';

/** The `slack_event` a SocketModeClient emits. */
interface SocketEventArgs {
  readonly ack: (response?: Record<string, unknown>) => Promise<void>;
  readonly body: Record<string, unknown>;
  readonly retry_num?: number;
  readonly retry_reason?: string;
  readonly envelope_id?: string;
}

export interface SocketConnectionOptions {
  readonly receiver: SocketModeReceiver;
  readonly app: App;
  readonly accountId: string;
  readonly logger: Logger;
  readonly sleep: Sleep;
  readonly signal: AbortSignal;
  /** First reconnect delay after a failed attempt (the first attempt is immediate). */
  readonly reconnectBaseMs: number;
  readonly reconnectMaxMs: number;
  onConnected(): void;
  onReconnecting(reason: string): void;
  /** The app token was refused: the account cannot go on. */
  onFatal(error: SlackChannelError): void;
}

export interface SocketConnection {
  /** Opens the first connection; rejects with SLACK_AUTH_FAILED (fatal) or SLACK_SOCKET_FAILED (retryable). */
  connect(): Promise<void>;
  /** Closes the connection and stops reconnecting. */
  close(): Promise<void>;
}

export function createSocketConnection(options: SocketConnectionOptions): SocketConnection {
  const client = options.receiver.client;
  let closing = false;
  let reconnecting = false;
  let connectedOnce = false;

  // Replace bolt's listener: run the listeners first, then ack only if they succeeded.
  client.removeAllListeners('slack_event');
  client.on('slack_event', async (args: SocketEventArgs) => {
    try {
      await options.app.processEvent({
        body: args.body,
        ack: async () => {},
        retryNum: args.retry_num,
        retryReason: args.retry_reason,
        customProperties: {},
      });
    } catch (error) {
      options.logger.warn('a Socket Mode envelope was not acknowledged; Slack will send it again', {
        envelopeId: args.envelope_id,
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    try {
      await args.ack();
    } catch (error) {
      options.logger.warn('could not acknowledge a Socket Mode envelope; Slack will send it again', {
        envelopeId: args.envelope_id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });
  // Without a listener the client's emitter would throw on 'error' events.
  client.on('error', (error: unknown) => {
    options.logger.debug('Socket Mode socket error', {
      error: error instanceof Error ? error.message : String(error),
    });
  });
  client.on('disconnected', () => {
    if (!connectedOnce || closing || reconnecting || options.signal.aborted) return;
    void reconnect('the Socket Mode connection closed');
  });

  function toConnectError(error: unknown): SlackChannelError {
    const failure = classifySlackError(error, 'apps.connections.open', options.accountId);
    if (failure.kind === 'error' && failure.error.code === 'SLACK_AUTH_FAILED') {
      return new SlackChannelError(
        'SLACK_AUTH_FAILED',
        `Slack refused the app-level token of account "${options.accountId}" (${failure.slackError}): check channels.slack appToken (xapp-…, scope connections:write).`,
        { details: { accountId: options.accountId, slackError: failure.slackError }, cause: error },
      );
    }
    const reason =
      failure.kind === 'rate-limited'
        ? `rate limited (retry after ${failure.retryAfterSeconds} s)`
        : failure.error.message;
    return new SlackChannelError(
      'SLACK_SOCKET_FAILED',
      `the Socket Mode connection of account "${options.accountId}" could not be opened: ${reason}`,
      { retryable: true, details: { accountId: options.accountId }, cause: error },
    );
  }

  async function open(): Promise<void> {
    try {
      await client.start();
    } catch (error) {
      throw toConnectError(error);
    }
  }

  async function reconnect(reason: string): Promise<void> {
    reconnecting = true;
    let lastReason = reason;
    try {
      for (let attempt = 0; !closing && !options.signal.aborted; attempt += 1) {
        options.onReconnecting(lastReason);
        const delay =
          attempt === 0
            ? 0
            : backoffDelay({ attempt, baseMs: options.reconnectBaseMs, capMs: options.reconnectMaxMs });
        if (delay > 0) {
          try {
            await options.sleep(delay, options.signal);
          } catch {
            return;
          }
        }
        if (closing || options.signal.aborted) return;
        try {
          await open();
          options.logger.info('Socket Mode reconnected', { attempt: attempt + 1 });
          options.onConnected();
          return;
        } catch (error) {
          const failure = error as SlackChannelError;
          if (failure.code === 'SLACK_AUTH_FAILED') {
            options.onFatal(failure);
            return;
          }
          lastReason = failure.message;
          options.logger.warn('Socket Mode reconnect failed; trying again', {
            attempt: attempt + 1,
            error: failure.message,
          });
        }
      }
    } finally {
      reconnecting = false;
    }
  }

  return {
    async connect() {
      await open();
      connectedOnce = true;
      options.onConnected();
    },
    async close() {
      closing = true;
      try {
        await client.disconnect();
      } catch {
        // Already closed.
      }
    },
  };
}
