// The state of the fake WhatsApp: the linked account, the people (phone numbers and LIDs),
// the groups, the messages people wrote (by id, for quotes and redelivery), and what the
// linked device sent, typed and read. It answers no requests and wakes no waits: its callers do.
import { randomBytes } from 'node:crypto';
import { TestkitError } from '../../shared/errors.ts';
import type { WireMessage } from '../protocol.ts';
import type { FakeWhatsAppOptions, FakeWhatsAppSentMessage, FakeWhatsAppUser } from './types.ts';

/** The linked account, as the world shows it. */
export interface WhatsAppBot {
  readonly jid: string;
  readonly lidJid: string;
  readonly id: string;
  readonly name: string;
}

/** A group the bot is in: its subject and the other members' phone numbers. */
interface WhatsAppGroup {
  readonly subject: string;
  readonly members: readonly string[];
}

export class WhatsAppWorld {
  readonly botNumber: string;
  readonly botLid: string;
  readonly addressing: 'lid' | 'pn';
  readonly now: () => number;
  readonly bot: WhatsAppBot;
  /** Messages people wrote, by id: what a quote or a redelivery refers to. */
  readonly delivered: Map<string, WireMessage> = new Map();
  /** What the linked device sent, oldest first. */
  readonly sent: FakeWhatsAppSentMessage[] = [];
  readonly presences: Array<{ presence: string; jid?: string; at: number }> = [];
  readonly reads: Array<Record<string, unknown>> = [];
  readonly #users = new Map<string, FakeWhatsAppUser>();
  readonly #lidToPhone = new Map<string, string>();
  readonly #groups = new Map<string, WhatsAppGroup>();

  constructor(options: FakeWhatsAppOptions) {
    this.botNumber = options.botNumber ?? '15550009999';
    this.botLid = options.botLid ?? '200000000009999';
    this.addressing = options.addressing ?? 'lid';
    this.now = options.now ?? Date.now;
    if (!/^\d{6,15}$/.test(this.botNumber)) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `botNumber: expected 6–15 digits, got "${this.botNumber}"`,
      );
    }
    this.bot = {
      jid: `${this.botNumber}@s.whatsapp.net`,
      lidJid: `${this.botLid}@lid`,
      id: `+${this.botNumber}`,
      name: options.botName ?? 'Switchboard Bot',
    };
  }

  /** The bot's JID in the world's addressing mode. */
  get botAddress(): string {
    return this.addressing === 'lid' ? this.bot.lidJid : this.bot.jid;
  }

  /** A new WhatsApp-style message id. */
  messageId(): string {
    return `3A${randomBytes(9).toString('hex').toUpperCase()}`;
  }

  /** The current time in whole seconds, as message timestamps carry it. */
  seconds(): string {
    return String(Math.floor(this.now() / 1000));
  }

  addUser(phone: string, userOptions: { name?: string; lid?: string } = {}): FakeWhatsAppUser {
    const digits = phone.replace(/\D/g, '');
    if (!/^\d{6,15}$/.test(digits))
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `addUser: "${phone}" is not a phone number`);
    const lid = userOptions.lid ?? `1${digits.padStart(14, '0')}`;
    const user: FakeWhatsAppUser = {
      phone: digits,
      id: `+${digits}`,
      jid: `${digits}@s.whatsapp.net`,
      lidJid: `${lid}@lid`,
      name: userOptions.name ?? `User ${digits.slice(-4)}`,
    };
    this.#users.set(digits, user);
    this.#lidToPhone.set(lid, digits);
    return user;
  }

  user(phone: string): FakeWhatsAppUser {
    const user = this.#users.get(phone.replace(/\D/g, ''));
    if (user === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `no user ${phone}: call addUser first`);
    return user;
  }

  createGroup(subject: string, members: readonly string[], requested?: string): string {
    const jid =
      requested ?? `120363${String(randomBytes(6).readUIntBE(0, 6)).padStart(15, '0').slice(0, 12)}@g.us`;
    if (!/^\d+@g\.us$/.test(jid))
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `createGroup: "${jid}" is not a group JID`);
    this.#groups.set(jid, { subject, members: members.map((member) => this.user(member).phone) });
    return jid;
  }

  hasGroup(jid: string): boolean {
    return this.#groups.has(jid);
  }

  /** A group's metadata as Baileys' `groupMetadata` returns it, or undefined for an unknown JID. */
  groupMetadata(jid: string): Record<string, unknown> | undefined {
    const group = this.#groups.get(jid);
    if (group === undefined) return undefined;
    const lid = this.addressing === 'lid';
    return {
      id: jid,
      subject: group.subject,
      owner: this.bot.jid,
      participants: [
        { id: this.botAddress, admin: 'superadmin' },
        ...group.members.map((phone) => ({
          id: lid ? this.#users.get(phone)!.lidJid : this.#users.get(phone)!.jid,
          admin: null,
        })),
      ],
      addressingMode: this.addressing,
    };
  }

  /** The phone number behind a LID user part, if the world knows it. */
  phoneForLid(lidUser: string): string | undefined {
    return this.#lidToPhone.get(lidUser);
  }

  /** The channel's conversation id for a JID: `+<digits>` for a person, the JID for a group. */
  conversationOf(jid: string): string {
    if (jid.endsWith('@g.us')) return jid;
    const user = jid.split('@')[0]?.split(':')[0] ?? jid;
    if (jid.endsWith('@lid')) {
      const phone = this.#lidToPhone.get(user);
      return phone === undefined ? `${user}@lid` : `+${phone}`;
    }
    return `+${user}`;
  }
}
