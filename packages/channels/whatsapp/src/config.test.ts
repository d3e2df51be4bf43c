import { resolveChannelAccounts } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { createWhatsAppChannel } from './channel.ts';

const channel = createWhatsAppChannel();

describe('channels.whatsapp configuration', () => {
  it('defaults to the baileys transport with safe access defaults', () => {
    const { accounts } = resolveChannelAccounts(channel, {});
    expect(accounts).toHaveLength(1);
    expect(accounts[0]?.config).toMatchObject({
      transport: 'baileys',
      dmPolicy: 'pairing',
      groupPolicy: 'allowlist',
      requireMention: true,
      sendReadReceipts: true,
      printQr: true,
      mediaMaxMb: 50,
      graphBase: 'https://graph.facebook.com',
      graphApiVersion: 'v21.0',
      reconnect: { initialDelayMs: 1_000, maxDelayMs: 60_000, factor: 2 },
    });
  });

  it('requires the Cloud API fields when transport is cloud, naming each key path', () => {
    expect(() =>
      resolveChannelAccounts(channel, {
        accounts: { support: { transport: 'cloud', phoneNumberId: '123', accessToken: 'token' } },
      }),
    ).toThrow(
      /channels\.whatsapp\.accounts\.support\.appSecret: required when transport is "cloud"[\s\S]*channels\.whatsapp\.accounts\.support\.verifyToken: required/,
    );
    expect(() =>
      resolveChannelAccounts(channel, {
        transport: 'cloud',
        phoneNumberId: 'abc',
        accessToken: 't',
        appSecret: 's',
        verifyToken: 'v',
      }),
    ).toThrow(/channels\.whatsapp\.phoneNumberId: expected the numeric phone number id/);
  });

  it('runs several accounts, each with its own transport, inheriting the top level', () => {
    const { accounts, warnings } = resolveChannelAccounts(channel, {
      allowFrom: ['+1 555 123 0001'],
      groups: { '120363012345678901@g.us': { requireMention: false } },
      accounts: {
        personal: { pairingPhoneNumber: '+15550009999' },
        business: {
          transport: 'cloud',
          phoneNumberId: '100000000000001',
          accessToken: 'token',
          appSecret: 'secret',
          verifyToken: 'verify',
          dmPolicy: 'open',
          colour: 'blue',
        },
      },
    });
    expect(
      accounts.map((account) => [account.accountId, account.config.transport, account.config.dmPolicy]),
    ).toEqual([
      ['personal', 'baileys', 'pairing'],
      ['business', 'cloud', 'open'],
    ]);
    expect(accounts.every((account) => account.config.allowFrom[0] === '+1 555 123 0001')).toBe(true);
    expect(warnings).toEqual(['channels.whatsapp.accounts.business.colour: unknown key, ignored']);
  });

  it('refuses malformed values with the key path', () => {
    expect(() => resolveChannelAccounts(channel, { transport: 'sms' })).toThrow(
      /channels\.whatsapp\.transport/,
    );
    expect(() => resolveChannelAccounts(channel, { pairingPhoneNumber: 'call me' })).toThrow(
      /channels\.whatsapp\.pairingPhoneNumber: expected a phone number in E\.164 form/,
    );
    expect(() => resolveChannelAccounts(channel, { graphBase: 'ftp://graph' })).toThrow(
      /channels\.whatsapp\.graphBase/,
    );
    expect(() => resolveChannelAccounts(channel, { webhookPath: 'no-slash' })).toThrow(
      /channels\.whatsapp\.webhookPath/,
    );
  });

  it('maps allowFrom entries written as phone numbers to the sender ids it emits', () => {
    expect(channel.normalizeAllowEntry?.('+1 555 123 0001')).toBe('+15551230001');
    expect(channel.normalizeAllowEntry?.('15551230001@s.whatsapp.net')).toBe('+15551230001');
  });
});
