// The Graph endpoints the fake Cloud API answers, after the token check: the phone number,
// a media object's download URL, media upload, and `messages` (a send, recorded; or a read
// receipt with the typing indicator). A send keeps Meta's rules where a channel can observe
// them: the 24-hour window (131047), the text limit, media by id or link, rate limits (130429).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SendRateLimit } from '../send-rate-limit.ts';
import { graphError, json, readRawBody } from './responses.ts';
import { type CloudWorld, digitsOf, newMessageId, sha256Hex } from './world.ts';

/** What the Graph endpoints need from the rest of the fake. */
export interface CloudGraphApiOptions {
  /** `http://127.0.0.1:<port>`, where media downloads are served. */
  readonly origin: () => string;
  /** Called after each change a wait may be watching (a send recorded or refused, a read). */
  readonly notify: () => void;
}

export class CloudGraphApi {
  readonly #world: CloudWorld;
  readonly #options: CloudGraphApiOptions;
  /** Sends refused with 429 and Graph error 130429 (`rateLimitNextSends`). */
  readonly rateLimit: SendRateLimit = new SendRateLimit();

  constructor(world: CloudWorld, options: CloudGraphApiOptions) {
    this.#world = world;
    this.#options = options;
  }

  /** Answers a Graph request; `path` is the part after the version (`/<id>/messages`). */
  async handle(request: IncomingMessage, response: ServerResponse, path: string, url: URL): Promise<void> {
    const world = this.#world;
    if (!world.authorized(request.headers.authorization)) {
      world.unauthorized += 1;
      graphError(response, 401, 190, 'Invalid OAuth access token - Cannot parse access token');
      return;
    }
    const parts = path.split('/').filter(Boolean);
    const own = (edge: string) =>
      request.method === 'POST' &&
      parts.length === 2 &&
      parts[0] === world.phoneNumberId &&
      parts[1] === edge;
    if (request.method === 'GET' && parts.length === 1 && parts[0] === world.phoneNumberId) {
      json(response, {
        display_phone_number: world.displayPhoneNumber,
        verified_name: world.verifiedName,
        id: world.phoneNumberId,
      });
      return;
    }
    const stored = parts.length === 1 ? world.media(parts[0]!) : undefined;
    if (request.method === 'GET' && stored !== undefined) {
      json(response, {
        messaging_product: 'whatsapp',
        url: `${this.#options.origin()}/media-download/${stored.id}?ext=${url.searchParams.get('ext') ?? ''}`,
        mime_type: stored.mimeType,
        sha256: sha256Hex(stored.bytes),
        file_size: stored.bytes.length,
        id: stored.id,
      });
      return;
    }
    if (own('media')) {
      await this.#upload(request, response);
      return;
    }
    if (own('messages')) {
      await this.#messages(request, response);
      return;
    }
    graphError(response, 400, 100, `(#100) Unsupported ${request.method} request to ${path}`);
  }

  async #upload(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await readRawBody(request);
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
    const id = this.#world.storeUpload(
      Buffer.from(await file.arrayBuffer()),
      String(form.get('type') ?? file.type),
      file instanceof File ? file.name : 'file',
    );
    json(response, { id });
  }

  async #messages(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const world = this.#world;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse((await readRawBody(request)).toString('utf8')) as Record<string, unknown>;
    } catch {
      graphError(response, 400, 100, '(#100) Invalid JSON');
      return;
    }
    if (body.messaging_product !== 'whatsapp') {
      graphError(response, 400, 100, '(#100) The parameter messaging_product is required.');
      return;
    }
    if (body.status === 'read') {
      world.reads.push({ messageId: String(body.message_id), typing: body.typing_indicator !== undefined });
      this.#options.notify();
      json(response, { success: true });
      return;
    }
    const retryAfter = this.rateLimit.take();
    if (retryAfter !== undefined) {
      this.#options.notify();
      graphError(response, 429, 130429, '(#130429) Rate limit hit', { 'retry-after': String(retryAfter) });
      return;
    }
    const type = String(body.type ?? 'text');
    const recipientType = body.recipient_type === 'group' ? 'group' : 'individual';
    const to = String(body.to ?? '');
    const content = (body[type] ?? {}) as Record<string, unknown>;
    const refusal = this.#refusal(type, recipientType, to, content);
    if (refusal !== undefined) {
      graphError(response, 400, refusal.code, refusal.message);
      return;
    }
    const id = newMessageId();
    const context = body.context as { message_id?: string } | undefined;
    world.sent.push({
      id,
      conversationId: recipientType === 'group' ? to : `+${digitsOf(to)}`,
      recipientType,
      type,
      text: String(type === 'text' ? content.body : (content.caption ?? '')),
      replyToId: context?.message_id,
      mediaId: content.id === undefined ? undefined : String(content.id),
      link: content.link === undefined ? undefined : String(content.link),
      body,
      at: world.now(),
    });
    this.#options.notify();
    json(response, {
      messaging_product: 'whatsapp',
      ...(recipientType === 'individual' ? { contacts: [{ input: to, wa_id: digitsOf(to) }] } : {}),
      messages: [{ id }],
    });
  }

  /** Why Graph refuses this send (code and message), or undefined when it accepts it. */
  #refusal(
    type: string,
    recipientType: 'group' | 'individual',
    to: string,
    content: Record<string, unknown>,
  ): { code: number; message: string } | undefined {
    const world = this.#world;
    if (recipientType === 'individual') {
      if (type !== 'template' && !world.inServiceWindow(to)) {
        return {
          code: 131047,
          message:
            '(#131047) Re-engagement message: More than 24 hours have passed since the recipient last replied to the sender number.',
        };
      }
    } else if (!world.hasGroup(to)) {
      return { code: 131009, message: '(#131009) Parameter value is not valid: unknown group' };
    }
    if (
      type === 'text' &&
      (typeof content.body !== 'string' || content.body === '' || content.body.length > 4096)
    ) {
      return { code: 100, message: '(#100) Param text[body] must be between 1 and 4096 characters' };
    }
    if (type !== 'text' && content.id === undefined && content.link === undefined) {
      return { code: 100, message: `(#100) Param ${type} must have an id or a link` };
    }
    if (content.id !== undefined && world.media(String(content.id)) === undefined) {
      return {
        code: 131053,
        message: `(#131053) Media upload error: unknown media id ${String(content.id)}`,
      };
    }
    return undefined;
  }
}
