// The part of a Baileys socket the channel uses. Baileys' own `makeWASocket` returns a
// superset of it; tests inject a fake built from real Baileys helpers (testkit's
// `FakeWhatsApp`), which is how a linked-device client can be tested without WhatsApp's
// servers (their handshake pins WhatsApp's certificate, so no local fake server can exist).
import type {
  AnyMessageContent,
  BaileysEventEmitter,
  Contact,
  GroupMetadata,
  MiscMessageGenerationOptions,
  UserFacingSocketConfig,
  WAMessage,
  WAMessageKey,
  WAPresence,
} from 'baileys';

/** The socket surface the WhatsApp channel drives. */
export interface WhatsAppSocket {
  /** Baileys' event emitter (`connection.update`, `creds.update`, `messages.upsert`, ...). */
  readonly ev: Pick<BaileysEventEmitter, 'on' | 'off'>;
  /** The linked account, once the connection is open. */
  readonly user: Contact | undefined;
  /** Resolves LIDs to phone-number JIDs, when Baileys knows the mapping. */
  readonly signalRepository?: {
    readonly lidMapping?: { getPNForLID(lid: string): Promise<string | null> };
  };
  sendMessage(
    jid: string,
    content: AnyMessageContent,
    options?: MiscMessageGenerationOptions,
  ): Promise<WAMessage | undefined>;
  sendPresenceUpdate(type: WAPresence, toJid?: string): Promise<void>;
  readMessages(keys: WAMessageKey[]): Promise<void>;
  /** Pairing-code login: returns the 8-character code to type on the phone. */
  requestPairingCode(phoneNumber: string): Promise<string>;
  groupMetadata(jid: string): Promise<GroupMetadata>;
  /** Asks the phone to re-upload expired media. */
  updateMediaMessage(message: WAMessage): Promise<WAMessage>;
  /** Closes the connection; `connection.update` then reports `close`. */
  end(error: Error | undefined): void | Promise<void>;
}

/** The configuration the channel passes when it opens a socket (Baileys' own type). */
export type WhatsAppSocketConfig = UserFacingSocketConfig;

/** Opens a socket: Baileys' `makeWASocket` in production, a fake in tests. */
export type MakeWhatsAppSocket = (config: WhatsAppSocketConfig) => WhatsAppSocket;
