// A small client for the parts of Meta's Graph API the Cloud transport uses.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { assertDeclaredSize, writeBoundedStream } from '@switchboard/hooks';
import { WhatsAppError } from '../errors.ts';

/** The error object of a Graph API response. */
export interface GraphErrorBody {
  readonly message?: string;
  readonly type?: string;
  readonly code?: number;
  readonly error_subcode?: number;
  readonly error_data?: { readonly details?: string };
  readonly fbtrace_id?: string;
}

/** Graph codes that mean "slow down" (throughput, pair rate, app and account rate limits). */
const rateLimitCodes = new Set([4, 17, 32, 613, 80007, 130429, 131056]);
/** Graph codes for temporary failures on Meta's side. */
const transientCodes = new Set([1, 2, 131000, 131016]);
const reEngagementCode = 131047;

/** A Graph API call that failed, with what the gateway needs to decide on retries. */
export class GraphRequestError extends Error {
  readonly status: number;
  readonly graph: GraphErrorBody | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(status: number, graph: GraphErrorBody | undefined, endpoint: string, retryAfterMs?: number) {
    const code =
      graph?.code === undefined
        ? ''
        : ` (#${graph.code}${graph.error_subcode ? `/${graph.error_subcode}` : ''})`;
    super(`${endpoint} failed with HTTP ${status}${code}: ${graph?.message ?? 'no error message'}`);
    this.name = 'GraphRequestError';
    this.status = status;
    this.graph = graph;
    this.retryAfterMs = retryAfterMs;
  }

  get rateLimited(): boolean {
    return this.status === 429 || (this.graph?.code !== undefined && rateLimitCodes.has(this.graph.code));
  }
}

/** Maps a failed Graph call to the WhatsAppError the gateway sees. */
export function toWhatsAppError(error: unknown, what: string): WhatsAppError {
  if (WhatsAppError.isInstance(error)) return error as WhatsAppError;
  if (!(error instanceof GraphRequestError)) {
    const text = error instanceof Error ? error.message : String(error);
    return new WhatsAppError('WHATSAPP_GRAPH_ERROR', `${what}: the Graph API could not be reached: ${text}`, {
      retryable: true,
      cause: error,
    });
  }
  const code = error.graph?.code;
  const details = {
    httpStatus: error.status,
    graphCode: code,
    fbtraceId: error.graph?.fbtrace_id,
  };
  if (code === reEngagementCode) {
    return new WhatsAppError(
      'WHATSAPP_OUTSIDE_SERVICE_WINDOW',
      `${what}: WhatsApp refused it because more than 24 hours have passed since the user last wrote ` +
        '(Graph error 131047, re-engagement message). Outside the 24-hour customer-service window only approved ' +
        'template messages can be sent; the user has to write first.',
      { retryable: false, cause: error, details },
    );
  }
  if (error.status === 401 || code === 190 || code === 10 || code === 200) {
    return new WhatsAppError(
      'WHATSAPP_GRAPH_AUTH_FAILED',
      `${what}: the Graph API refused the access token (${error.message}); check accessToken and its whatsapp_business_messaging permission`,
      { retryable: false, cause: error, details },
    );
  }
  if (error.rateLimited) {
    return new WhatsAppError(
      'WHATSAPP_RATE_LIMITED',
      `${what}: rate limited by WhatsApp (${error.message})`,
      {
        retryable: true,
        cause: error,
        details,
      },
    );
  }
  const retryable = error.status >= 500 || (code !== undefined && transientCodes.has(code));
  return new WhatsAppError('WHATSAPP_GRAPH_ERROR', `${what}: ${error.message}`, {
    retryable,
    cause: error,
    details,
  });
}

export interface GraphClientOptions {
  /** `https://graph.facebook.com` (or a proxy / fake). */
  readonly base: string;
  /** `v21.0`. */
  readonly version: string;
  readonly accessToken: string;
  readonly phoneNumberId: string;
  readonly fetch: typeof fetch;
  readonly signal: AbortSignal;
}

/** What `GET /<media-id>` answers. */
interface GraphMediaInfo {
  readonly url: string;
  readonly mime_type?: string;
  readonly sha256?: string;
  readonly file_size?: number | string;
  readonly id?: string;
}

export interface GraphClient {
  /** `GET /<phone-number-id>`: the number's display form and verified name. */
  phoneNumber(): Promise<{ displayPhoneNumber?: string; verifiedName?: string }>;
  /** `POST /<phone-number-id>/messages`; resolves with the new message id (`wamid…`). */
  sendMessage(payload: Readonly<Record<string, unknown>>): Promise<string>;
  /** Marks a message read, optionally showing the typing indicator (up to 25 s). */
  markRead(messageId: string, typing: boolean): Promise<void>;
  mediaInfo(mediaId: string): Promise<GraphMediaInfo>;
  /**
   * Streams a media URL (with the token) into the file `path`, stopping as soon as more than
   * `maxBytes` arrived (`MEDIA_TOO_LARGE`) and checking `sha256` (no file is left on a
   * mismatch). Resolves with the size.
   */
  downloadMediaToFile(
    info: GraphMediaInfo,
    path: string,
    limits: { readonly maxBytes: number; readonly signal: AbortSignal; readonly what: string },
  ): Promise<number>;
  /** `POST /<phone-number-id>/media` (multipart); resolves with the media id. */
  uploadMedia(bytes: Uint8Array, mimeType: string, fileName: string): Promise<string>;
}

export function createGraphClient(options: GraphClientOptions): GraphClient {
  const root = `${options.base.replace(/\/+$/, '')}/${options.version}`;
  const authorization = `Bearer ${options.accessToken}`;

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    const endpoint = `${method} /${options.version}${path.split('?')[0]}`;
    const isForm = body instanceof FormData;
    const response = await options.fetch(`${root}${path}`, {
      method,
      headers: {
        authorization,
        ...(body === undefined || isForm ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined || isForm ? body : JSON.stringify(body),
      signal: options.signal,
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const retryAfter = Number(response.headers.get('retry-after'));
      throw new GraphRequestError(
        response.status,
        (parsed as { error?: GraphErrorBody } | undefined)?.error,
        endpoint,
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      );
    }
    return parsed;
  };

  return {
    async phoneNumber() {
      const body = (await call(
        'GET',
        `/${encodeURIComponent(options.phoneNumberId)}?fields=display_phone_number,verified_name`,
      )) as { display_phone_number?: string; verified_name?: string } | undefined;
      return {
        displayPhoneNumber: body?.display_phone_number,
        verifiedName: body?.verified_name,
      };
    },
    async sendMessage(payload) {
      const body = (await call('POST', `/${encodeURIComponent(options.phoneNumberId)}/messages`, {
        messaging_product: 'whatsapp',
        ...payload,
      })) as { messages?: Array<{ id?: string }> } | undefined;
      const id = body?.messages?.[0]?.id;
      if (typeof id !== 'string') {
        throw new WhatsAppError(
          'WHATSAPP_GRAPH_ERROR',
          'the Graph API accepted a message but returned no message id',
          {
            retryable: false,
          },
        );
      }
      return id;
    },
    async markRead(messageId, typing) {
      await call('POST', `/${encodeURIComponent(options.phoneNumberId)}/messages`, {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: messageId,
        ...(typing ? { typing_indicator: { type: 'text' } } : {}),
      });
    },
    async mediaInfo(mediaId) {
      const body = (await call('GET', `/${encodeURIComponent(mediaId)}`)) as GraphMediaInfo | undefined;
      if (typeof body?.url !== 'string') {
        throw new WhatsAppError(
          'WHATSAPP_MEDIA_FAILED',
          `the Graph API returned no URL for media ${mediaId}`,
        );
      }
      return body;
    },
    async downloadMediaToFile(info, path, { maxBytes, signal, what }) {
      const response = await options.fetch(info.url, {
        headers: { authorization },
        signal: AbortSignal.any([options.signal, signal]),
      });
      if (!response.ok || response.body === null) {
        await response.body?.cancel().catch(() => undefined);
        throw new GraphRequestError(response.status, undefined, `GET media ${new URL(info.url).pathname}`);
      }
      const body = response.body;
      try {
        assertDeclaredSize(what, Number(response.headers.get('content-length') ?? Number.NaN), maxBytes);
      } catch (error) {
        await body.cancel().catch(() => undefined);
        throw error;
      }
      const hash = createHash('sha256');
      async function* hashed(): AsyncGenerator<Uint8Array> {
        const reader = body.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            hash.update(value);
            yield value;
          }
        } finally {
          // Stopped early (over the limit, aborted): close the connection.
          await reader.cancel().catch(() => undefined);
        }
      }
      const size = await writeBoundedStream(hashed(), path, { maxBytes, what, signal });
      if (info.sha256 !== undefined && info.sha256 !== '') {
        const digest = hash.digest();
        if (info.sha256 !== digest.toString('hex') && info.sha256 !== digest.toString('base64')) {
          await rm(path, { force: true });
          throw new WhatsAppError('WHATSAPP_MEDIA_FAILED', `${what} does not match its sha256`);
        }
      }
      return size;
    },
    async uploadMedia(bytes, mimeType, fileName) {
      const form = new FormData();
      form.set('messaging_product', 'whatsapp');
      form.set('type', mimeType);
      form.set('file', new Blob([new Uint8Array(bytes)], { type: mimeType }), fileName);
      const body = (await call('POST', `/${encodeURIComponent(options.phoneNumberId)}/media`, form)) as
        | { id?: string }
        | undefined;
      if (typeof body?.id !== 'string') {
        throw new WhatsAppError(
          'WHATSAPP_MEDIA_FAILED',
          'the Graph API accepted an upload but returned no media id',
        );
      }
      return body.id;
    },
  };
}
