import { describe, expect, it } from 'vitest';
import {
  cloudRecipientFromPeerId,
  jidFromPeerId,
  normalizeAllowEntry,
  parseJid,
  toE164,
  userIdFromJid,
} from './address.ts';
import { WhatsAppError } from './errors.ts';

describe('addresses', () => {
  it('normalizes allowFrom entries to the sender id format the channel emits', () => {
    for (const entry of [
      '+1 555 123 0001',
      '+1 (555) 123-0001',
      '15551230001',
      '1-555-123-0001',
      'whatsapp:+15551230001',
      'wa:15551230001',
      '15551230001@s.whatsapp.net',
      '15551230001:7@s.whatsapp.net',
      '15551230001@c.us',
    ]) {
      expect(normalizeAllowEntry(entry), entry).toBe('+15551230001');
    }
    expect(normalizeAllowEntry(' * ')).toBe('*');
    expect(normalizeAllowEntry('123456789012345@lid')).toBe('123456789012345@lid');
    expect(normalizeAllowEntry('bob')).toBe('bob');
  });

  it('reads JIDs, with device suffixes', () => {
    expect(parseJid('15551230001:12@s.whatsapp.net')).toEqual({
      user: '15551230001',
      device: 12,
      server: 's.whatsapp.net',
    });
    expect(parseJid('120363012345678901@g.us')).toEqual({ user: '120363012345678901', server: 'g.us' });
    expect(parseJid('nope')).toBeUndefined();
    expect(userIdFromJid('15551230001:3@s.whatsapp.net')).toBe('+15551230001');
    expect(userIdFromJid('99887766@lid')).toBe('99887766@lid');
  });

  it('addresses sends by phone number, JID or LID', () => {
    expect(jidFromPeerId('+15551230001')).toBe('15551230001@s.whatsapp.net');
    expect(jidFromPeerId('15551230001@c.us')).toBe('15551230001@s.whatsapp.net');
    expect(jidFromPeerId('99887766@lid')).toBe('99887766@lid');
    expect(jidFromPeerId('120363012345678901@g.us')).toBe('120363012345678901@g.us');
    expect(cloudRecipientFromPeerId('+1 555 123 0001')).toBe('15551230001');
  });

  it('refuses ids that are not addresses, naming them', () => {
    expect(() => jidFromPeerId('alice')).toThrow(/"alice" is neither a phone number/);
    try {
      cloudRecipientFromPeerId('99887766@lid');
      expect.unreachable();
    } catch (error) {
      expect(WhatsAppError.isInstance(error)).toBe(true);
      expect((error as WhatsAppError).code).toBe('WHATSAPP_INVALID_TARGET');
    }
    expect(toE164('12345')).toBeUndefined();
    expect(toE164('+1234567890123456')).toBeUndefined();
  });
});
