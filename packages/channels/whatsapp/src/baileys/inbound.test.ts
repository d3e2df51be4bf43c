import { proto, type WAMessage } from 'baileys';
import { describe, expect, it } from 'vitest';
import { compactRaw, convertInbound, type InboundContext } from './inbound.ts';

const context: InboundContext = {
  channel: 'whatsapp',
  accountId: 'default',
  ownJids: ['15550009999:4@s.whatsapp.net', '200000000009999:4@lid'],
  resolvePhoneJid: async (lid) => (lid === '555@lid' ? '15557770000@s.whatsapp.net' : undefined),
  groupName: async () => 'Family',
};

const message = (object: Record<string, unknown>, extras: Record<string, unknown> = {}): WAMessage => {
  const built = proto.WebMessageInfo.fromObject({ messageTimestamp: 1_700_000_000, ...object }) as WAMessage;
  Object.assign(built.key!, extras);
  return built;
};

describe('Baileys messages to inbound messages', () => {
  it('skips own messages, status updates, newsletters, broadcasts, reactions and protocol messages', async () => {
    const skipped = [
      message({
        key: { remoteJid: '15551230001@s.whatsapp.net', fromMe: true, id: '1' },
        message: { conversation: 'mine' },
      }),
      message({
        key: { remoteJid: 'status@broadcast', id: '2', participant: '15551230001@s.whatsapp.net' },
        message: { conversation: 'story' },
      }),
      message({ key: { remoteJid: '1203630000@newsletter', id: '3' }, message: { conversation: 'news' } }),
      message({
        key: { remoteJid: '15551230001@s.whatsapp.net', id: '4' },
        message: { reactionMessage: { text: '👍' } },
      }),
      message({
        key: { remoteJid: '15551230001@s.whatsapp.net', id: '5' },
        message: { protocolMessage: { type: 'REVOKE' } },
      }),
      message({ key: { remoteJid: '15551230001@s.whatsapp.net', id: '6' } }),
    ];
    for (const entry of skipped)
      expect(await convertInbound(entry, context), entry.key?.id ?? '').toBeUndefined();
  });

  it('unwraps ephemeral and view-once messages and reads captions, locations and contacts', async () => {
    const ephemeral = await convertInbound(
      message({
        key: { remoteJid: '15551230001@s.whatsapp.net', id: 'e1' },
        message: { ephemeralMessage: { message: { extendedTextMessage: { text: 'disappearing' } } } },
      }),
      context,
    );
    expect(ephemeral?.message).toMatchObject({ text: 'disappearing', timestamp: 1_700_000_000_000 });
    const location = await convertInbound(
      message({
        key: { remoteJid: '15551230001@s.whatsapp.net', id: 'l1' },
        message: { locationMessage: { degreesLatitude: 52.5, degreesLongitude: 13.4, name: 'Cafe' } },
      }),
      context,
    );
    expect(location?.message.text).toBe('[location] 52.5, 13.4 (Cafe)');
    const voice = await convertInbound(
      message({
        key: { remoteJid: '15551230001@s.whatsapp.net', id: 'v1' },
        message: {
          audioMessage: { mimetype: 'audio/ogg; codecs=opus', ptt: true, fileLength: 2048, url: 'http://x' },
        },
      }),
      context,
    );
    expect(voice?.media).toEqual({ kind: 'voice', mimeType: 'audio/ogg; codecs=opus', sizeBytes: 2048 });
    const document = await convertInbound(
      message({
        key: { remoteJid: '15551230001@s.whatsapp.net', id: 'd1' },
        message: {
          documentWithCaptionMessage: {
            message: {
              documentMessage: { caption: 'the contract', fileName: 'c.pdf', mimetype: 'application/pdf' },
            },
          },
        },
      }),
      context,
    );
    expect(document?.message.text).toBe('the contract');
    expect(document?.media).toMatchObject({ kind: 'document', fileName: 'c.pdf' });
  });

  it("resolves a LID sender without an alternate address through Baileys' LID mapping, else keeps the LID", async () => {
    const mapped = await convertInbound(
      message({ key: { remoteJid: '555@lid', id: 'm1' }, message: { conversation: 'x' } }),
      context,
    );
    expect(mapped?.message.sender.id).toBe('+15557770000');
    const unknown = await convertInbound(
      message({ key: { remoteJid: '999@lid', id: 'm2' }, message: { conversation: 'x' } }),
      context,
    );
    expect(unknown?.message.sender.id).toBe('999@lid');
    expect(unknown?.message.peer).toEqual({ kind: 'direct', id: '999@lid' });
  });

  it('reads quotes as replyTo, and a mention of the phone-number JID as a mention', async () => {
    const converted = await convertInbound(
      message(
        {
          key: { remoteJid: '120363000000000001@g.us', id: 'g1', participant: '100015551230001@lid' },
          message: {
            extendedTextMessage: {
              text: '@15550009999 see above',
              contextInfo: {
                mentionedJid: ['15550009999@s.whatsapp.net'],
                stanzaId: 'q1',
                participant: '15551230002@s.whatsapp.net',
                quotedMessage: { conversation: 'the original' },
              },
            },
          },
          pushName: 'Alice',
        },
        { participantAlt: '15551230001@s.whatsapp.net', addressingMode: 'lid' },
      ),
      context,
    );
    expect(converted?.message).toMatchObject({
      chatType: 'group',
      peer: { kind: 'group', id: '120363000000000001@g.us', name: 'Family' },
      sender: { id: '+15551230001', name: 'Alice' },
      wasMentioned: true,
      mentions: ['+15550009999'],
      replyTo: { messageId: 'q1', text: 'the original', senderId: '+15551230002' },
    });
  });

  it('keeps raw as plain JSON without media keys', async () => {
    const raw = compactRaw(
      message(
        {
          key: { remoteJid: '15551230001@s.whatsapp.net', id: 'r1' },
          message: {
            imageMessage: { mediaKey: Buffer.from('secret key material'), caption: 'pic', fileLength: 10 },
          },
        },
        { remoteJidAlt: '1@lid' },
      ),
    );
    const text = JSON.stringify(raw);
    expect(text).not.toContain('mediaKey');
    expect(raw).toMatchObject({
      key: { id: 'r1', remoteJidAlt: '1@lid' },
      message: { imageMessage: { caption: 'pic', fileLength: 10 } },
      messageTimestamp: 1_700_000_000,
    });
  });
});
