// The world of the fake Slack: workspaces (tokens, bot user, users), conversations, the
// messages in them and stored files, with the snapshots and JSON shapes the rest hands out.
// It sends nothing and answers nothing; `wake` is called when a message is stored.
import { TestkitError } from '../shared/errors.ts';
import type { FakeSlack } from './fake-slack.ts';
import type { ConversationState, FileState, MessageState, WorkspaceState } from './state.ts';
import type {
  FakeSlackConversation,
  FakeSlackConversationType,
  FakeSlackFile,
  FakeSlackMessage,
  FakeSlackUser,
  FakeSlackWorkspace,
  FakeSlackWorkspaceOptions,
} from './types.ts';

/** What the world needs from the rest of the fake. */
export interface SlackWorldOptions {
  readonly now: () => number;
  /** Re-checks the fake's pending waits. */
  readonly wake: () => void;
  /** `http://127.0.0.1:<port>`; throws before start. */
  readonly baseUrl: () => string;
  /** Throws TESTKIT_NOT_STARTED naming `what` before start. */
  readonly requireStarted: (what: string) => void;
}

/**
 * The world's state and operations. Contract: the maps and arrays are live (the other parts
 * read and change them); snapshots are copies a test may keep.
 */
export interface SlackWorld {
  readonly workspaces: WorkspaceState[];
  readonly tokens: Map<string, { workspace: WorkspaceState; type: 'bot' | 'app' }>;
  /** Revoked tokens and the error their calls get. */
  readonly revoked: Map<string, string>;
  readonly conversations: Map<string, ConversationState>;
  readonly files: Map<string, FileState>;
  /** A fresh id: `prefix` and a zero-padded sequence number shared by every kind of id. */
  nextId(prefix: string, width?: number): string;
  addWorkspace(input?: FakeSlackWorkspaceOptions): FakeSlackWorkspace;
  snapshotWorkspace(workspace: WorkspaceState): FakeSlackWorkspace;
  /** The workspace of `teamId` (default the first); throws TESTKIT_INVALID_OPTIONS when there is none. */
  workspaceState(teamId?: string): WorkspaceState;
  addUser(input: Parameters<FakeSlack['addUser']>[0]): FakeSlackUser;
  addChannel(input: Parameters<FakeSlack['addChannel']>[0]): FakeSlackConversation;
  /** The DM between the bot and a user, created on first use. */
  directChannelState(userId: string, teamId?: string): ConversationState;
  snapshotConversation(conversation: ConversationState): FakeSlackConversation;
  snapshotFile(file: FileState): FakeSlackFile;
  snapshotMessage(message: MessageState): FakeSlackMessage;
  /** A file as the Web API and events show it. */
  fileJson(file: FakeSlackFile): Record<string, unknown>;
  /** Appends a message (with a fresh `ts`) to a conversation and wakes the waits. */
  storeMessage(
    conversation: ConversationState,
    fields: Omit<MessageState, 'teamId' | 'channel' | 'ts' | 'edits'>,
  ): MessageState;
  uploadUserFile(input: Parameters<FakeSlack['uploadUserFile']>[0]): FakeSlackFile;
  botMessagesOf(channel: string): FakeSlackMessage[];
}

export function createSlackWorld({ now, wake, baseUrl, requireStarted }: SlackWorldOptions): SlackWorld {
  const workspaces: WorkspaceState[] = [];
  const tokens = new Map<string, { workspace: WorkspaceState; type: 'bot' | 'app' }>();
  const revoked = new Map<string, string>();
  const conversations = new Map<string, ConversationState>();
  const files = new Map<string, FileState>();
  let sequence = 0;

  const nextId = (prefix: string, width = 8) => {
    sequence += 1;
    return `${prefix}${String(sequence).padStart(width, '0')}`;
  };
  const nextTs = () => {
    sequence += 1;
    return `${Math.floor(now() / 1000)}.${String(sequence % 1_000_000).padStart(6, '0')}`;
  };

  function addWorkspace(input: FakeSlackWorkspaceOptions = {}): FakeSlackWorkspace {
    const index = workspaces.length + 1;
    const teamId = input.teamId ?? `T${String(index).padStart(7, '0')}`;
    if (workspaces.some((workspace) => workspace.teamId === teamId)) {
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `fake Slack: workspace ${teamId} exists already`);
    }
    const workspace: WorkspaceState = {
      teamId,
      teamName: input.teamName ?? `Workspace ${index}`,
      botToken: input.botToken ?? `xoxb-fake-${teamId.toLowerCase()}`,
      appToken: input.appToken ?? `xapp-fake-${teamId.toLowerCase()}`,
      signingSecret: input.signingSecret ?? `signing-secret-${teamId.toLowerCase()}`,
      botUserId: input.botUserId ?? `UB${teamId.slice(1)}`,
      botId: input.botId ?? `B${teamId.slice(1)}`,
      botName: input.botName ?? 'switchboard',
      appId: input.appId ?? `A${teamId.slice(1)}`,
      delivery: input.delivery ?? (input.requestUrl === undefined ? 'socket' : 'http'),
      requestUrl: input.requestUrl,
      appMentionEvents: input.appMentionEvents ?? true,
      echoBotMessages: input.echoBotMessages ?? false,
      users: new Map(),
      sockets: new Set(),
      waitingForSocket: [],
      nextSocket: 0,
    };
    for (const [token, type] of [
      [workspace.botToken, 'bot'],
      [workspace.appToken, 'app'],
    ] as const) {
      if (tokens.has(token)) {
        throw new TestkitError(
          'TESTKIT_INVALID_OPTIONS',
          `fake Slack: token ${token} is used by two workspaces`,
        );
      }
      tokens.set(token, { workspace, type });
    }
    workspace.users.set(workspace.botUserId, {
      id: workspace.botUserId,
      teamId,
      name: workspace.botName,
      isBot: true,
    });
    workspaces.push(workspace);
    return snapshotWorkspace(workspace);
  }

  function snapshotWorkspace(workspace: WorkspaceState): FakeSlackWorkspace {
    const {
      users: _users,
      sockets: _sockets,
      waitingForSocket: _waiting,
      nextSocket: _next,
      ...rest
    } = workspace;
    return { ...rest };
  }

  function workspaceState(teamId?: string): WorkspaceState {
    const workspace =
      teamId === undefined ? workspaces[0] : workspaces.find((entry) => entry.teamId === teamId);
    if (workspace === undefined) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        teamId === undefined ? 'fake Slack: no workspace' : `fake Slack: no workspace ${teamId}`,
      );
    }
    return workspace;
  }

  function addUser(input: {
    id: string;
    name?: string;
    realName?: string;
    isBot?: boolean;
    teamId?: string;
  }): FakeSlackUser {
    const workspace = workspaceState(input.teamId);
    const user: FakeSlackUser = {
      id: input.id,
      teamId: workspace.teamId,
      name: input.name ?? input.id.toLowerCase(),
      realName: input.realName,
      isBot: input.isBot ?? false,
    };
    workspace.users.set(user.id, user);
    return user;
  }

  function addChannel(input: {
    id: string;
    name?: string;
    type?: Exclude<FakeSlackConversationType, 'im'>;
    botIsMember?: boolean;
    teamId?: string;
  }): FakeSlackConversation {
    const workspace = workspaceState(input.teamId);
    if (conversations.has(input.id)) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `fake Slack: conversation ${input.id} exists already`,
      );
    }
    const conversation: ConversationState = {
      id: input.id,
      teamId: workspace.teamId,
      type: input.type ?? 'channel',
      name: input.name ?? input.id.toLowerCase(),
      botIsMember: input.botIsMember ?? true,
      messages: [],
    };
    conversations.set(conversation.id, conversation);
    return snapshotConversation(conversation);
  }

  function directChannelState(userId: string, teamId?: string): ConversationState {
    const workspace = workspaceState(teamId);
    for (const conversation of conversations.values()) {
      if (
        conversation.type === 'im' &&
        conversation.teamId === workspace.teamId &&
        conversation.userId === userId
      )
        return conversation;
    }
    const conversation: ConversationState = {
      id: `D${userId.replace(/^U/, '')}`,
      teamId: workspace.teamId,
      type: 'im',
      userId,
      botIsMember: true,
      messages: [],
    };
    conversations.set(conversation.id, conversation);
    return conversation;
  }

  function snapshotConversation(conversation: ConversationState): FakeSlackConversation {
    return {
      id: conversation.id,
      teamId: conversation.teamId,
      type: conversation.type,
      name: conversation.name,
      userId: conversation.userId,
      botIsMember: conversation.botIsMember,
    };
  }

  function fileUrls(file: FileState): { urlPrivate: string; urlPrivateDownload: string } {
    const name = encodeURIComponent(file.name);
    return {
      urlPrivate: `${baseUrl()}/files-pri/${file.teamId}-${file.id}/${name}`,
      urlPrivateDownload: `${baseUrl()}/files-pri/${file.teamId}-${file.id}/download/${name}`,
    };
  }

  function snapshotFile(file: FileState): FakeSlackFile {
    return {
      id: file.id,
      teamId: file.teamId,
      name: file.name,
      title: file.title,
      mimetype: file.mimetype,
      size: file.size,
      user: file.user,
      ...fileUrls(file),
      bytes: file.bytes,
    };
  }

  function snapshotMessage(message: MessageState): FakeSlackMessage {
    return {
      teamId: message.teamId,
      channel: message.channel,
      ts: message.ts,
      user: message.user,
      botId: message.botId,
      fromBot: message.fromBot,
      text: message.text,
      threadTs: message.threadTs,
      files: [...message.files],
      edits: [...message.edits],
      mrkdwn: message.mrkdwn,
    };
  }

  function fileJson(file: FakeSlackFile): Record<string, unknown> {
    const extension = file.name.includes('.') ? (file.name.split('.').pop() ?? '') : '';
    return {
      id: file.id,
      created: Math.floor(now() / 1000),
      timestamp: Math.floor(now() / 1000),
      name: file.name,
      title: file.title ?? file.name,
      mimetype: file.mimetype,
      filetype: extension,
      pretty_type: extension.toUpperCase(),
      user: file.user,
      user_team: file.teamId,
      size: file.size,
      mode: 'hosted',
      is_external: false,
      is_public: false,
      url_private: file.urlPrivate,
      url_private_download: file.urlPrivateDownload,
      permalink: `https://fake.slack.com/files/${file.user}/${file.id}/${encodeURIComponent(file.name)}`,
    };
  }

  function storeMessage(
    conversation: ConversationState,
    fields: Omit<MessageState, 'teamId' | 'channel' | 'ts' | 'edits'>,
  ): MessageState {
    const message: MessageState = {
      teamId: conversation.teamId,
      channel: conversation.id,
      ts: nextTs(),
      edits: [],
      ...fields,
    };
    conversation.messages.push(message);
    wake();
    return message;
  }

  function uploadUserFile(input: {
    user: string;
    name: string;
    mimetype: string;
    bytes: Uint8Array;
    title?: string;
    teamId?: string;
  }): FakeSlackFile {
    requireStarted('uploadUserFile()');
    const workspace = workspaceState(input.teamId);
    const file: FileState = {
      id: nextId('F', 10),
      teamId: workspace.teamId,
      name: input.name,
      title: input.title,
      mimetype: input.mimetype,
      size: input.bytes.byteLength,
      user: input.user,
      bytes: input.bytes,
    };
    files.set(file.id, file);
    return snapshotFile(file);
  }

  function botMessagesOf(channel: string): FakeSlackMessage[] {
    return (conversations.get(channel)?.messages ?? [])
      .filter((message) => message.fromBot)
      .map(snapshotMessage);
  }

  return {
    workspaces,
    tokens,
    revoked,
    conversations,
    files,
    nextId,
    addWorkspace,
    snapshotWorkspace,
    workspaceState,
    addUser,
    addChannel,
    directChannelState,
    snapshotConversation,
    snapshotFile,
    snapshotMessage,
    fileJson,
    storeMessage,
    uploadUserFile,
    botMessagesOf,
  };
}
