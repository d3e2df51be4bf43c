// The configuration of one WhatsApp account (`channels.whatsapp`, or
// `channels.whatsapp.accounts.<id>`). The access fields (dmPolicy, allowFrom, groupPolicy,
// groups, requireMention, enabled) are added by `defineChannelConfig`.
import { type ChannelConfigSpec, defineChannelConfig, z } from '@switchboard/hooks';

const cloudRequired = ['phoneNumberId', 'accessToken', 'appSecret', 'verifyToken'] as const;

const accountSchema = z
  .object({
    /** `baileys`: a personal number as a linked device. `cloud`: the WhatsApp Business Cloud API. */
    transport: z.enum(['baileys', 'cloud']).default('baileys'),
    /** Mark handled messages as read (blue ticks). */
    sendReadReceipts: z.boolean().default(true),
    /** Largest attachment downloaded or sent, in MB. */
    mediaMaxMb: z.number().positive().max(2_000).default(50),
    /** How long a send waits for the connection to (re)open before failing, in ms. */
    sendTimeoutMs: z.number().int().positive().default(30_000),

    // baileys
    /** Link with a pairing code sent to this phone number (E.164) instead of a QR code. */
    pairingPhoneNumber: z
      .string()
      .regex(/^\+?[\d\s().-]{6,}$/, { message: 'expected a phone number in E.164 form, like +15551230001' })
      .optional(),
    /** Print the linking QR code in the gateway log. */
    printQr: z.boolean().default(true),
    /** The WhatsApp Web socket URL (Baileys `waWebSocketUrl`), for proxies. Leave unset. */
    webSocketUrl: z.url({ protocol: /^wss?$/ }).optional(),
    /** The browser name shown under Linked devices on the phone. */
    deviceName: z.string().min(1).max(40).default('Switchboard'),
    /** Reconnect backoff of the linked-device connection. */
    reconnect: z
      .object({
        initialDelayMs: z.number().int().positive().default(1_000),
        maxDelayMs: z.number().int().positive().default(60_000),
        factor: z.number().min(1).default(2),
      })
      .default({ initialDelayMs: 1_000, maxDelayMs: 60_000, factor: 2 }),

    // cloud
    /** The Cloud API phone number id (WhatsApp Manager → API Setup), not the phone number. */
    phoneNumberId: z.string().regex(/^\d+$/, { message: 'expected the numeric phone number id' }).optional(),
    /** A system-user access token with whatsapp_business_messaging. */
    accessToken: z.string().min(1).optional(),
    /** The Meta app secret: webhook payloads are signed with it (X-Hub-Signature-256). */
    appSecret: z.string().min(1).optional(),
    /** The token you typed in the app's webhook settings; Meta echoes it in the verify handshake. */
    verifyToken: z.string().min(1).optional(),
    /** The Graph API base URL, for proxies and tests. */
    graphBase: z.url({ protocol: /^https?$/ }).default('https://graph.facebook.com'),
    graphApiVersion: z
      .string()
      .regex(/^v\d+\.\d+$/, { message: 'expected a Graph API version like v21.0' })
      .default('v21.0'),
    /** The webhook path on the gateway's HTTP server. Default `/webhooks/whatsapp/<accountId>`. */
    webhookPath: z
      .string()
      .regex(/^\/[A-Za-z0-9/_.-]*$/, {
        message: 'expected a path starting with / (letters, digits, / _ . -)',
      })
      .optional(),
  })
  .superRefine((account, context) => {
    if (account.transport !== 'cloud') return;
    for (const key of cloudRequired) {
      if (account[key] === undefined) {
        context.addIssue({ code: 'custom', path: [key], message: `required when transport is "cloud"` });
      }
    }
  });

/** The validated configuration of one WhatsApp account (without the access fields). */
export interface WhatsAppAccountConfig {
  readonly transport: 'baileys' | 'cloud';
  readonly sendReadReceipts: boolean;
  readonly mediaMaxMb: number;
  readonly sendTimeoutMs: number;
  readonly pairingPhoneNumber?: string | undefined;
  readonly printQr: boolean;
  readonly webSocketUrl?: string | undefined;
  readonly deviceName: string;
  readonly reconnect: {
    readonly initialDelayMs: number;
    readonly maxDelayMs: number;
    readonly factor: number;
  };
  readonly phoneNumberId?: string | undefined;
  readonly accessToken?: string | undefined;
  readonly appSecret?: string | undefined;
  readonly verifyToken?: string | undefined;
  readonly graphBase: string;
  readonly graphApiVersion: string;
  readonly webhookPath?: string | undefined;
}

/** The `channels.whatsapp` schema, access fields included. */
export const whatsappChannelConfig: ChannelConfigSpec<WhatsAppAccountConfig> =
  defineChannelConfig(accountSchema);
