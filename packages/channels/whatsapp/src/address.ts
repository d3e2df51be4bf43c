// Addresses: how WhatsApp users and groups appear as Switchboard ids, and back.
//
// A person is identified by their phone number in E.164 form (`+15551230001`): that is what
// `Sender.id` and a DM's `peer.id` hold for both transports, and what operators write in
// `allowFrom`. A person WhatsApp only shows by their LID (a privacy id, no number known)
// appears as `<digits>@lid`. A group keeps its platform id: the JID `…@g.us` (Baileys) or
// the Cloud API's opaque group id.
import { WhatsAppError } from './errors.ts';

const phoneServers = new Set(['s.whatsapp.net', 'c.us']);
const phoneLike = /^[+\d\s().-]+$/;

/** `+15551230001` from any way of writing a phone number (`+1 555 123 0001`, `1-555-123-0001`). */
export function toE164(value: string): string | undefined {
  if (!phoneLike.test(value)) return undefined;
  const digits = value.replace(/\D/g, '');
  if (digits.length < 6 || digits.length > 15) return undefined;
  return `+${digits}`;
}

/** The parts of a JID: `15551230001:3@s.whatsapp.net` → user `15551230001`, device 3, server. */
export interface ParsedJid {
  readonly user: string;
  readonly device?: number;
  readonly server: string;
}

export function parseJid(jid: string): ParsedJid | undefined {
  const at = jid.indexOf('@');
  if (at <= 0) return undefined;
  const server = jid.slice(at + 1);
  const userPart = jid.slice(0, at);
  const colon = userPart.indexOf(':');
  const underscore = userPart.indexOf('_');
  const end = colon >= 0 ? colon : underscore >= 0 ? underscore : userPart.length;
  const user = userPart.slice(0, end);
  if (user === '' || server === '') return undefined;
  const device = colon >= 0 ? Number(userPart.slice(colon + 1)) : undefined;
  return device !== undefined && Number.isInteger(device) ? { user, device, server } : { user, server };
}

/** True for a group JID (`…@g.us`). */
export function isGroupJid(jid: string): boolean {
  return jid.endsWith('@g.us');
}

/**
 * The Switchboard id of a WhatsApp user JID: `+<digits>` for a phone-number JID (device
 * suffix dropped), `<digits>@lid` for a LID, the JID itself otherwise.
 */
export function userIdFromJid(jid: string): string {
  const parsed = parseJid(jid);
  if (parsed === undefined) return jid;
  if (phoneServers.has(parsed.server)) return `+${parsed.user}`;
  if (parsed.server === 'lid') return `${parsed.user}@lid`;
  return `${parsed.user}@${parsed.server}`;
}

/** The user JID Baileys sends to for a Switchboard id (`+15551230001` → `15551230001@s.whatsapp.net`). */
export function jidFromPeerId(id: string): string {
  const trimmed = id.trim();
  if (trimmed.includes('@')) {
    const parsed = parseJid(trimmed);
    if (parsed === undefined) {
      throw new WhatsAppError('WHATSAPP_INVALID_TARGET', `"${id}" is not a WhatsApp JID`, {
        details: { peerId: id },
      });
    }
    return `${parsed.user}@${parsed.server === 'c.us' ? 's.whatsapp.net' : parsed.server}`;
  }
  const e164 = toE164(trimmed);
  if (e164 === undefined) {
    throw new WhatsAppError(
      'WHATSAPP_INVALID_TARGET',
      `"${id}" is neither a phone number in E.164 form (+15551230001) nor a WhatsApp JID`,
      { details: { peerId: id } },
    );
  }
  return `${e164.slice(1)}@s.whatsapp.net`;
}

/** The Cloud API `to` of a Switchboard DM id: the number's digits (`+15551230001` → `15551230001`). */
export function cloudRecipientFromPeerId(id: string): string {
  const e164 = toE164(id.trim()) ?? (id.includes('@') ? toE164(userIdFromJid(id)) : undefined);
  if (e164 === undefined) {
    throw new WhatsAppError(
      'WHATSAPP_INVALID_TARGET',
      `"${id}" is not a phone number in E.164 form (+15551230001); the Cloud API sends to phone numbers`,
      { details: { peerId: id } },
    );
  }
  return e164.slice(1);
}

/**
 * Maps an `allowFrom` entry as an operator writes it to the id inbound messages carry:
 * `+1 555 123 0001`, `15551230001`, `whatsapp:+15551230001` and `15551230001@s.whatsapp.net`
 * all become `+15551230001`; a LID (`123@lid`) and `*` stay as they are.
 */
export function normalizeAllowEntry(entry: string): string {
  let value = entry.trim();
  if (value === '*') return value;
  value = value.replace(/^(whatsapp|wa):/i, '').trim();
  if (value.includes('@')) return userIdFromJid(value);
  return toE164(value) ?? value;
}
