// The Web API methods the fake Slack answers (`auth.test`, `chat.postMessage`, `chat.update`,
// the v2 file upload, `users.info`, `conversations.*`, `assistant.threads.setStatus`,
// `reactions.add`, `apps.connections.open`). A method returns its result fields or throws an
// ApiFailure with Slack's error string.
import type { SlackEventDelivery } from './events.ts';
import type { ConversationState, FileState, MessageState, WorkspaceState } from './state.ts';
import type { FakeSlackFile } from './types.ts';
import type { SlackWorld } from './world.ts';

interface ApiContext {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly workspace: WorkspaceState;
  readonly tokenType: 'bot' | 'app';
}

/** A Web API error: `{ ok: false, error }` with HTTP 200 unless `status` says otherwise. */
export class ApiFailure extends Error {
  readonly error: string;
  readonly status: number;
  constructor(error: string, status = 200) {
    super(error);
    this.error = error;
    this.status = status;
  }
}

/** The methods a bot token may call (`apps.connections.open` takes an app token). */
export const botMethods: ReadonlySet<string> = new Set([
  'auth.test',
  'chat.postMessage',
  'chat.update',
  'chat.delete',
  'files.getUploadURLExternal',
  'files.completeUploadExternal',
  'users.info',
  'conversations.info',
  'conversations.open',
  'assistant.threads.setStatus',
  'reactions.add',
]);

/** What the Web API needs from the rest of the fake. */
export interface SlackWebApiOptions {
  readonly maxTextLength: number;
  readonly wake: () => void;
  readonly baseUrl: () => string;
}

/** The methods by name (each returns its result fields or throws an ApiFailure) and what they record. */
export interface SlackWebApi {
  readonly methods: Readonly<Record<string, (context: ApiContext) => Record<string, unknown>>>;
  /** `assistant.threads.setStatus` calls. */
  readonly statusCalls: Array<{ channel: string; threadTs: string; status: string }>;
}

export function createSlackWebApi(
  world: SlackWorld,
  delivery: SlackEventDelivery,
  options: SlackWebApiOptions,
): SlackWebApi {
  const { maxTextLength, wake, baseUrl } = options;
  const { conversations, files, nextId, directChannelState, snapshotFile, fileJson, storeMessage } = world;
  const { startDelivery, newEvent, messageEvent } = delivery;
  const statusCalls: Array<{ channel: string; threadTs: string; status: string }> = [];

  function stringParam(context: ApiContext, name: string, required = true): string | undefined {
    const value = context.params[name];
    if (value === undefined || value === null || value === '') {
      if (required)
        throw new ApiFailure(
          name === 'channel' || name === 'channel_id' ? 'channel_not_found' : 'invalid_arguments',
        );
      return undefined;
    }
    return String(value);
  }

  function resolveConversation(context: ApiContext, id: string): ConversationState {
    const direct = conversations.get(id);
    if (direct !== undefined && direct.teamId === context.workspace.teamId) return direct;
    if (context.workspace.users.has(id)) return directChannelState(id, context.workspace.teamId);
    throw new ApiFailure('channel_not_found');
  }

  function postingConversation(context: ApiContext, id: string): ConversationState {
    const conversation = resolveConversation(context, id);
    if (!conversation.botIsMember) throw new ApiFailure('not_in_channel');
    return conversation;
  }

  function checkText(text: string | undefined): void {
    if (text !== undefined && text.length > maxTextLength) throw new ApiFailure('msg_too_long');
  }

  function botPost(
    context: ApiContext,
    conversation: ConversationState,
    text: string,
    threadTs: string | undefined,
    postedFiles: FakeSlackFile[],
    mrkdwn: boolean,
  ): MessageState {
    if (threadTs !== undefined && !conversation.messages.some((message) => message.ts === threadTs)) {
      throw new ApiFailure('thread_not_found');
    }
    const message = storeMessage(conversation, {
      user: context.workspace.botUserId,
      botId: context.workspace.botId,
      fromBot: true,
      text,
      threadTs,
      files: postedFiles,
      mrkdwn,
    });
    if (context.workspace.echoBotMessages) {
      void startDelivery(newEvent(context.workspace, messageEvent(conversation, message)), 0, '');
    }
    return message;
  }

  function messageJson(message: MessageState): Record<string, unknown> {
    return {
      type: 'message',
      user: message.user,
      bot_id: message.botId,
      text: message.text,
      ts: message.ts,
      thread_ts: message.threadTs,
      team: message.teamId,
      ...(message.files.length === 0 ? {} : { files: message.files.map(fileJson) }),
    };
  }

  const methods: Readonly<Record<string, (context: ApiContext) => Record<string, unknown>>> = {
    'auth.test'(context) {
      const { workspace } = context;
      return {
        url: `https://${workspace.teamName.toLowerCase().replace(/\W+/g, '-')}.fake.slack.com/`,
        team: workspace.teamName,
        user: workspace.botName,
        team_id: workspace.teamId,
        user_id: workspace.botUserId,
        bot_id: workspace.botId,
        is_enterprise_install: false,
      };
    },
    'chat.postMessage'(context) {
      const conversation = postingConversation(context, stringParam(context, 'channel')!);
      const text = stringParam(context, 'text', false);
      const blocks = context.params.blocks;
      if (text === undefined && (blocks === undefined || blocks === '[]')) throw new ApiFailure('no_text');
      checkText(text);
      const message = botPost(
        context,
        conversation,
        text ?? '',
        stringParam(context, 'thread_ts', false),
        [],
        String(context.params.mrkdwn ?? 'true') !== 'false',
      );
      return { channel: conversation.id, ts: message.ts, message: messageJson(message) };
    },
    'chat.update'(context) {
      const conversation = resolveConversation(context, stringParam(context, 'channel')!);
      const ts = stringParam(context, 'ts', false);
      const message = conversation.messages.find((candidate) => candidate.ts === ts);
      if (message === undefined) throw new ApiFailure('message_not_found');
      if (!message.fromBot || message.user !== context.workspace.botUserId)
        throw new ApiFailure('cant_update_message');
      const text = stringParam(context, 'text', false);
      if (text === undefined) throw new ApiFailure('no_text');
      checkText(text);
      message.edits.push(message.text);
      message.text = text;
      wake();
      return { channel: conversation.id, ts: message.ts, text, message: messageJson(message) };
    },
    'apps.connections.open'(context) {
      const ticket = delivery.issueTicket(context.workspace);
      return { url: `${baseUrl().replace(/^http/, 'ws')}/socket-mode?ticket=${ticket}` };
    },
    'files.getUploadURLExternal'(context) {
      const filename = stringParam(context, 'filename', false);
      const length = Number(context.params.length);
      if (filename === undefined || !Number.isInteger(length) || length < 0)
        throw new ApiFailure('invalid_arguments');
      const file: FileState = {
        id: nextId('F', 10),
        teamId: context.workspace.teamId,
        name: filename,
        mimetype: 'application/octet-stream',
        size: length,
        user: context.workspace.botUserId,
        bytes: undefined,
      };
      files.set(file.id, file);
      return { upload_url: `${baseUrl()}/upload/${file.id}`, file_id: file.id };
    },
    'files.completeUploadExternal'(context) {
      let listed: unknown;
      try {
        listed =
          typeof context.params.files === 'string' ? JSON.parse(context.params.files) : context.params.files;
      } catch {
        throw new ApiFailure('invalid_arguments');
      }
      if (!Array.isArray(listed) || listed.length === 0) throw new ApiFailure('invalid_arguments');
      const completed: FileState[] = [];
      for (const entry of listed as Array<{ id?: unknown; title?: unknown }>) {
        const file = typeof entry.id === 'string' ? files.get(entry.id) : undefined;
        if (file === undefined || file.teamId !== context.workspace.teamId)
          throw new ApiFailure('file_not_found');
        if (file.bytes === undefined) throw new ApiFailure('file_upload_not_complete');
        if (typeof entry.title === 'string') file.title = entry.title;
        completed.push(file);
      }
      const channelId = stringParam(context, 'channel_id', false);
      if (channelId !== undefined) {
        const conversation = postingConversation(context, channelId);
        const comment = stringParam(context, 'initial_comment', false) ?? '';
        checkText(comment);
        botPost(
          context,
          conversation,
          comment,
          stringParam(context, 'thread_ts', false),
          completed.map(snapshotFile),
          true,
        );
      }
      return { files: completed.map((file) => fileJson(snapshotFile(file))) };
    },
    'users.info'(context) {
      const user = context.workspace.users.get(stringParam(context, 'user', false) ?? '');
      if (user === undefined) throw new ApiFailure('user_not_found');
      return {
        user: {
          id: user.id,
          team_id: user.teamId,
          name: user.name,
          real_name: user.realName ?? user.name,
          is_bot: user.isBot,
          deleted: false,
          profile: {
            display_name: user.name,
            real_name: user.realName ?? user.name,
            team: user.teamId,
          },
        },
      };
    },
    'conversations.info'(context) {
      const conversation = resolveConversation(context, stringParam(context, 'channel')!);
      return {
        channel: {
          id: conversation.id,
          name: conversation.name,
          is_channel: conversation.type === 'channel',
          is_group: conversation.type === 'group',
          is_im: conversation.type === 'im',
          is_mpim: conversation.type === 'mpim',
          is_private: conversation.type !== 'channel',
          is_member: conversation.botIsMember,
          user: conversation.userId,
          context_team_id: conversation.teamId,
        },
      };
    },
    'conversations.open'(context) {
      const listed = (stringParam(context, 'users', false) ?? '').split(',').filter((id) => id !== '');
      if (listed.length !== 1)
        throw new ApiFailure(listed.length === 0 ? 'users_list_not_supplied' : 'not_supported');
      const userId = listed[0]!;
      if (!context.workspace.users.has(userId)) throw new ApiFailure('user_not_found');
      const conversation = directChannelState(userId, context.workspace.teamId);
      return { channel: { id: conversation.id, is_im: true, user: userId } };
    },
    'assistant.threads.setStatus'(context) {
      const conversation = resolveConversation(context, stringParam(context, 'channel_id')!);
      const threadTs = stringParam(context, 'thread_ts', false);
      if (threadTs === undefined) throw new ApiFailure('invalid_arguments');
      statusCalls.push({
        channel: conversation.id,
        threadTs,
        status: String(context.params.status ?? ''),
      });
      return {};
    },
    'reactions.add'(context) {
      const conversation = resolveConversation(context, stringParam(context, 'channel')!);
      const ts = stringParam(context, 'timestamp', false);
      if (!conversation.messages.some((message) => message.ts === ts))
        throw new ApiFailure('message_not_found');
      return {};
    },
  };

  return { methods, statusCalls };
}
