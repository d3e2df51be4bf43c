// The REST API of the fake Discord: the routes discord.js uses (`/gateway/bot`, users, DM
// channels, channels, typing, messages with attachments, nonces and replies, edits,
// reactions), answered with Discord's status codes and error bodies.
import {
  discordContentLimit,
  type FakeDiscordEdit,
  type FakeDiscordReaction,
  type FakeDiscordTyping,
  type FakeDiscordUpload,
} from './fake-discord-types.ts';
import type { DiscordGateway } from './gateway.ts';
import { type DiscordApiChannel, type DiscordApiMessage, discordErrorCodes } from './types.ts';
import type { DiscordWorld } from './world.ts';

interface RestRequest {
  readonly method: string;
  readonly path: string;
  readonly json: unknown;
  readonly files: readonly FakeDiscordUpload[];
}

export interface RestReply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A Discord error reply (`{ message, code, errors? }`). */
export const error = (status: number, code: number, message: string, errors?: unknown): RestReply => ({
  status,
  body: { message, code, errors },
});

/** What the REST API records; `route` answers one request. */
export interface DiscordRest {
  readonly typings: FakeDiscordTyping[];
  readonly edits: FakeDiscordEdit[];
  readonly reactions: FakeDiscordReaction[];
  route(request: RestRequest): RestReply;
}

/** What the REST API needs from the rest of the fake. */
export interface DiscordRestOptions {
  readonly now: () => number;
  readonly gatewayUrl: () => string;
}

export function createDiscordRest(
  world: DiscordWorld,
  gateway: DiscordGateway,
  { now, gatewayUrl }: DiscordRestOptions,
): DiscordRest {
  const {
    bot,
    users,
    guilds,
    channels,
    messagesByChannel,
    nonces,
    iso,
    dmChannel,
    hostFile,
    parseMentions,
    storeMessage,
    referenceFor,
    buildMessage,
  } = world;
  const { dispatchMessage } = gateway;
  const typings: FakeDiscordTyping[] = [];
  const edits: FakeDiscordEdit[] = [];
  const reactions: FakeDiscordReaction[] = [];

  function contentError(content: unknown): RestReply | undefined {
    if (content === undefined || content === null) return undefined;
    if (typeof content !== 'string')
      return error(400, discordErrorCodes.invalidFormBody, 'Invalid Form Body', {
        content: {
          _errors: [{ code: 'STRING_TYPE_CONVERT', message: 'Could not interpret the value as string.' }],
        },
      });
    if (content.length > discordContentLimit)
      return error(400, discordErrorCodes.invalidFormBody, 'Invalid Form Body', {
        content: {
          _errors: [
            { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${discordContentLimit} or fewer in length.` },
          ],
        },
      });
    return undefined;
  }

  function postMessage(channel: DiscordApiChannel, request: RestRequest): RestReply {
    const body = (typeof request.json === 'object' && request.json !== null ? request.json : {}) as Record<
      string,
      unknown
    >;
    const invalid = contentError(body.content);
    if (invalid !== undefined) return invalid;
    const nonce =
      typeof body.nonce === 'string' || typeof body.nonce === 'number' ? String(body.nonce) : undefined;
    if (nonce !== undefined && body.enforce_nonce === true) {
      // Discord answers a repeated nonce with the message it created the first time.
      const earlier = nonces.get(`${channel.id}:${nonce}`);
      if (earlier !== undefined) return { status: 200, body: earlier };
    }
    const content = typeof body.content === 'string' ? body.content : '';
    const embeds = Array.isArray(body.embeds) ? body.embeds : [];
    const stickers = Array.isArray(body.sticker_ids) ? body.sticker_ids : [];
    if (content.trim() === '' && request.files.length === 0 && embeds.length === 0 && stickers.length === 0)
      return error(400, discordErrorCodes.cannotSendEmptyMessage, 'Cannot send an empty message');
    let referenced: DiscordApiMessage | undefined;
    const reference = body.message_reference as Record<string, unknown> | undefined;
    if (reference !== undefined && reference !== null && typeof reference.message_id === 'string') {
      referenced = referenceFor(channel, reference.message_id);
      if (referenced === undefined && reference.fail_if_not_exists !== false)
        return error(400, discordErrorCodes.invalidFormBody, 'Invalid Form Body', {
          message_reference: {
            _errors: [{ code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', message: 'Unknown message' }],
          },
        });
    }
    const attachments = request.files.map((file) =>
      hostFile(channel.id, { bytes: file.bytes, fileName: file.fileName, contentType: file.contentType }),
    );
    const message = buildMessage(channel, bot, content, {
      attachments,
      referenced,
      flags: typeof body.flags === 'number' ? body.flags : 0,
      ...(typeof body.nonce === 'string' || typeof body.nonce === 'number' ? { nonce: body.nonce } : {}),
    });
    message.embeds = embeds;
    if (nonce !== undefined && body.enforce_nonce === true) nonces.set(`${channel.id}:${nonce}`, message);
    storeMessage(message);
    dispatchMessage('MESSAGE_CREATE', message);
    return { status: 200, body: message };
  }

  function patchMessage(channel: DiscordApiChannel, messageId: string, request: RestRequest): RestReply {
    const message = referenceFor(channel, messageId);
    if (message === undefined) return error(404, discordErrorCodes.unknownMessage, 'Unknown Message');
    if (message.author.id !== bot.id)
      return error(403, 50005, 'Cannot edit a message authored by another user');
    const body = (typeof request.json === 'object' && request.json !== null ? request.json : {}) as Record<
      string,
      unknown
    >;
    const invalid = contentError(body.content);
    if (invalid !== undefined) return invalid;
    if (typeof body.content === 'string') {
      message.content = body.content;
      const guild = channel.guild_id === undefined ? undefined : guilds.get(channel.guild_id);
      Object.assign(message, parseMentions(body.content, guild));
    }
    if (request.files.length > 0)
      message.attachments = request.files.map((file) =>
        hostFile(channel.id, { bytes: file.bytes, fileName: file.fileName, contentType: file.contentType }),
      );
    message.edited_timestamp = iso();
    edits.push({ channelId: channel.id, messageId, content: message.content });
    dispatchMessage('MESSAGE_UPDATE', message);
    return { status: 200, body: message };
  }

  function route(request: RestRequest): RestReply {
    const { method, path } = request;
    const segments = path.split('/').filter((segment) => segment !== '');
    const [first, second, third, fourth, fifth, sixth, seventh] = segments;
    if (method === 'GET' && first === 'gateway' && (second === undefined || second === 'bot')) {
      return {
        status: 200,
        body:
          second === 'bot'
            ? {
                url: gatewayUrl(),
                shards: 1,
                session_start_limit: {
                  total: 1000,
                  remaining: 999,
                  reset_after: 14_400_000,
                  max_concurrency: 1,
                },
              }
            : { url: gatewayUrl() },
      };
    }
    if (first === 'users') {
      if (method === 'GET' && second === '@me' && third === undefined) return { status: 200, body: bot };
      if (method === 'POST' && second === '@me' && third === 'channels') {
        const recipient = (request.json as { recipient_id?: unknown } | null)?.recipient_id;
        if (typeof recipient !== 'string' || !users.has(recipient))
          return error(400, discordErrorCodes.unknownUser, 'Unknown User');
        return { status: 200, body: dmChannel(recipient) };
      }
      if (method === 'GET' && second !== undefined && third === undefined) {
        const user = users.get(second);
        return user === undefined
          ? error(404, discordErrorCodes.unknownUser, 'Unknown User')
          : { status: 200, body: user };
      }
    }
    if (first === 'channels' && second !== undefined) {
      const channel = channels.get(second);
      if (channel === undefined) return error(404, discordErrorCodes.unknownChannel, 'Unknown Channel');
      if (method === 'GET' && third === undefined) return { status: 200, body: channel };
      if (method === 'POST' && third === 'typing' && fourth === undefined) {
        typings.push({ channelId: channel.id, at: now() });
        return { status: 204 };
      }
      if (third === 'messages') {
        if (method === 'POST' && fourth === undefined) return postMessage(channel, request);
        if (method === 'GET' && fourth === undefined)
          return { status: 200, body: [...(messagesByChannel.get(channel.id) ?? [])].reverse().slice(0, 50) };
        if (fourth !== undefined && fifth === undefined) {
          if (method === 'PATCH') return patchMessage(channel, fourth, request);
          if (method === 'GET') {
            const message = referenceFor(channel, fourth);
            return message === undefined
              ? error(404, discordErrorCodes.unknownMessage, 'Unknown Message')
              : { status: 200, body: message };
          }
        }
        if (
          method === 'PUT' &&
          fourth !== undefined &&
          fifth === 'reactions' &&
          sixth !== undefined &&
          seventh === '@me'
        ) {
          if (referenceFor(channel, fourth) === undefined)
            return error(404, discordErrorCodes.unknownMessage, 'Unknown Message');
          reactions.push({ channelId: channel.id, messageId: fourth, emoji: decodeURIComponent(sixth) });
          return { status: 204 };
        }
      }
    }
    return error(404, 0, '404: Not Found');
  }

  return { typings, edits, reactions, route };
}
