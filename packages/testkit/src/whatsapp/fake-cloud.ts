// FakeWhatsAppCloud: the WhatsApp Business Cloud API on 127.0.0.1 — the Graph endpoints a
// channel calls (phone number, messages, read receipts + typing, media upload and download)
// and a webhook sender that signs payloads with X-Hub-Signature-256 like Meta does. It keeps
// the 24-hour customer-service window: a free-form message to someone who has not written
// in 24 hours is refused with Graph error 131047.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { sleep } from '@switchboard/hooks';
import { TestkitError } from '../shared/errors.ts';
import { closeServer, listenOnLoopback } from '../shared/http-server.ts';
import { type ConditionWaiter, createConditionWaiter } from '../shared/waiter.ts';
import { sentLog } from './sent-log.ts';

export interface FakeWhatsAppCloudOptions {
  readonly phoneNumberId?: string;
  /** The business number as Meta displays it. Default `+1 555-000-1111`. */
  readonly displayPhoneNumber?: string;
  readonly verifiedName?: string;
  readonly accessToken?: string;
  readonly appSecret?: string;
  readonly verifyToken?: string;
  readonly businessAccountId?: string;
  /** Webhook deliveries that fail (network error, non-2xx) are retried this often, this far apart. */
  readonly webhookRetry?: { readonly attempts: number; readonly delayMs: number };
  readonly now?: () => number;
}

/** A message the business sent through `POST /<phone-number-id>/messages`. */
export interface FakeCloudSentMessage {
  readonly id: string;
  /** `+<digits>` for a person, the group id for a group. */
  readonly conversationId: string;
  readonly recipientType: 'individual' | 'group';
  readonly type: string;
  /** The text body or the caption. */
  readonly text: string;
  /** `context.message_id`: the message it replies to. */
  readonly replyToId?: string;
  /** The uploaded media id, or the link, of a media message. */
  readonly mediaId?: string;
  readonly link?: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly at: number;
}

export interface FakeCloudSendOptions {
  /** The sender's profile name (`contacts[].profile.name`). */
  readonly name?: string;
  /** Write in this group (Groups API: `group_id` on the message). */
  readonly group?: string;
  /** Mention the business (`@<number>` in the text). */
  readonly mentionBusiness?: boolean;
  /** Reply to this message id (`context`). */
  readonly replyTo?: string;
  readonly id?: string;
}

export interface FakeCloudMedia {
  readonly kind: 'image' | 'video' | 'audio' | 'voice' | 'document' | 'sticker';
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  readonly fileName?: string;
  readonly caption?: string;
}

/** How the business's webhook answered one delivery (after retries). */
export interface FakeCloudDelivery {
  readonly status: number;
  readonly attempts: number;
}

export interface FakeWhatsAppCloud {
  start(): Promise<FakeWhatsAppCloud>;
  close(): Promise<void>;
  /** `http://127.0.0.1:<port>`: the channel's `graphBase`. */
  readonly graphBase: string;
  /** The channel settings for this fake: phoneNumberId, accessToken, appSecret, verifyToken, graphBase. */
  readonly credentials: {
    readonly phoneNumberId: string;
    readonly accessToken: string;
    readonly appSecret: string;
    readonly verifyToken: string;
    readonly graphBase: string;
  };
  /** `+<digits>` of the business number. */
  readonly businessId: string;
  /** Where webhooks go (the gateway's route). Later deliveries and retries use the new URL. */
  setWebhook(url: string): void;
  /** Meta's subscription handshake: `GET <webhook>?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`. */
  verifyWebhook(token?: string): Promise<{ status: number; body: string; challenge: string }>;
  /** Creates a group (Groups API) the business is in; returns its opaque id. */
  createGroup(subject: string): string;
  sendText(
    from: string,
    text: string,
    options?: FakeCloudSendOptions,
  ): Promise<{ messageId: string } & FakeCloudDelivery>;
  sendMedia(
    from: string,
    media: FakeCloudMedia,
    options?: FakeCloudSendOptions,
  ): Promise<{ messageId: string } & FakeCloudDelivery>;
  /** Sends the same webhook again (Meta retries and duplicates happen). */
  redeliver(messageId: string): Promise<FakeCloudDelivery>;
  /** Posts a raw body with the headers given (no signing, no retries): for signature tests. */
  postWebhook(
    body: string,
    headers?: Readonly<Record<string, string>>,
  ): Promise<{ status: number; body: string }>;
  /** Signs a body as Meta would. */
  sign(body: string): string;
  /** Sends a delivery status webhook (`sent`, `delivered`, `read`, `failed` with an error code). */
  sendStatus(messageId: string, status: string, errorCode?: number): Promise<FakeCloudDelivery>;
  /** Closes this person's 24-hour window (as if they last wrote a day ago). */
  expireServiceWindow(from: string): void;
  rateLimitNextSends(count: number, retryAfterSeconds: number): void;
  rateLimitedSends(): number;
  sent(conversationId?: string): readonly FakeCloudSentMessage[];
  waitForSent(
    conversationId: string,
    count: number,
    timeoutMs?: number,
  ): Promise<readonly FakeCloudSentMessage[]>;
  /** `status: read` calls, and whether they asked for the typing indicator. */
  reads(): ReadonlyArray<{ readonly messageId: string; readonly typing: boolean }>;
  /** Media the business uploaded. */
  uploads(): ReadonlyArray<{
    readonly id: string;
    readonly mimeType: string;
    readonly fileName: string;
    readonly bytes: Uint8Array;
  }>;
  /** Graph requests refused for a missing or wrong token. */
  unauthorizedRequests(): number;
}

interface StoredMedia {
  readonly id: string;
  readonly bytes: Buffer;
  readonly mimeType: string;
  readonly fileName: string;
}

const graphVersionPattern = /^\/v\d+\.\d+(\/.*)$/;

/** Creates a fake Cloud API; call `start()`. */
export function createFakeWhatsAppCloud(options: FakeWhatsAppCloudOptions = {}): FakeWhatsAppCloud {
  const phoneNumberId = options.phoneNumberId ?? '100000000000001';
  const displayPhoneNumber = options.displayPhoneNumber ?? '+1 555-000-1111';
  const businessDigits = displayPhoneNumber.replace(/\D/g, '');
  const verifiedName = options.verifiedName ?? 'Switchboard Support';
  const accessToken = options.accessToken ?? 'test-access-token';
  const appSecret = options.appSecret ?? 'test-app-secret';
  const verifyToken = options.verifyToken ?? 'test-verify-token';
  const businessAccountId = options.businessAccountId ?? '200000000000002';
  const retry = options.webhookRetry ?? { attempts: 20, delayMs: 250 };
  const now = options.now ?? Date.now;
  const waiter: ConditionWaiter = createConditionWaiter({
    subject: 'FakeWhatsAppCloud',
    defaultTimeoutMs: 10_000,
  });
  const media = new Map<string, StoredMedia>();
  const payloads = new Map<string, string>();
  const lastInbound = new Map<string, number>();
  const groups = new Map<string, string>();
  const sent: FakeCloudSentMessage[] = [];
  const reads: Array<{ messageId: string; typing: boolean }> = [];
  let rateLimit: { count: number; retryAfterSeconds: number } | undefined;
  let rateLimited = 0;
  let unauthorized = 0;
  let webhook: string | undefined;
  let server: Server | undefined;
  let port = 0;

  const requireStarted = () => {
    if (port === 0) throw new TestkitError('TESTKIT_NOT_STARTED', 'FakeWhatsAppCloud: call start() first');
  };
  const digitsOf = (value: string) => value.replace(/\D/g, '');
  const graphError = (
    response: ServerResponse,
    status: number,
    code: number,
    message: string,
    extra: Record<string, string> = {},
  ) => {
    response.writeHead(status, { 'content-type': 'application/json', ...extra }).end(
      JSON.stringify({
        error: {
          message,
          type: 'OAuthException',
          code,
          error_data: { messaging_product: 'whatsapp', details: message },
          fbtrace_id: randomBytes(8).toString('base64url'),
        },
      }),
    );
  };
  const json = (response: ServerResponse, body: unknown) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const readBody = (request: IncomingMessage): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => resolve(Buffer.concat(chunks)));
      request.on('error', reject);
    });

  const sign = (body: string) => `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;

  const post = async (body: string, headers: Readonly<Record<string, string>>) => {
    if (webhook === undefined)
      throw new TestkitError('TESTKIT_NOT_STARTED', 'FakeWhatsAppCloud: setWebhook() first');
    const response = await fetch(webhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: response.status, body: await response.text() };
  };

  const deliver = async (body: string): Promise<FakeCloudDelivery> => {
    let last = 0;
    for (let attempt = 1; attempt <= retry.attempts; attempt += 1) {
      try {
        last = (await post(body, { 'x-hub-signature-256': sign(body) })).status;
        if (last >= 200 && last < 300) return { status: last, attempts: attempt };
      } catch {
        last = 0;
      }
      if (attempt < retry.attempts) await sleep(retry.delayMs);
    }
    return { status: last, attempts: retry.attempts };
  };

  const envelope = (value: Record<string, unknown>) =>
    JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: businessAccountId,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: businessDigits, phone_number_id: phoneNumberId },
                ...value,
              },
            },
          ],
        },
      ],
    });

  const inbound = async (
    from: string,
    message: Record<string, unknown>,
    sendOptions: FakeCloudSendOptions,
  ) => {
    const waId = digitsOf(from);
    const id = sendOptions.id ?? `wamid.${randomBytes(18).toString('base64url')}`;
    if (sendOptions.group !== undefined && !groups.has(sendOptions.group)) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `no group ${sendOptions.group}: call createGroup first`,
      );
    }
    lastInbound.set(waId, now());
    const body = envelope({
      contacts: [{ profile: { name: sendOptions.name ?? `User ${waId.slice(-4)}` }, wa_id: waId }],
      messages: [
        {
          from: waId,
          id,
          timestamp: String(Math.floor(now() / 1000)),
          ...(sendOptions.group === undefined ? {} : { group_id: sendOptions.group }),
          ...(sendOptions.replyTo === undefined
            ? {}
            : {
                context: {
                  id: sendOptions.replyTo,
                  from: sent.some((message) => message.id === sendOptions.replyTo) ? businessDigits : waId,
                },
              }),
          ...message,
        },
      ],
    });
    payloads.set(id, body);
    return { messageId: id, ...(await deliver(body)) };
  };

  const handleGraph = async (request: IncomingMessage, response: ServerResponse, path: string, url: URL) => {
    if (request.headers.authorization !== `Bearer ${accessToken}`) {
      unauthorized += 1;
      graphError(response, 401, 190, 'Invalid OAuth access token - Cannot parse access token');
      return;
    }
    const parts = path.split('/').filter(Boolean);
    if (request.method === 'GET' && parts.length === 1 && parts[0] === phoneNumberId) {
      json(response, {
        display_phone_number: displayPhoneNumber,
        verified_name: verifiedName,
        id: phoneNumberId,
      });
      return;
    }
    if (request.method === 'GET' && parts.length === 1 && media.has(parts[0]!)) {
      const stored = media.get(parts[0]!)!;
      json(response, {
        messaging_product: 'whatsapp',
        url: `http://127.0.0.1:${port}/media-download/${stored.id}?ext=${url.searchParams.get('ext') ?? ''}`,
        mime_type: stored.mimeType,
        sha256: createHash('sha256').update(stored.bytes).digest('hex'),
        file_size: stored.bytes.length,
        id: stored.id,
      });
      return;
    }
    if (
      request.method === 'POST' &&
      parts.length === 2 &&
      parts[0] === phoneNumberId &&
      parts[1] === 'media'
    ) {
      const raw = await readBody(request);
      const form = await new Request('http://fake.invalid/', {
        method: 'POST',
        headers: { 'content-type': request.headers['content-type'] ?? '' },
        body: new Uint8Array(raw),
      }).formData();
      const file = form.get('file');
      if (form.get('messaging_product') !== 'whatsapp' || !(file instanceof Blob)) {
        graphError(response, 400, 100, '(#100) The parameter messaging_product and file are required.');
        return;
      }
      const id = String(1_000_000_000_000 + media.size + 1);
      media.set(id, {
        id,
        bytes: Buffer.from(await file.arrayBuffer()),
        mimeType: String(form.get('type') ?? file.type),
        fileName: file instanceof File ? file.name : 'file',
      });
      json(response, { id });
      return;
    }
    if (
      request.method === 'POST' &&
      parts.length === 2 &&
      parts[0] === phoneNumberId &&
      parts[1] === 'messages'
    ) {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse((await readBody(request)).toString('utf8')) as Record<string, unknown>;
      } catch {
        graphError(response, 400, 100, '(#100) Invalid JSON');
        return;
      }
      if (body.messaging_product !== 'whatsapp') {
        graphError(response, 400, 100, '(#100) The parameter messaging_product is required.');
        return;
      }
      if (body.status === 'read') {
        reads.push({ messageId: String(body.message_id), typing: body.typing_indicator !== undefined });
        waiter.notify();
        json(response, { success: true });
        return;
      }
      if (rateLimit !== undefined && rateLimit.count > 0) {
        rateLimit.count -= 1;
        rateLimited += 1;
        waiter.notify();
        graphError(response, 429, 130429, '(#130429) Rate limit hit', {
          'retry-after': String(rateLimit.retryAfterSeconds),
        });
        return;
      }
      const type = String(body.type ?? 'text');
      const recipientType = body.recipient_type === 'group' ? 'group' : 'individual';
      const to = String(body.to ?? '');
      if (recipientType === 'individual') {
        const last = lastInbound.get(digitsOf(to));
        if (type !== 'template' && (last === undefined || now() - last > 24 * 60 * 60_000)) {
          graphError(
            response,
            400,
            131047,
            '(#131047) Re-engagement message: More than 24 hours have passed since the recipient last replied to the sender number.',
          );
          return;
        }
      } else if (!groups.has(to)) {
        graphError(response, 400, 131009, '(#131009) Parameter value is not valid: unknown group');
        return;
      }
      const content = (body[type] ?? {}) as Record<string, unknown>;
      if (
        type === 'text' &&
        (typeof content.body !== 'string' || content.body === '' || content.body.length > 4096)
      ) {
        graphError(response, 400, 100, '(#100) Param text[body] must be between 1 and 4096 characters');
        return;
      }
      if (type !== 'text' && content.id === undefined && content.link === undefined) {
        graphError(response, 400, 100, `(#100) Param ${type} must have an id or a link`);
        return;
      }
      if (content.id !== undefined && !media.has(String(content.id))) {
        graphError(
          response,
          400,
          131053,
          `(#131053) Media upload error: unknown media id ${String(content.id)}`,
        );
        return;
      }
      const id = `wamid.${randomBytes(18).toString('base64url')}`;
      const context = body.context as { message_id?: string } | undefined;
      sent.push({
        id,
        conversationId: recipientType === 'group' ? to : `+${digitsOf(to)}`,
        recipientType,
        type,
        text: String(type === 'text' ? content.body : (content.caption ?? '')),
        ...(context?.message_id === undefined ? {} : { replyToId: context.message_id }),
        ...(content.id === undefined ? {} : { mediaId: String(content.id) }),
        ...(content.link === undefined ? {} : { link: String(content.link) }),
        body,
        at: now(),
      });
      waiter.notify();
      json(response, {
        messaging_product: 'whatsapp',
        ...(recipientType === 'individual' ? { contacts: [{ input: to, wa_id: digitsOf(to) }] } : {}),
        messages: [{ id }],
      });
      return;
    }
    graphError(response, 400, 100, `(#100) Unsupported ${request.method} request to ${path}`);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const download = /^\/media-download\/(\d+)$/.exec(url.pathname);
    if (download !== null) {
      const stored = media.get(download[1]!);
      if (request.headers.authorization !== `Bearer ${accessToken}`) {
        unauthorized += 1;
        response.writeHead(401).end();
        return;
      }
      if (stored === undefined) {
        response.writeHead(404).end();
        return;
      }
      response
        .writeHead(200, { 'content-type': stored.mimeType, 'content-length': stored.bytes.length })
        .end(stored.bytes);
      return;
    }
    const graph = graphVersionPattern.exec(url.pathname);
    if (graph === null) {
      graphError(response, 404, 100, `unknown path ${url.pathname}`);
      return;
    }
    await handleGraph(request, response, graph[1]!, url);
  };

  const cloud: FakeWhatsAppCloud = {
    async start() {
      if (server !== undefined) return cloud;
      server = createServer((request, response) => {
        handle(request, response).catch((error: unknown) => {
          if (!response.headersSent) response.writeHead(500).end(String(error));
        });
      });
      port = await listenOnLoopback(server);
      return cloud;
    },
    async close() {
      waiter.close();
      if (server !== undefined) await closeServer(server);
    },
    get graphBase() {
      requireStarted();
      return `http://127.0.0.1:${port}`;
    },
    get credentials() {
      return { phoneNumberId, accessToken, appSecret, verifyToken, graphBase: cloud.graphBase };
    },
    businessId: `+${businessDigits}`,
    setWebhook(url) {
      webhook = url;
    },
    async verifyWebhook(token = verifyToken) {
      if (webhook === undefined)
        throw new TestkitError('TESTKIT_NOT_STARTED', 'FakeWhatsAppCloud: setWebhook() first');
      const challenge = String(randomBytes(4).readUInt32BE(0));
      const url = new URL(webhook);
      url.searchParams.set('hub.mode', 'subscribe');
      url.searchParams.set('hub.verify_token', token);
      url.searchParams.set('hub.challenge', challenge);
      const response = await fetch(url);
      return { status: response.status, body: await response.text(), challenge };
    },
    createGroup(subject) {
      const id = Buffer.from(
        `capi_group:${businessDigits}:${120_363_000_000_000_000n + BigInt(groups.size + 1)}`,
      ).toString('base64url');
      groups.set(id, subject);
      return id;
    },
    sendText(from, text, sendOptions = {}) {
      const body = sendOptions.mentionBusiness === true ? `@${businessDigits} ${text}` : text;
      return inbound(from, { type: 'text', text: { body } }, sendOptions);
    },
    async sendMedia(from, item, sendOptions = {}) {
      const id = String(9_000_000_000_000 + media.size + 1);
      media.set(id, {
        id,
        bytes: Buffer.from(item.bytes),
        mimeType: item.mimeType,
        fileName: item.fileName ?? 'file',
      });
      const type = item.kind === 'voice' ? 'audio' : item.kind;
      const object = {
        id,
        mime_type: item.mimeType,
        sha256: createHash('sha256').update(item.bytes).digest('hex'),
        ...(item.caption === undefined ? {} : { caption: item.caption }),
        ...(item.fileName === undefined || type !== 'document' ? {} : { filename: item.fileName }),
        ...(item.kind === 'voice' ? { voice: true } : {}),
      };
      return inbound(from, { type, [type]: object }, sendOptions);
    },
    async redeliver(messageId) {
      const body = payloads.get(messageId);
      if (body === undefined)
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', `redeliver: no webhook for ${messageId}`);
      return deliver(body);
    },
    postWebhook(body, headers = {}) {
      return post(body, headers);
    },
    sign,
    sendStatus(messageId, status, errorCode) {
      const record = sent.find((message) => message.id === messageId);
      return deliver(
        envelope({
          statuses: [
            {
              id: messageId,
              status,
              timestamp: String(Math.floor(now() / 1000)),
              recipient_id: record === undefined ? '' : record.conversationId.replace(/^\+/, ''),
              ...(errorCode === undefined
                ? {}
                : { errors: [{ code: errorCode, title: `error ${errorCode}` }] }),
            },
          ],
        }),
      );
    },
    expireServiceWindow(from) {
      lastInbound.set(digitsOf(from), now() - 25 * 60 * 60_000);
    },
    rateLimitNextSends(count, retryAfterSeconds) {
      rateLimit = { count, retryAfterSeconds };
    },
    rateLimitedSends: () => rateLimited,
    ...sentLog(sent, waiter),
    reads: () => [...reads],
    uploads: () =>
      [...media.values()]
        .filter((stored) => Number(stored.id) < 9_000_000_000_000)
        .map((stored) => ({
          id: stored.id,
          mimeType: stored.mimeType,
          fileName: stored.fileName,
          bytes: new Uint8Array(stored.bytes),
        })),
    unauthorizedRequests: () => unauthorized,
  };
  return cloud;
}
