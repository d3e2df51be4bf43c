import type { Message } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { mapMessage, mediaReferences } from './inbound.ts';

const context = { accountId: 'default', botId: 99, botUsername: 'HelperBot', mentionPatterns: [] };
const user = { id: 7, is_bot: false, first_name: 'Ann' };

function message(fields: Record<string, unknown>): Message {
  return {
    message_id: 10,
    date: 1_700_000_000,
    chat: { id: 7, type: 'private', first_name: 'Ann' },
    from: user,
    ...fields,
  } as Message;
}

describe('mapMessage', () => {
  it('turns content it cannot use as a file into a placeholder line', () => {
    const location = mapMessage(
      message({ location: { latitude: 48.85, longitude: 2.35 } }),
      'message',
      context,
    );
    expect(location).toMatchObject({ kind: 'message', message: { text: '<location: 48.85, 2.35>' } });
    const sticker = mapMessage(
      message({
        sticker: {
          file_id: 'f',
          file_unique_id: 'u',
          type: 'regular',
          width: 1,
          height: 1,
          is_animated: true,
          is_video: false,
          emoji: '🎉',
        },
      }),
      'message',
      context,
    );
    expect(sticker).toMatchObject({ kind: 'message', message: { text: '<media:sticker 🎉>' }, media: [] });
  });

  it('matches the bot username case-insensitively and keeps commands addressed elsewhere in DMs', () => {
    const group = { id: -5, type: 'supergroup', title: 'G' };
    const mentioned = mapMessage(
      message({ chat: group, text: '@helperbot hi', entities: [{ type: 'mention', offset: 0, length: 10 }] }),
      'message',
      context,
    );
    expect(mentioned).toMatchObject({ message: { wasMentioned: true, mentions: ['99'] } });
    const direct = mapMessage(
      message({ text: '/start@OtherBot', entities: [{ type: 'bot_command', offset: 0, length: 15 }] }),
      'message',
      context,
    );
    expect(direct).toMatchObject({ kind: 'message', message: { text: '/start@OtherBot' } });
  });

  it('skips messages without a sender or content', () => {
    expect(mapMessage(message({ from: undefined, text: 'x' }), 'message', context)).toEqual({
      kind: 'skip',
      reason: 'no sender',
    });
    expect(mapMessage(message({ pinned_message: {} }), 'message', context)).toMatchObject({ kind: 'skip' });
  });
});

describe('mediaReferences', () => {
  it('takes the largest photo size, and an image sent as a file as an image', () => {
    const references = mediaReferences(
      message({
        photo: [
          { file_id: 'small', file_unique_id: 's', width: 90, height: 90 },
          { file_id: 'large', file_unique_id: 'l', width: 1280, height: 960, file_size: 2048 },
        ],
      }),
    );
    expect(references).toEqual([
      { kind: 'image', fileId: 'large', fileUniqueId: 'l', mimeType: 'image/jpeg', sizeBytes: 2048 },
    ]);
    expect(
      mediaReferences(
        message({
          document: { file_id: 'd', file_unique_id: 'u', mime_type: 'image/png', file_name: 'shot.png' },
        }),
      ),
    ).toEqual([
      { kind: 'image', fileId: 'd', fileUniqueId: 'u', mimeType: 'image/png', fileName: 'shot.png' },
    ]);
  });
});
