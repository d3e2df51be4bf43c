/**
 * LISTEN/NOTIFY between replicas. A listener holds one dedicated connection (not from the
 * pool: LISTEN is per session) and reconnects after a failure; notifications sent while it
 * was disconnected are lost, so every user pairs it with a poll (NOTIFY is a wake-up, never
 * the only path). Payloads are limited by PostgreSQL to under 8000 bytes.
 */
import type { Client } from 'pg';
import type { Database } from './database.ts';

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; we stay below with room to spare. */
const notifyPayloadLimitBytes = 7900;

/** A running listener. */
export interface NotificationListener {
  /** Whether the connection is up now (a poll covers the gaps). */
  readonly connected: boolean;
  close(): Promise<void>;
}

/**
 * The notification seam. Contract: `notify` delivers `payload` to every listener of
 * `channel` on every replica whose listener is connected when the statement commits
 * (possibly including the sender's own); it rejects payloads over the limit.
 * `listen` calls `onNotification` for each one, in commit order per sender.
 */
export interface Notifications {
  notify(channel: string, payload: string): Promise<void>;
  listen(
    channels: readonly string[],
    onNotification: (channel: string, payload: string) => void,
  ): Promise<NotificationListener>;
}

export function createNotifications(parts: {
  readonly database: Database;
  readonly createClient: () => Client;
  readonly onConnectionError?: (error: Error) => void;
}): Notifications {
  const { database } = parts;
  return {
    async notify(channel, payload) {
      const size = Buffer.byteLength(payload);
      if (size >= notifyPayloadLimitBytes) {
        throw new RangeError(
          `NOTIFY payload on ${channel} is ${size} bytes; PostgreSQL takes less than 8000 (send a reference instead).`,
        );
      }
      await database.query('notify', 'SELECT pg_notify($1, $2)', [channel, payload]);
    },

    async listen(channels, onNotification) {
      let closed = false;
      let connected = false;
      let client: Client | undefined;
      let retry: NodeJS.Timeout | undefined;

      const connect = async (): Promise<void> => {
        const next = parts.createClient();
        next.on('notification', (message) => {
          if (message.payload !== undefined) onNotification(message.channel, message.payload);
        });
        const lost = (error?: Error): void => {
          if (client !== next) return;
          connected = false;
          client = undefined;
          if (error !== undefined) parts.onConnectionError?.(error);
          void next.end().catch(() => undefined);
          schedule();
        };
        next.on('error', lost);
        next.on('end', () => lost());
        client = next;
        await next.connect();
        for (const channel of channels) await next.query(`LISTEN ${quoteIdentifier(channel)}`);
        connected = true;
      };
      const schedule = (): void => {
        if (closed || retry !== undefined) return;
        retry = setTimeout(() => {
          retry = undefined;
          connect().catch((error: Error) => {
            client = undefined;
            parts.onConnectionError?.(error);
            schedule();
          });
        }, 1000);
        retry.unref();
      };
      await connect();
      return {
        get connected() {
          return connected;
        },
        async close() {
          closed = true;
          if (retry !== undefined) clearTimeout(retry);
          const current = client;
          client = undefined;
          connected = false;
          await current?.end().catch(() => undefined);
        },
      };
    },
  };
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
