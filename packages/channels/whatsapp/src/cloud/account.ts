// One WhatsApp account on the `cloud` transport: the WhatsApp Business Cloud API. Inbound
// arrives on a webhook route of the gateway's own HTTP server; outbound goes to the Graph API.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  assertDeclaredSize,
  type ChannelAccount,
  type ChannelStartContext,
  type ConversationTarget,
  type DownloadedMedia,
  type InboundMedia,
  type InboundMessage,
  type MediaDownloadOptions,
  MediaError,
  type MediaKind,
  type OutboundMedia,
  type OutboundMessage,
  type ReceiveOutcome,
} from '@switchboard/hooks';
import { cloudRecipientFromPeerId, toE164 } from '../address.ts';
import type { WhatsAppAccountConfig } from '../config.ts';
import { WhatsAppError } from '../errors.ts';
import { markdownToWhatsApp, renderWhatsAppMessages } from '../format.ts';
import { checkMediaSize, inboundMediaPath, mediaMaxBytes } from '../media.ts';
import {
  classifyingRateLimits,
  permanentAfterPartialDelivery,
  type RateLimitRetryPolicy,
  sendRetryOf,
} from '../retry.ts';
import { createStatusReporter } from '../status.ts';
import { createGraphClient, GraphRequestError, toWhatsAppError } from './graph.ts';
import {
  answerVerification,
  type CloudChangeValue,
  type CloudInboundMessage,
  type CloudMediaObject,
  type CloudWebhookPayload,
  messageChanges,
  readRawBody,
  verifyWebhookSignature,
} from './webhook.ts';

export interface CloudAccountDependencies {
  readonly fetch: typeof fetch;
  readonly now: () => number;
  readonly textLimit: number;
  readonly rateLimitRetry: RateLimitRetryPolicy;
}

const webhookBodyLimit = 1024 * 1024;
const serviceWindowMs = 24 * 60 * 60_000;
const typingRefreshMs = 20_000;
const sentIdLimit = 2_000;
const lastInboundLimit = 10_000;
const mediaTypes = ['image', 'video', 'audio', 'document', 'sticker'] as const;

/** The default webhook path of an account. */
export function defaultWebhookPath(accountId: string): string {
  return `/webhooks/whatsapp/${accountId}`;
}

export async function startCloudAccount(
  context: ChannelStartContext<WhatsAppAccountConfig>,
  dependencies: CloudAccountDependencies,
): Promise<ChannelAccount> {
  const { account, logger } = context;
  const { now } = dependencies;
  const phoneNumberId = account.phoneNumberId ?? '';
  const status = createStatusReporter(context.setStatus);
  const graph = createGraphClient({
    base: account.graphBase,
    version: account.graphApiVersion,
    accessToken: account.accessToken ?? '',
    phoneNumberId,
    fetch: dependencies.fetch,
    signal: context.signal,
  });
  const lastInbound = new Map<string, { messageId: string; at: number; typingAt: number }>();
  const sentIds = new Set<string>();
  const remember = (id: string) => {
    sentIds.add(id);
    if (sentIds.size > sentIdLimit) sentIds.delete(sentIds.values().next().value as string);
  };

  status.set({ state: 'starting', detail: 'checking the Cloud API phone number' });
  let identity: { displayPhoneNumber?: string; verifiedName?: string };
  try {
    identity = await graph.phoneNumber();
  } catch (error) {
    throw toWhatsAppError(error, `checking phone number id ${phoneNumberId}`);
  }
  const ownDigits = identity.displayPhoneNumber?.replace(/\D/g, '');
  const path = account.webhookPath ?? defaultWebhookPath(context.accountId);

  // --- inbound --------------------------------------------------------------------------

  /** The description of a media object of a webhook message (decision 0026): nothing is fetched. */
  const describeMedia = (media: CloudMediaObject, kind: MediaKind): InboundMedia => ({
    kind,
    mimeType: media.mime_type,
    fileName: media.filename,
    // Kept (decision 0028): `reference` is typed JsonValue, which has no undefined; a plain key needs a cast.
    reference: { mediaId: media.id, ...(media.sha256 === undefined ? {} : { sha256: media.sha256 }) },
  });

  /** ChannelAccount.downloadMedia: the media URL from the Graph API, then the bytes streamed to a file. */
  const downloadMedia = async (
    media: InboundMedia,
    request: MediaDownloadOptions,
  ): Promise<DownloadedMedia> => {
    const reference = media.reference as Record<string, unknown> | null | undefined;
    const mediaId = typeof reference === 'object' && reference !== null ? reference.mediaId : undefined;
    const sha256 = typeof reference === 'object' && reference !== null ? reference.sha256 : undefined;
    if (typeof mediaId !== 'string')
      throw new MediaError(
        'MEDIA_INVALID_REFERENCE',
        `a WhatsApp Cloud ${media.kind} has no media id reference: ${JSON.stringify(media.reference)}`,
      );
    const maxBytes = Math.min(request.maxBytes, mediaMaxBytes(account.mediaMaxMb));
    const what = `WhatsApp ${media.kind}${media.fileName === undefined ? '' : ` ${media.fileName}`} (media ${mediaId})`;
    assertDeclaredSize(what, media.sizeBytes, maxBytes);
    try {
      const info = await graph.mediaInfo(mediaId);
      assertDeclaredSize(what, info.file_size === undefined ? undefined : Number(info.file_size), maxBytes);
      const mimeType = media.mimeType ?? info.mime_type;
      const path = inboundMediaPath(context.dataDirectory, mediaId, 0, mimeType, media.fileName);
      const sizeBytes = await graph.downloadMediaToFile(
        { ...info, ...(typeof sha256 === 'string' ? { sha256 } : {}) },
        path,
        { maxBytes, signal: request.signal, what },
      );
      return { path, sizeBytes, mimeType };
    } catch (error) {
      if (error instanceof MediaError || error instanceof WhatsAppError) throw error;
      throw toWhatsAppError(error, `downloading ${what}`);
    }
  };

  const convert = async (
    value: CloudChangeValue,
    message: CloudInboundMessage,
  ): Promise<InboundMessage | undefined> => {
    let text = '';
    let media: InboundMedia | undefined;
    const mediaType = mediaTypes.find((type) => type === message.type);
    if (message.type === 'text') text = message.text?.body ?? '';
    else if (mediaType !== undefined) {
      const object = message[mediaType];
      if (object === undefined) return undefined;
      text = object.caption ?? '';
      const kind: MediaKind = mediaType === 'audio' && object.voice === true ? 'voice' : mediaType;
      // Described only: the gateway downloads it if it admits the message (decision 0026).
      media = describeMedia(object, kind);
    } else if (message.type === 'location' && message.location !== undefined) {
      const place = [message.location.name, message.location.address].filter(Boolean).join(', ');
      text = `[location] ${message.location.latitude ?? '?'}, ${message.location.longitude ?? '?'}${place === '' ? '' : ` (${place})`}`;
    } else if (message.type === 'contacts') {
      text = `[contact] ${message.contacts?.[0]?.name?.formatted_name ?? ''}`.trim();
    } else if (message.type === 'button') {
      text = message.button?.text ?? '';
    } else if (message.type === 'interactive') {
      text = message.interactive?.button_reply?.title ?? message.interactive?.list_reply?.title ?? '';
    } else {
      // reactions, system notices, unsupported types
      return undefined;
    }
    const senderId = toE164(message.from) ?? message.from;
    const name = value.contacts?.find((contact) => contact.wa_id === message.from)?.profile?.name;
    const seconds = Number(message.timestamp);
    const core = {
      channel: context.channelId,
      accountId: context.accountId,
      messageId: message.id,
      sender: { id: senderId, name },
      text,
      timestamp: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : now(),
      replyTo:
        message.context?.id === undefined
          ? undefined
          : {
              messageId: message.context.id,
              senderId:
                message.context.from === undefined
                  ? undefined
                  : (toE164(message.context.from) ?? message.context.from),
            },
      media: media === undefined ? undefined : [media],
      raw: message,
    };
    if (message.group_id !== undefined) {
      const repliesToUs =
        message.context?.id !== undefined &&
        (sentIds.has(message.context.id) ||
          (ownDigits !== undefined && message.context.from?.replace(/\D/g, '') === ownDigits));
      const mentionsUs = ownDigits !== undefined && new RegExp(`@\\+?${ownDigits}(?!\\d)`).test(text);
      return {
        ...core,
        chatType: 'group',
        peer: { kind: 'group', id: message.group_id },
        wasMentioned: mentionsUs || repliesToUs,
      };
    }
    return {
      ...core,
      chatType: 'direct',
      peer: { kind: 'direct', id: senderId, name },
    };
  };

  const handlePayload = async (payload: CloudWebhookPayload): Promise<void> => {
    const acknowledged: Array<{ message: InboundMessage; outcome: ReceiveOutcome }> = [];
    for (const value of messageChanges(payload, phoneNumberId)) {
      for (const status of value.statuses ?? []) {
        if (status.status === 'failed') {
          const problem = status.errors?.[0];
          logger.warn('WhatsApp could not deliver a message', {
            messageId: status.id,
            recipient: status.recipient_id,
            code: problem?.code,
            error: problem?.code === 131047 ? 'outside the 24-hour customer-service window' : problem?.title,
          });
        } else {
          logger.debug('WhatsApp delivery status', { messageId: status.id, status: status.status });
        }
      }
      for (const message of value.messages ?? []) {
        const inbound = await convert(value, message);
        if (inbound === undefined) continue;
        // Throws when the gateway could not store it: the webhook then answers 500 and Meta retries.
        const outcome = await context.receive(inbound);
        acknowledged.push({ message: inbound, outcome });
      }
    }
    for (const { message, outcome } of acknowledged) {
      status.inbound(now());
      if (message.chatType === 'direct') {
        lastInbound.delete(message.peer.id);
        lastInbound.set(message.peer.id, { messageId: message.messageId, at: now(), typingAt: 0 });
        if (lastInbound.size > lastInboundLimit)
          lastInbound.delete(lastInbound.keys().next().value as string);
      }
      if (outcome.status === 'journaled' && account.sendReadReceipts) {
        void graph.markRead(message.messageId, false).catch((error: unknown) => {
          logger.debug('could not mark a WhatsApp message read', { error: String(error) });
        });
      }
    }
  };

  context.registerHttpRoute({
    path,
    auth: 'plugin',
    methods: ['GET', 'POST'],
    async handler(request, response) {
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (request.method === 'GET') {
        const answer = answerVerification(url.searchParams, account.verifyToken ?? '');
        if (answer.status === 403) logger.warn('a WhatsApp webhook verification used the wrong verify token');
        response.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
        return;
      }
      const body = await readRawBody(request, webhookBodyLimit).catch(() => null);
      if (body === null) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end('unreadable body');
        return;
      }
      if (body === undefined) {
        response.writeHead(413, { 'content-type': 'text/plain' }).end('payload too large');
        return;
      }
      const signature = request.headers['x-hub-signature-256'];
      if (
        !verifyWebhookSignature(
          body,
          Array.isArray(signature) ? signature[0] : signature,
          account.appSecret ?? '',
        )
      ) {
        logger.warn('refused a WhatsApp webhook with a missing or wrong X-Hub-Signature-256');
        response.writeHead(401, { 'content-type': 'text/plain' }).end('invalid signature');
        return;
      }
      let payload: CloudWebhookPayload;
      try {
        payload = JSON.parse(body.toString('utf8')) as CloudWebhookPayload;
      } catch {
        response.writeHead(400, { 'content-type': 'text/plain' }).end('invalid JSON');
        return;
      }
      try {
        await handlePayload(payload);
      } catch (error) {
        logger.error('could not take a WhatsApp webhook; answering 500 so Meta delivers it again', {
          error: error instanceof Error ? error.message : String(error),
        });
        response.writeHead(500, { 'content-type': 'text/plain' }).end('try again');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    },
  });

  status.set({
    state: 'connected',
    detail: `Cloud API webhook at ${path}`,
    identity: {
      id:
        identity.displayPhoneNumber === undefined
          ? phoneNumberId
          : (toE164(identity.displayPhoneNumber) ?? identity.displayPhoneNumber),
      name: identity.verifiedName,
    },
  });

  // --- outbound -------------------------------------------------------------------------

  const address = (target: ConversationTarget) =>
    target.peer.kind === 'direct'
      ? { recipient_type: 'individual', to: cloudRecipientFromPeerId(target.peer.id) }
      : { recipient_type: 'group', to: target.peer.id };

  const post = async (payload: Record<string, unknown>, what: string): Promise<string> => {
    try {
      const id = await classifyingRateLimits(
        () => graph.sendMessage(payload),
        (error) =>
          error instanceof GraphRequestError && error.rateLimited
            ? { rateLimited: true, retryAfterMs: error.retryAfterMs }
            : { rateLimited: false },
        { policy: dependencies.rateLimitRetry, what },
      );
      remember(id);
      return id;
    } catch (error) {
      throw toWhatsAppError(error, what);
    }
  };

  const mediaObject = async (media: OutboundMedia, caption: string | undefined, fileName: string) => {
    const source = media.source;
    let reference: { id: string } | { link: string };
    if (source.type === 'url') reference = { link: source.url };
    else {
      const bytes =
        source.type === 'bytes'
          ? source.data
          : await readFile(source.path).catch((error: unknown) => {
              throw new WhatsAppError(
                'WHATSAPP_MEDIA_FAILED',
                `cannot read the attachment ${source.path}: ${String(error)}`,
              );
            });
      checkMediaSize(bytes.byteLength, account.mediaMaxMb, 'the attachment');
      try {
        reference = {
          id: await graph.uploadMedia(bytes, media.mimeType ?? 'application/octet-stream', fileName),
        };
      } catch (error) {
        throw toWhatsAppError(error, `uploading ${fileName}`);
      }
    }
    return {
      ...reference,
      caption,
      ...(media.kind === 'document' ? { filename: fileName } : {}),
    };
  };

  const send = (message: OutboundMessage) => {
    const ids: string[] = [];
    return permanentAfterPartialDelivery(ids, () => sendInto(message, ids));
  };

  const sendInto = async (message: OutboundMessage, ids: string[]) => {
    const target = address(message);
    const what = `a message to ${message.peer.id}`;
    let context_ =
      message.replyToMessageId === undefined ? undefined : { message_id: message.replyToMessageId };
    if (message.kind === 'text') {
      for (const chunk of renderWhatsAppMessages(message.text, dependencies.textLimit)) {
        ids.push(
          await post(
            {
              ...target,
              type: 'text',
              text: { preview_url: false, body: chunk },
              context: context_,
            },
            what,
          ),
        );
        context_ = undefined;
      }
    } else {
      const caption = message.caption === undefined ? undefined : markdownToWhatsApp(message.caption).trim();
      const captionFits = caption !== undefined && caption !== '' && caption.length <= 1024;
      let captionSent = false;
      for (const media of message.media) {
        const type = media.kind === 'voice' ? 'audio' : media.kind;
        const canCaption = !captionSent && captionFits && ['image', 'video', 'document'].includes(type);
        const fileName =
          media.fileName ??
          (media.source.type === 'path' ? basename(media.source.path) : `attachment-${ids.length + 1}`);
        const object = await mediaObject(
          {
            ...media,
            mimeType: media.mimeType ?? (type === 'audio' ? 'audio/ogg' : undefined),
          } as OutboundMedia,
          canCaption ? caption : undefined,
          fileName,
        );
        ids.push(await post({ ...target, type, [type]: object, context: context_ }, what));
        context_ = undefined;
        if (canCaption) captionSent = true;
      }
      if (!captionSent && caption !== undefined && caption !== '') {
        for (const chunk of renderWhatsAppMessages(message.caption ?? '', dependencies.textLimit)) {
          ids.push(await post({ ...target, type: 'text', text: { preview_url: false, body: chunk } }, what));
        }
      }
    }
    status.outbound(now());
    return { messageIds: ids };
  };

  // Typing: the Cloud API shows "typing…" for one inbound message (and marks it read) for up
  // to 25 s or until the reply; the gateway's refreshes are throttled to one call per 20 s.
  const typing = async (target: ConversationTarget) => {
    if (target.peer.kind !== 'direct' || !account.sendReadReceipts) return;
    const last = lastInbound.get(target.peer.id);
    const at = now();
    if (last === undefined || at - last.at > serviceWindowMs || at - last.typingAt < typingRefreshMs) return;
    last.typingAt = at;
    try {
      await graph.markRead(last.messageId, true);
    } catch (error) {
      throw toWhatsAppError(error, 'showing the typing indicator');
    }
  };

  return {
    send,
    // Retried by the gateway (decision 0023): a rate limit carries WhatsApp's wait.
    sendRetry: sendRetryOf(dependencies.rateLimitRetry),
    typing,
    downloadMedia,
    async stop() {
      status.set({ state: 'stopped' });
    },
  };
}
