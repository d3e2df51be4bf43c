// The public shapes of FakeWhatsApp: its options, the people and messages of its world, and the
// handle a test drives.
import type { WAMessage } from 'baileys';
import type { FakeSocketFactory } from '../fake-socket.ts';

export interface FakeWhatsAppOptions {
  /** The linked account's phone number, digits only. Default `15550009999`. */
  readonly botNumber?: string;
  /** The linked account's LID, digits only. Default `200000000009999`. */
  readonly botLid?: string;
  readonly botName?: string;
  /** How messages address people: `lid` (WhatsApp's default now) or `pn`. Default `lid`. */
  readonly addressing?: 'lid' | 'pn';
  /** The phone scans the QR code (or enters the pairing code) as soon as it is shown. Default false. */
  readonly autoLink?: boolean;
  /** QR codes offered per connection before it closes with 408. Default 6. */
  readonly qrRefs?: number;
  /** How long each QR code lives. Default 20 s. */
  readonly qrIntervalMs?: number;
  readonly now?: () => number;
}

/** A person on the fake WhatsApp. */
export interface FakeWhatsAppUser {
  /** Digits only. */
  readonly phone: string;
  /** `+<digits>`: the id the channel reports (Sender.id, DM peer id). */
  readonly id: string;
  readonly jid: string;
  readonly lidJid: string;
  readonly name: string;
}

/** A message the linked device sent, as the world recorded it. */
export interface FakeWhatsAppSentMessage {
  readonly id: string;
  /** The JID it was sent to. */
  readonly jid: string;
  /** `+<digits>` for a person, the group JID for a group. */
  readonly conversationId: string;
  readonly kind: 'text' | 'image' | 'video' | 'audio' | 'document' | 'sticker' | 'other';
  /** The text or caption. */
  readonly text: string;
  /** The message id it quotes (`contextInfo.stanzaId`). */
  readonly quotedId?: string;
  readonly message: WAMessage;
  readonly at: number;
}

export interface FakeWhatsAppSendOptions {
  /** Write in this group instead of a DM. */
  readonly group?: string;
  /** Mention the linked account (`@<number>` and `contextInfo.mentionedJid`). */
  readonly mentionBot?: boolean;
  /** Quote (reply to) this message id. */
  readonly quote?: string;
  readonly id?: string;
}

export interface FakeWhatsAppMedia {
  readonly kind: 'image' | 'video' | 'audio' | 'voice' | 'document' | 'sticker';
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  readonly fileName?: string;
  readonly caption?: string;
}

/** The world's view of the linked device. */
export interface FakeWhatsAppLinkState {
  readonly linked: boolean;
  /** Sockets connected now (open or still linking). */
  readonly connections: number;
  /** A socket is connected and logged in. */
  readonly open: boolean;
  /** Every QR ref offered, oldest first. */
  readonly qrRefs: readonly string[];
  /** Every pairing code handed out. */
  readonly pairingCodes: readonly string[];
  /** How many times a socket logged in. */
  readonly logins: number;
}

/** A GET of encrypted media on the fake CDN (`/cdn/<id>`). */
export interface FakeWhatsAppMediaDownload {
  readonly id: string;
  readonly status: number;
  /** The bytes handed to the socket: sent in 64 KiB chunks with backpressure, stopped when the client hangs up. */
  readonly bytesSent: number;
}

export interface FakeWhatsApp {
  start(): Promise<FakeWhatsApp>;
  close(): Promise<void>;
  /** `ws://127.0.0.1:<port>/ws/chat`: give it to `fakeSocketFactory` or as `waWebSocketUrl`. */
  readonly socketUrl: string;
  /** The channel's `makeSocket` for this world. */
  readonly makeSocket: FakeSocketFactory;
  /** The linked account: `<number>@s.whatsapp.net`, its LID JID and `+<number>`. */
  readonly bot: { readonly jid: string; readonly lidJid: string; readonly id: string; readonly name: string };
  addUser(phone: string, options?: { name?: string; lid?: string }): FakeWhatsAppUser;
  user(phone: string): FakeWhatsAppUser;
  /** Creates a group with the bot and these people; returns its JID (`jid` picks it). */
  createGroup(subject: string, members: readonly string[], jid?: string): string;
  /**
   * A person writes text (DM, or in a group). Resolves once the server accepted it. With a
   * device connected it arrives as a `notify` upsert; otherwise WhatsApp keeps it and delivers
   * it at the next login as an `append` upsert (an offline delivery), as Baileys emits those.
   */
  sendText(from: string, text: string, options?: FakeWhatsAppSendOptions): Promise<{ messageId: string }>;
  /** A person sends an attachment, encrypted by Baileys and stored on the CDN. */
  sendMedia(
    from: string,
    media: FakeWhatsAppMedia,
    options?: FakeWhatsAppSendOptions,
  ): Promise<{ messageId: string }>;
  /**
   * Delivers an already delivered message again (same id): live (`notify`) when a device is
   * connected, else with the offline backlog (`append`) at the next login.
   */
  redeliver(messageId: string): void;
  /** The phone scans the QR code being shown. */
  scanQr(): void;
  /** The phone enters a pairing code. */
  enterPairingCode(code: string): void;
  /** The phone removes the linked device: the connection closes with 401. */
  logoutDevice(): void;
  /** WhatsApp drops the connection with this disconnect reason (default 408, connection lost). */
  disconnect(statusCode?: number, message?: string): void;
  /** The next `count` connection attempts are closed at once with `statusCode`. */
  refuseNextConnections(count: number, statusCode: number): void;
  /** The next `count` sends are refused with 429 rate-overlimit and this retry-after. */
  rateLimitNextSends(count: number, retryAfterSeconds: number): void;
  rateLimitedSends(): number;
  /** Every download from the media CDN (inbound attachments and the bot's uploads), oldest first. */
  mediaDownloads(): readonly FakeWhatsAppMediaDownload[];
  readonly link: FakeWhatsAppLinkState;
  waitForLink(
    check: (state: FakeWhatsAppLinkState) => boolean,
    timeoutMs?: number,
  ): Promise<FakeWhatsAppLinkState>;
  /** What the linked device sent (to one conversation, or all). */
  sent(conversationId?: string): readonly FakeWhatsAppSentMessage[];
  waitForSent(
    conversationId: string,
    count: number,
    timeoutMs?: number,
  ): Promise<readonly FakeWhatsAppSentMessage[]>;
  /** Downloads and decrypts a sent attachment from the CDN with Baileys' `downloadMediaMessage`. */
  sentMedia(messageId: string): Promise<Uint8Array>;
  /** Presence updates (`composing`, `paused`, ...) the device sent. */
  presences(): ReadonlyArray<{ readonly presence: string; readonly jid?: string; readonly at: number }>;
  /** Message keys the device marked read. */
  readReceipts(): ReadonlyArray<Record<string, unknown>>;
}
