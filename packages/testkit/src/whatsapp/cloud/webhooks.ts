// Webhook delivery of the fake Cloud API: what people write and delivery statuses, in Meta's
// `whatsapp_business_account` envelope, signed with X-Hub-Signature-256 and POSTed to the
// business's webhook, retried while it fails; the subscription handshake; redelivery.
import { createHmac, randomBytes } from 'node:crypto';
import { sleep } from '@switchboard/hooks';
import { TestkitError } from '../../shared/errors.ts';
import type { FakeCloudDelivery, FakeCloudSendOptions } from './types.ts';
import { type CloudWorld, digitsOf, newMessageId } from './world.ts';

/** How failing deliveries (network error, non-2xx) are retried. */
export interface WebhookRetry {
  readonly attempts: number;
  readonly delayMs: number;
}

export class CloudWebhooks {
  readonly #world: CloudWorld;
  readonly #retry: WebhookRetry;
  /** The webhook body of each message a person wrote, by id: what a redelivery sends. */
  readonly #payloads = new Map<string, string>();
  #webhook: string | undefined;

  constructor(world: CloudWorld, retry: WebhookRetry) {
    this.#world = world;
    this.#retry = retry;
  }

  /** Where webhooks go. Later deliveries and retries use the new URL. */
  setWebhook(url: string): void {
    this.#webhook = url;
  }

  /** Signs a body as Meta does (`sha256=<hex HMAC with the app secret>`). */
  sign(body: string): string {
    return `sha256=${createHmac('sha256', this.#world.appSecret).update(body).digest('hex')}`;
  }

  /** Posts a body once with these headers (no signing, no retries). */
  async post(
    body: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<{ status: number; body: string }> {
    const response = await fetch(this.#requireWebhook(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: response.status, body: await response.text() };
  }

  /** Meta's subscription handshake: `GET <webhook>?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`. */
  async verify(token: string): Promise<{ status: number; body: string; challenge: string }> {
    const url = new URL(this.#requireWebhook());
    const challenge = String(randomBytes(4).readUInt32BE(0));
    url.searchParams.set('hub.mode', 'subscribe');
    url.searchParams.set('hub.verify_token', token);
    url.searchParams.set('hub.challenge', challenge);
    const response = await fetch(url);
    return { status: response.status, body: await response.text(), challenge };
  }

  /** A person writes `message` (its `type` and content): delivered signed, with retries. */
  async inbound(
    from: string,
    message: Record<string, unknown>,
    sendOptions: FakeCloudSendOptions,
  ): Promise<{ messageId: string } & FakeCloudDelivery> {
    const world = this.#world;
    const waId = digitsOf(from);
    const id = sendOptions.id ?? newMessageId();
    if (sendOptions.group !== undefined && !world.hasGroup(sendOptions.group)) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `no group ${sendOptions.group}: call createGroup first`,
      );
    }
    world.recordInbound(waId);
    const body = this.#envelope({
      contacts: [{ profile: { name: sendOptions.name ?? `User ${waId.slice(-4)}` }, wa_id: waId }],
      messages: [
        {
          from: waId,
          id,
          timestamp: String(Math.floor(world.now() / 1000)),
          group_id: sendOptions.group,
          context:
            sendOptions.replyTo === undefined
              ? undefined
              : {
                  id: sendOptions.replyTo,
                  from: world.sent.some((sent) => sent.id === sendOptions.replyTo)
                    ? world.businessDigits
                    : waId,
                },
          ...message,
        },
      ],
    });
    this.#payloads.set(id, body);
    return { messageId: id, ...(await this.#deliver(body)) };
  }

  /** Sends the same webhook again (Meta retries and duplicates happen). */
  redeliver(messageId: string): Promise<FakeCloudDelivery> {
    const body = this.#payloads.get(messageId);
    if (body === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `redeliver: no webhook for ${messageId}`);
    return this.#deliver(body);
  }

  /** A delivery status webhook (`sent`, `delivered`, `read`, `failed` with an error code). */
  status(messageId: string, status: string, errorCode?: number): Promise<FakeCloudDelivery> {
    const record = this.#world.sent.find((message) => message.id === messageId);
    return this.#deliver(
      this.#envelope({
        statuses: [
          {
            id: messageId,
            status,
            timestamp: String(Math.floor(this.#world.now() / 1000)),
            recipient_id: record === undefined ? '' : record.conversationId.replace(/^\+/, ''),
            errors: errorCode === undefined ? undefined : [{ code: errorCode, title: `error ${errorCode}` }],
          },
        ],
      }),
    );
  }

  async #deliver(body: string): Promise<FakeCloudDelivery> {
    const retry = this.#retry;
    let last = 0;
    for (let attempt = 1; attempt <= retry.attempts; attempt += 1) {
      try {
        last = (await this.post(body, { 'x-hub-signature-256': this.sign(body) })).status;
        if (last >= 200 && last < 300) return { status: last, attempts: attempt };
      } catch {
        last = 0;
      }
      if (attempt < retry.attempts) await sleep(retry.delayMs);
    }
    return { status: last, attempts: retry.attempts };
  }

  #envelope(value: Record<string, unknown>): string {
    const world = this.#world;
    return JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: world.businessAccountId,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: {
                  display_phone_number: world.businessDigits,
                  phone_number_id: world.phoneNumberId,
                },
                ...value,
              },
            },
          ],
        },
      ],
    });
  }

  #requireWebhook(): string {
    if (this.#webhook === undefined)
      throw new TestkitError('TESTKIT_NOT_STARTED', 'FakeWhatsAppCloud: setWebhook() first');
    return this.#webhook;
  }
}
