// Webhook mode: grammY's `webhookCallback` mounted on the gateway's own HTTP server. It
// checks `X-Telegram-Bot-Api-Secret-Token` (in constant time; a wrong one gets 401) and
// answers 200 only after the update was handled, so Telegram redelivers anything the
// gateway did not take. A handling failure answers 500 for the same reason.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HttpRoute, Logger } from '@switchboard/hooks';
import { type Bot, webhookCallback } from 'grammy';

/** How long one update may take to be handled before the webhook answers 500. */
const handleTimeoutMs = 50_000;

export interface WebhookRouteOptions {
  readonly bot: Bot;
  readonly path: string;
  readonly secretToken: string;
  readonly logger: Logger;
}

export function createWebhookRoute(options: WebhookRouteOptions): HttpRoute {
  const callback = webhookCallback(options.bot, 'http', {
    secretToken: options.secretToken,
    onTimeout: 'throw',
    timeoutMilliseconds: handleTimeoutMs,
  });
  return {
    path: options.path,
    auth: 'plugin',
    methods: ['POST'],
    async handler(request, response) {
      try {
        await callback(request, response);
      } catch (error) {
        options.logger.warn('telegram webhook update not handled; Telegram will deliver it again', {
          error: error instanceof Error ? error.message : String(error),
        });
        if (!response.headersSent) {
          response
            .writeHead(500, { 'content-type': 'application/json' })
            .end(JSON.stringify({ ok: false, error: 'update not handled' }));
        }
      }
    },
  };
}

/**
 * The webhook's secret token: the configured one, or one generated once and kept in the
 * account's data directory (mode 0600), so restarts keep using the same secret.
 */
export async function resolveWebhookSecret(
  configured: string | undefined,
  dataDirectory: string,
): Promise<string> {
  if (configured !== undefined) return configured;
  const path = join(dataDirectory, 'webhook-secret');
  try {
    const stored = (await readFile(path, 'utf8')).trim();
    if (/^[A-Za-z0-9_-]{16,256}$/.test(stored)) return stored;
  } catch {
    // Not generated yet.
  }
  const secret = randomBytes(32).toString('base64url');
  await writeFile(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}
