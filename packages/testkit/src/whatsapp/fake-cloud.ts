// FakeWhatsAppCloud: the WhatsApp Business Cloud API on 127.0.0.1 — the Graph endpoints a
// channel calls (phone number, messages, read receipts + typing, media upload and download)
// and a webhook sender that signs payloads with X-Hub-Signature-256 like Meta does. It keeps
// the 24-hour customer-service window: a free-form message to someone who has not written
// in 24 hours is refused with Graph error 131047.
//
// This module is the public handle; the parts live in `cloud/`: `world.ts` (the account,
// media, groups, service windows, records), `graph-api.ts` (the Graph endpoints),
// `webhooks.ts` (signed webhook delivery with retries), `server.ts` (routing and media
// downloads) and `responses.ts` (Graph's answers).
import { type ConditionWaiter, createConditionWaiter } from '../shared/waiter.ts';
import { CloudGraphApi } from './cloud/graph-api.ts';
import { CloudServer } from './cloud/server.ts';
import type { FakeWhatsAppCloud, FakeWhatsAppCloudOptions } from './cloud/types.ts';
import { CloudWebhooks } from './cloud/webhooks.ts';
import { CloudWorld, sha256Hex } from './cloud/world.ts';
import { sentLog } from './sent-log.ts';

export type {
  FakeCloudDelivery,
  FakeCloudMedia,
  FakeCloudSendOptions,
  FakeCloudSentMessage,
  FakeWhatsAppCloud,
  FakeWhatsAppCloudOptions,
} from './cloud/types.ts';

/** Creates a fake Cloud API; call `start()`. */
export function createFakeWhatsAppCloud(options: FakeWhatsAppCloudOptions = {}): FakeWhatsAppCloud {
  const world = new CloudWorld(options);
  const waiter: ConditionWaiter = createConditionWaiter({
    subject: 'FakeWhatsAppCloud',
    defaultTimeoutMs: 10_000,
  });
  const graph: CloudGraphApi = new CloudGraphApi(world, {
    origin: () => server.origin,
    notify: () => waiter.notify(),
  });
  const server = new CloudServer(world, graph);
  const webhooks = new CloudWebhooks(world, options.webhookRetry ?? { attempts: 20, delayMs: 250 });

  const cloud: FakeWhatsAppCloud = {
    async start() {
      await server.start();
      return cloud;
    },
    async close() {
      waiter.close();
      await server.close();
    },
    get graphBase() {
      return server.origin;
    },
    get credentials() {
      const { phoneNumberId, accessToken, appSecret, verifyToken } = world;
      return { phoneNumberId, accessToken, appSecret, verifyToken, graphBase: cloud.graphBase };
    },
    businessId: `+${world.businessDigits}`,
    setWebhook: (url) => webhooks.setWebhook(url),
    verifyWebhook: (token = world.verifyToken) => webhooks.verify(token),
    createGroup: (subject) => world.createGroup(subject),
    sendText(from, text, sendOptions = {}) {
      const body = sendOptions.mentionBusiness === true ? `@${world.businessDigits} ${text}` : text;
      return webhooks.inbound(from, { type: 'text', text: { body } }, sendOptions);
    },
    async sendMedia(from, item, sendOptions = {}) {
      const id = world.storeInbound(Buffer.from(item.bytes), item.mimeType, item.fileName ?? 'file');
      const type = item.kind === 'voice' ? 'audio' : item.kind;
      const object = {
        id,
        mime_type: item.mimeType,
        sha256: sha256Hex(item.bytes),
        caption: item.caption,
        ...(item.fileName === undefined || type !== 'document' ? {} : { filename: item.fileName }),
        ...(item.kind === 'voice' ? { voice: true } : {}),
      };
      return webhooks.inbound(from, { type, [type]: object }, sendOptions);
    },
    redeliver: async (messageId) => webhooks.redeliver(messageId),
    postWebhook: (body, headers = {}) => webhooks.post(body, headers),
    sign: (body) => webhooks.sign(body),
    sendStatus: (messageId, status, errorCode) => webhooks.status(messageId, status, errorCode),
    expireServiceWindow: (from) => world.expireServiceWindow(from),
    rateLimitNextSends: (count, retryAfterSeconds) => graph.rateLimit.limitNext(count, retryAfterSeconds),
    rateLimitedSends: () => graph.rateLimit.refused,
    ...sentLog(world.sent, waiter),
    reads: () => [...world.reads],
    uploads: () => world.uploads(),
    unauthorizedRequests: () => world.unauthorized,
    mediaDownloads: () => [...server.mediaDownloads],
  };
  return cloud;
}
