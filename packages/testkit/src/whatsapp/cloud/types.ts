// The public shapes of FakeWhatsAppCloud: its options, the messages and media it records,
// and the handle a test drives.

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
  /** Every GET of a media download URL (`/media-download/<id>`), with the bytes the socket took. */
  mediaDownloads(): ReadonlyArray<{
    readonly id: string;
    readonly status: number;
    readonly bytesSent: number;
  }>;
}
