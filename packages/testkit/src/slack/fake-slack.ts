// A fake Slack on a real HTTP server (127.0.0.1, port 0): the Web API methods a chat bot
// uses, the Events API sending signed HTTP requests to the app's request URL (with Slack's
// retries), Socket Mode over a real WebSocket (`apps.connections.open` hands out a ws://
// URL), file uploads (v2) and private file downloads. The real `@slack/bolt` talks to it
// through `clientOptions.slackApiUrl`. Several workspaces share one fake; each has its own
// tokens, signing secret, bot user, users and conversations.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { TestkitError } from '../shared/errors.ts';
import { closeServer, listenOnLoopback } from '../shared/http-server.ts';
import { slackSignatureHeaders } from './signing.ts';
import type {
  FakeSlackCall,
  FakeSlackConversation,
  FakeSlackConversationType,
  FakeSlackDelivery,
  FakeSlackDeliveryAttempt,
  FakeSlackEventRecord,
  FakeSlackFault,
  FakeSlackFile,
  FakeSlackHttpAnswer,
  FakeSlackMessage,
  FakeSlackPosted,
  FakeSlackTokenType,
  FakeSlackUser,
  FakeSlackUserMessageInput,
  FakeSlackWorkspace,
  FakeSlackWorkspaceOptions,
} from './types.ts';

export interface FakeSlackOptions {
  /** The workspaces the app is installed in. Default: one workspace with default values. */
  readonly workspaces?: readonly FakeSlackWorkspaceOptions[];
  /** Events API over HTTP. */
  readonly http?: {
    /** How long the app has to answer a delivery. Default 3000 ms (Slack's rule). */
    readonly timeoutMs?: number;
    /**
     * Delays before each retry of a failed delivery; its length is the number of retries.
     * Slack retries three times (at once, after 1 min, after 5 min); the default
     * `[100, 500, 2000]` keeps tests fast.
     */
    readonly retryDelaysMs?: readonly number[];
  };
  /** Socket Mode. */
  readonly socket?: {
    /** How long the app has to ack an envelope before it is sent again. Default 3000 ms. */
    readonly ackTimeoutMs?: number;
    /** How many times an envelope is sent again (ack timeout, closed socket). Default 3. */
    readonly maxRetries?: number;
    /** Server pings on every connection; 0 disables them. Default 5000 ms. */
    readonly pingIntervalMs?: number;
  };
  /** Longer `text` fails `chat.postMessage`/`chat.update` with `msg_too_long`. Default 40000. */
  readonly maxTextLength?: number;
  /** Clock for timestamps (`ts`, signing, records). Default `Date.now`. */
  readonly now?: () => number;
  /** Default timeout of the `waitFor…` helpers. Default 10000 ms. */
  readonly waitTimeoutMs?: number;
}

/** The fake Slack. Create it with {@link createFakeSlack} and `await start()`. */
export interface FakeSlack {
  start(): Promise<FakeSlack>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  /** The Web API base the client uses (`clientOptions.slackApiUrl`), with a trailing slash. */
  readonly slackApiUrl: string;
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;

  // Workspaces, people, conversations
  readonly workspaces: readonly FakeSlackWorkspace[];
  workspace(teamId?: string): FakeSlackWorkspace;
  addWorkspace(options?: FakeSlackWorkspaceOptions): FakeSlackWorkspace;
  /** Where `http` delivery POSTs this workspace's events (switches the workspace to `http`). */
  setRequestUrl(url: string, teamId?: string): void;
  setDelivery(delivery: FakeSlackDelivery, teamId?: string): void;
  addUser(user: {
    id: string;
    name?: string;
    realName?: string;
    isBot?: boolean;
    teamId?: string;
  }): FakeSlackUser;
  addChannel(channel: {
    id: string;
    name?: string;
    type?: Exclude<FakeSlackConversationType, 'im'>;
    botIsMember?: boolean;
    teamId?: string;
  }): FakeSlackConversation;
  /** The DM conversation between the bot and a user (created on first use: `D` + the user id). */
  directChannel(userId: string, teamId?: string): FakeSlackConversation;
  conversation(id: string): FakeSlackConversation | undefined;

  // Users act
  /** A user posts a message: it is stored and its events (`message`, `app_mention`) are delivered. */
  postUserMessage(input: FakeSlackUserMessageInput): Promise<FakeSlackPosted>;
  /** A user uploads a file (to attach to `postUserMessage`). */
  uploadUserFile(file: {
    user: string;
    name: string;
    mimetype: string;
    bytes: Uint8Array;
    title?: string;
    teamId?: string;
  }): FakeSlackFile;
  /** Sends any event (wrapped in an `event_callback`) to a workspace's app. */
  sendEvent(event: Readonly<Record<string, unknown>>, teamId?: string): Promise<FakeSlackEventRecord>;
  /** Delivers an already-delivered event again, as Slack's retries do (same `event_id`). */
  redeliver(eventId: string, reason?: string): Promise<FakeSlackEventRecord>;
  /** POSTs a body to `url` signed with `signingSecret` (a stale `timestampSeconds` or a wrong secret tests checks). */
  postSigned(
    url: string,
    body: string,
    options: {
      signingSecret: string;
      timestampSeconds?: number;
      signature?: string;
      headers?: Readonly<Record<string, string>>;
    },
  ): Promise<FakeSlackHttpAnswer>;

  // What the bot did
  /** Every message in a conversation (users' and the bot's), oldest first. */
  messages(channel: string): readonly FakeSlackMessage[];
  /** The bot's messages in a conversation, oldest first. */
  botMessages(channel: string): readonly FakeSlackMessage[];
  /** Resolves once the bot posted at least `count` messages in the conversation. */
  waitForBotMessages(
    channel: string,
    count: number,
    timeoutMs?: number,
  ): Promise<readonly FakeSlackMessage[]>;
  /** Every Web API call, in order. */
  readonly calls: readonly FakeSlackCall[];
  callsTo(method: string): readonly FakeSlackCall[];
  /** Resolves once `method` was called `count` times. */
  waitForCalls(method: string, count: number, timeoutMs?: number): Promise<readonly FakeSlackCall[]>;
  /** Every event sent to an app, in order. */
  readonly events: readonly FakeSlackEventRecord[];
  /** `assistant.threads.setStatus` calls: the typing/status indicator. */
  statuses(channel: string): ReadonlyArray<{ threadTs: string; status: string }>;
  file(id: string): FakeSlackFile | undefined;

  // Faults
  /** The next `times` calls of `method` (`*` for any) fail with `fault`. */
  fail(method: string, fault: FakeSlackFault, times?: number): void;
  /** The next `count` calls of `method` get HTTP 429 with `Retry-After: retryAfterSeconds`. */
  rateLimit(method: string, count: number, retryAfterSeconds: number): void;
  /** How many calls (of `method`, or of any) were answered with a rate limit. */
  rateLimitedCount(method?: string): number;
  /** Every later call with this token fails with `error` (`invalid_auth`, `account_inactive`, `token_revoked`). */
  revokeToken(token: string, error?: string): void;
  /** Open Socket Mode connections (of a workspace). */
  socketConnections(teamId?: string): number;
  /** Resolves once at least `count` Socket Mode connections were opened in total. */
  waitForSocketConnections(count: number, timeoutMs?: number): Promise<void>;
  /** Closes Socket Mode connections: `graceful` sends Slack's `disconnect` frame first. */
  dropSocketConnections(options?: { teamId?: string; graceful?: boolean }): void;
}

interface WorkspaceState extends FakeSlackWorkspace {
  delivery: FakeSlackDelivery;
  requestUrl: string | undefined;
  readonly appMentionEvents: boolean;
  readonly echoBotMessages: boolean;
  readonly users: Map<string, FakeSlackUser>;
  readonly sockets: Set<SocketConnection>;
  /** Socket deliveries waiting for a connection. */
  readonly waitingForSocket: Array<{ event: EventState; retryNum: number; reason: string }>;
  nextSocket: number;
}

interface ConversationState {
  readonly id: string;
  readonly teamId: string;
  readonly type: FakeSlackConversationType;
  readonly name?: string;
  readonly userId?: string;
  botIsMember: boolean;
  readonly messages: MessageState[];
}

interface MessageState {
  readonly teamId: string;
  readonly channel: string;
  readonly ts: string;
  readonly user: string;
  readonly botId?: string;
  readonly fromBot: boolean;
  text: string;
  readonly threadTs?: string;
  readonly files: FakeSlackFile[];
  readonly edits: string[];
  readonly mrkdwn: boolean;
}

interface FileState {
  readonly id: string;
  readonly teamId: string;
  name: string;
  title?: string;
  mimetype: string;
  size: number;
  readonly user: string;
  bytes: Uint8Array | undefined;
}

interface EventState {
  readonly eventId: string;
  readonly teamId: string;
  readonly type: string;
  readonly body: Record<string, unknown>;
  status: 'pending' | 'delivered' | 'failed';
  readonly attempts: FakeSlackDeliveryAttempt[];
  /** Settles when the current delivery (with its retries) is over. */
  done: Promise<void>;
  settle: () => void;
}

interface SocketConnection {
  readonly socket: WebSocket;
  readonly teamId: string;
  readonly unacked: Map<
    string,
    { event: EventState; retryNum: number; reason: string; timer: NodeJS.Timeout }
  >;
  pinger: NodeJS.Timeout | undefined;
}

interface FaultRule {
  readonly method: string;
  readonly fault: FakeSlackFault;
  remaining: number;
}

interface ApiContext {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly workspace: WorkspaceState;
  readonly tokenType: 'bot' | 'app';
}

/** A Web API error: `{ ok: false, error }` with HTTP 200 unless `status` says otherwise. */
class ApiFailure extends Error {
  readonly error: string;
  readonly status: number;
  constructor(error: string, status = 200) {
    super(error);
    this.error = error;
    this.status = status;
  }
}

const botMethods = new Set([
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

/** Creates a fake Slack. Call `start()` (it resolves with the fake) before use. */
export function createFakeSlack(options: FakeSlackOptions = {}): FakeSlack {
  const now = options.now ?? Date.now;
  const httpTimeoutMs = options.http?.timeoutMs ?? 3000;
  const retryDelaysMs = options.http?.retryDelaysMs ?? [100, 500, 2000];
  const ackTimeoutMs = options.socket?.ackTimeoutMs ?? 3000;
  const maxSocketRetries = options.socket?.maxRetries ?? 3;
  const pingIntervalMs = options.socket?.pingIntervalMs ?? 5000;
  const maxTextLength = options.maxTextLength ?? 40_000;
  const waitTimeoutMs = options.waitTimeoutMs ?? 10_000;
  validateOptions(options);

  const workspaces: WorkspaceState[] = [];
  const tokens = new Map<string, { workspace: WorkspaceState; type: 'bot' | 'app' }>();
  const revoked = new Map<string, string>();
  const conversations = new Map<string, ConversationState>();
  const files = new Map<string, FileState>();
  const events: EventState[] = [];
  const eventsById = new Map<string, EventState>();
  const calls: FakeSlackCall[] = [];
  const statusCalls: Array<{ channel: string; threadTs: string; status: string }> = [];
  const faults: FaultRule[] = [];
  const tickets = new Map<string, WorkspaceState>();
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();
  let sequence = 0;
  let socketConnectionsOpened = 0;
  let port = 0;
  let started = false;
  let closed = false;

  const server: Server = createServer((request, response) => {
    void handleHttp(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });
  const socketServer = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const workspace =
      url.pathname === '/socket-mode' ? tickets.get(url.searchParams.get('ticket') ?? '') : undefined;
    if (workspace === undefined) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    tickets.delete(url.searchParams.get('ticket') ?? '');
    socketServer.handleUpgrade(request, socket, head, (webSocket) => acceptSocket(webSocket, workspace));
  });

  const nextId = (prefix: string, width = 8) => {
    sequence += 1;
    return `${prefix}${String(sequence).padStart(width, '0')}`;
  };
  const nextTs = () => {
    sequence += 1;
    return `${Math.floor(now() / 1000)}.${String(sequence % 1_000_000).padStart(6, '0')}`;
  };
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const later = (milliseconds: number, callback: () => void): NodeJS.Timeout => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      callback();
    }, milliseconds);
    timers.add(timer);
    return timer;
  };
  const pause = (milliseconds: number) =>
    new Promise<void>((resolve) => {
      if (milliseconds <= 0 || closed) resolve();
      else later(milliseconds, resolve);
    });

  function requireStarted(what: string): void {
    if (!started)
      throw new TestkitError('TESTKIT_NOT_STARTED', `fake Slack: ${what} before start() resolved`);
  }

  // ---------------------------------------------------------------------------------------
  // Workspaces, people, conversations
  // ---------------------------------------------------------------------------------------

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
      ...(input.realName === undefined ? {} : { realName: input.realName }),
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
      ...(conversation.name === undefined ? {} : { name: conversation.name }),
      ...(conversation.userId === undefined ? {} : { userId: conversation.userId }),
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
      ...(file.title === undefined ? {} : { title: file.title }),
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
      ...(message.botId === undefined ? {} : { botId: message.botId }),
      fromBot: message.fromBot,
      text: message.text,
      ...(message.threadTs === undefined ? {} : { threadTs: message.threadTs }),
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

  // ---------------------------------------------------------------------------------------
  // Events: building, HTTP delivery with retries, Socket Mode delivery
  // ---------------------------------------------------------------------------------------

  function callbackBody(workspace: WorkspaceState, event: Record<string, unknown>, eventId: string) {
    return {
      token: 'fake-verification-token',
      team_id: workspace.teamId,
      context_team_id: workspace.teamId,
      context_enterprise_id: null,
      api_app_id: workspace.appId,
      event,
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(now() / 1000),
      authorizations: [
        {
          enterprise_id: null,
          team_id: workspace.teamId,
          user_id: workspace.botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      is_ext_shared_channel: false,
      event_context: `4-${randomUUID()}`,
    };
  }

  function newEvent(workspace: WorkspaceState, event: Record<string, unknown>): EventState {
    const eventId = nextId('Ev', 10);
    const state: EventState = {
      eventId,
      teamId: workspace.teamId,
      type: String(event.type ?? 'unknown'),
      body: callbackBody(workspace, event, eventId),
      status: 'pending',
      attempts: [],
      done: Promise.resolve(),
      settle: () => {},
    };
    events.push(state);
    eventsById.set(eventId, state);
    return state;
  }

  function startDelivery(event: EventState, retryNum: number, reason: string): Promise<void> {
    event.status = 'pending';
    event.done = new Promise<void>((resolve) => {
      event.settle = () => {
        resolve();
        wake();
      };
    });
    const workspace = workspaceState(event.teamId);
    if (workspace.delivery === 'http') void deliverOverHttp(event, retryNum, reason);
    else deliverOverSocket(event, retryNum, reason);
    return event.done;
  }

  function finish(event: EventState, status: 'delivered' | 'failed'): void {
    event.status = status;
    event.settle();
  }

  async function deliverOverHttp(
    event: EventState,
    firstRetryNum: number,
    firstReason: string,
  ): Promise<void> {
    let retryNum = firstRetryNum;
    let reason = firstReason;
    for (let index = 0; index <= retryDelaysMs.length; index += 1) {
      if (closed) break;
      if (index > 0) {
        await pause(retryDelaysMs[index - 1] ?? 0);
        if (closed) break;
      }
      const attempt = await postEventOnce(event, retryNum, reason);
      event.attempts.push(attempt);
      if (attempt.outcome === 'acked') {
        finish(event, 'delivered');
        return;
      }
      retryNum += 1;
      reason =
        attempt.outcome === 'timeout'
          ? 'http_timeout'
          : attempt.outcome === 'rejected'
            ? 'http_error'
            : 'connection_failed';
    }
    finish(event, 'failed');
  }

  async function postEventOnce(
    event: EventState,
    retryNum: number,
    reason: string,
  ): Promise<FakeSlackDeliveryAttempt> {
    const workspace = workspaceState(event.teamId);
    const base = { retryNum, retryReason: reason, transport: 'http' as const, at: now() };
    if (workspace.requestUrl === undefined) return { ...base, outcome: 'unreachable' };
    const raw = JSON.stringify(event.body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      ...slackSignatureHeaders(workspace.signingSecret, Math.floor(now() / 1000), raw),
    };
    if (retryNum > 0) {
      headers['x-slack-retry-num'] = String(retryNum);
      headers['x-slack-retry-reason'] = reason;
    }
    try {
      const response = await fetch(workspace.requestUrl, {
        method: 'POST',
        headers,
        body: raw,
        signal: AbortSignal.timeout(httpTimeoutMs),
      });
      await response.arrayBuffer();
      return { ...base, outcome: response.status === 200 ? 'acked' : 'rejected', status: response.status };
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      return {
        ...base,
        outcome: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable',
      };
    }
  }

  function deliverOverSocket(event: EventState, retryNum: number, reason: string): void {
    if (closed) {
      finish(event, 'failed');
      return;
    }
    const workspace = workspaceState(event.teamId);
    const open = [...workspace.sockets].filter(
      (connection) => connection.socket.readyState === WebSocket.OPEN,
    );
    const connection = open[workspace.nextSocket % Math.max(1, open.length)];
    if (connection === undefined) {
      workspace.waitingForSocket.push({ event, retryNum, reason });
      return;
    }
    workspace.nextSocket += 1;
    const envelopeId = randomUUID();
    const timer = later(ackTimeoutMs, () => {
      if (!connection.unacked.delete(envelopeId)) return;
      event.attempts.push({
        retryNum,
        retryReason: reason,
        transport: 'socket',
        at: now(),
        outcome: 'timeout',
      });
      retrySocket(event, retryNum, 'timeout');
    });
    connection.unacked.set(envelopeId, { event, retryNum, reason, timer });
    connection.socket.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: retryNum,
        retry_reason: reason,
        payload: event.body,
      }),
    );
  }

  function retrySocket(event: EventState, retryNum: number, reason: string): void {
    if (retryNum >= maxSocketRetries) finish(event, 'failed');
    else deliverOverSocket(event, retryNum + 1, reason);
  }

  function acceptSocket(socket: WebSocket, workspace: WorkspaceState): void {
    const connection: SocketConnection = {
      socket,
      teamId: workspace.teamId,
      unacked: new Map(),
      pinger: undefined,
    };
    workspace.sockets.add(connection);
    socketConnectionsOpened += 1;
    socket.on('message', (data) => {
      let frame: { envelope_id?: unknown };
      try {
        frame = JSON.parse(data.toString()) as { envelope_id?: unknown };
      } catch {
        return;
      }
      if (typeof frame.envelope_id !== 'string') return;
      const pending = connection.unacked.get(frame.envelope_id);
      if (pending === undefined) return;
      connection.unacked.delete(frame.envelope_id);
      clearTimeout(pending.timer);
      timers.delete(pending.timer);
      pending.event.attempts.push({
        retryNum: pending.retryNum,
        retryReason: pending.reason,
        transport: 'socket',
        at: now(),
        outcome: 'acked',
      });
      finish(pending.event, 'delivered');
    });
    socket.on('close', () => {
      workspace.sockets.delete(connection);
      if (connection.pinger !== undefined) clearInterval(connection.pinger);
      for (const pending of connection.unacked.values()) {
        clearTimeout(pending.timer);
        timers.delete(pending.timer);
        pending.event.attempts.push({
          retryNum: pending.retryNum,
          retryReason: pending.reason,
          transport: 'socket',
          at: now(),
          outcome: 'disconnected',
        });
        if (closed) finish(pending.event, 'failed');
        else retrySocket(pending.event, pending.retryNum, 'connection_closed');
      }
      connection.unacked.clear();
      wake();
    });
    socket.on('error', () => undefined);
    if (pingIntervalMs > 0) {
      connection.pinger = setInterval(() => {
        if (socket.readyState === WebSocket.OPEN) socket.ping();
      }, pingIntervalMs);
      connection.pinger.unref();
    }
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: workspace.sockets.size,
        debug_info: { host: 'fake-slack', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: workspace.appId },
      }),
    );
    const waiting = workspace.waitingForSocket.splice(0);
    for (const entry of waiting) deliverOverSocket(entry.event, entry.retryNum, entry.reason);
    wake();
  }

  // ---------------------------------------------------------------------------------------
  // Messages
  // ---------------------------------------------------------------------------------------

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

  function messageEvent(conversation: ConversationState, message: MessageState): Record<string, unknown> {
    const parent =
      message.threadTs === undefined
        ? undefined
        : conversation.messages.find((candidate) => candidate.ts === message.threadTs);
    const workspace = workspaceState(conversation.teamId);
    return {
      type: 'message',
      ...(message.files.length > 0 && !message.fromBot ? { subtype: 'file_share' } : {}),
      channel: conversation.id,
      channel_type: conversation.type,
      user: message.user,
      ...(message.fromBot
        ? {
            bot_id: message.botId,
            app_id: workspace.appId,
            bot_profile: {
              id: message.botId,
              name: workspace.botName,
              app_id: workspace.appId,
              team_id: workspace.teamId,
            },
          }
        : { client_msg_id: randomUUID() }),
      text: message.text,
      ts: message.ts,
      event_ts: message.ts,
      team: conversation.teamId,
      ...(message.threadTs === undefined ? {} : { thread_ts: message.threadTs }),
      ...(parent === undefined ? {} : { parent_user_id: parent.user }),
      ...(message.files.length === 0 ? {} : { files: message.files.map(fileJson), upload: false }),
    };
  }

  async function postUserMessage(input: FakeSlackUserMessageInput): Promise<FakeSlackPosted> {
    requireStarted('postUserMessage()');
    const workspace = workspaceState(input.teamId);
    const conversation = conversations.get(input.channel);
    if (conversation === undefined || conversation.teamId !== workspace.teamId) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `fake Slack: postUserMessage: no conversation ${input.channel} in workspace ${workspace.teamId}`,
      );
    }
    if (!workspace.users.has(input.user)) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `fake Slack: postUserMessage: no user ${input.user} in workspace ${workspace.teamId} (addUser first)`,
      );
    }
    const message = storeMessage(conversation, {
      user: input.user,
      fromBot: false,
      text: input.text ?? '',
      ...(input.threadTs === undefined ? {} : { threadTs: input.threadTs }),
      files: [...(input.files ?? [])],
      mrkdwn: true,
    });
    const event = messageEvent(conversation, message);
    const sent: EventState[] = [newEvent(workspace, event)];
    if (
      workspace.appMentionEvents &&
      conversation.type !== 'im' &&
      message.text.includes(`<@${workspace.botUserId}>`)
    ) {
      const { channel_type: _type, subtype: _subtype, client_msg_id: _id, ...mention } = event;
      sent.push(newEvent(workspace, { ...mention, type: 'app_mention' }));
    }
    for (const state of sent) await startDelivery(state, 0, '');
    return {
      message: snapshotMessage(message),
      events: sent.map(snapshotEvent),
      delivered: sent.every((state) => state.status === 'delivered'),
    };
  }

  function snapshotEvent(event: EventState): FakeSlackEventRecord {
    return {
      eventId: event.eventId,
      teamId: event.teamId,
      type: event.type,
      body: event.body,
      status: event.status,
      attempts: [...event.attempts],
    };
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
      ...(input.title === undefined ? {} : { title: input.title }),
      mimetype: input.mimetype,
      size: input.bytes.byteLength,
      user: input.user,
      bytes: input.bytes,
    };
    files.set(file.id, file);
    return snapshotFile(file);
  }

  // ---------------------------------------------------------------------------------------
  // The Web API
  // ---------------------------------------------------------------------------------------

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
      ...(threadTs === undefined ? {} : { threadTs }),
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
      ...(message.botId === undefined ? {} : { bot_id: message.botId }),
      text: message.text,
      ts: message.ts,
      ...(message.threadTs === undefined ? {} : { thread_ts: message.threadTs }),
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
      const ticket = randomUUID();
      tickets.set(ticket, context.workspace);
      return { url: `ws://127.0.0.1:${port}/socket-mode?ticket=${ticket}` };
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
          ...(conversation.name === undefined ? {} : { name: conversation.name }),
          is_channel: conversation.type === 'channel',
          is_group: conversation.type === 'group',
          is_im: conversation.type === 'im',
          is_mpim: conversation.type === 'mpim',
          is_private: conversation.type !== 'channel',
          is_member: conversation.botIsMember,
          ...(conversation.userId === undefined ? {} : { user: conversation.userId }),
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

  async function readRaw(request: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async function parseParams(request: IncomingMessage, raw: Buffer): Promise<Record<string, unknown>> {
    const type = request.headers['content-type'] ?? '';
    if (type.startsWith('application/json')) {
      const parsed: unknown = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    }
    if (type.startsWith('multipart/form-data')) {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
      const params: Record<string, unknown> = {};
      form.forEach((value, key) => {
        params[key] = value;
      });
      return params;
    }
    return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  }

  function sendJson(
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    response.end(JSON.stringify(body));
  }

  function takeFault(method: string): FakeSlackFault | undefined {
    const index = faults.findIndex(
      (rule) => (rule.method === method || rule.method === '*') && rule.remaining > 0,
    );
    if (index === -1) return undefined;
    const rule = faults[index]!;
    rule.remaining -= 1;
    if (rule.remaining <= 0) faults.splice(index, 1);
    return rule.fault;
  }

  async function handleApi(
    request: IncomingMessage,
    response: ServerResponse,
    method: string,
  ): Promise<void> {
    const raw = await readRaw(request);
    let params: Record<string, unknown>;
    try {
      params = await parseParams(request, raw);
    } catch {
      sendJson(response, 200, { ok: false, error: 'invalid_form_data' });
      return;
    }
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ')
      ? header.slice(7)
      : typeof params.token === 'string'
        ? params.token
        : '';
    const known = tokens.get(token);
    const tokenType: FakeSlackTokenType = token === '' ? 'none' : (known?.type ?? 'unknown');
    const { token: _token, ...recordedParams } = params;
    const record = (status: number, ok: boolean, error?: string) => {
      calls.push({
        method,
        teamId: known?.workspace.teamId,
        tokenType,
        params: recordedParams,
        status,
        ok,
        ...(error === undefined ? {} : { error }),
        at: now(),
      });
      wake();
    };
    const fail = (error: string, status = 200, headers: Record<string, string> = {}) => {
      record(status, false, error);
      sendJson(response, status, { ok: false, error }, headers);
    };

    const handler = methods[method];
    if (handler === undefined) return fail('unknown_method');
    if (token === '') return fail('not_authed');
    if (known === undefined) return fail('invalid_auth');
    const revokedError = revoked.get(token);
    if (revokedError !== undefined) return fail(revokedError);
    if (
      method === 'apps.connections.open'
        ? known.type !== 'app'
        : known.type !== 'bot' || !botMethods.has(method)
    ) {
      return fail('not_allowed_token_type');
    }
    const fault = takeFault(method);
    if (fault !== undefined) {
      if (fault.type === 'ratelimited') {
        return fail('ratelimited', 429, { 'retry-after': String(fault.retryAfterSeconds) });
      }
      if (fault.type === 'error') return fail(fault.error);
      record(fault.status, false, `http_${fault.status}`);
      response.writeHead(fault.status, { 'content-type': 'text/plain' });
      response.end(`fake Slack: injected HTTP ${fault.status}`);
      return;
    }
    try {
      const result = handler({ method, params, workspace: known.workspace, tokenType: known.type });
      record(200, true);
      sendJson(response, 200, { ok: true, ...result });
    } catch (error) {
      if (error instanceof ApiFailure) return fail(error.error, error.status);
      throw error;
    }
  }

  async function handleUpload(
    request: IncomingMessage,
    response: ServerResponse,
    fileId: string,
  ): Promise<void> {
    const raw = await readRaw(request);
    const file = files.get(fileId);
    if (file === undefined || request.method !== 'POST') {
      response.writeHead(404).end('not found');
      return;
    }
    const type = request.headers['content-type'] ?? '';
    let bytes: Uint8Array = new Uint8Array(raw);
    if (type.startsWith('multipart/form-data')) {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
      let part: File | undefined;
      form.forEach((value) => {
        if (part === undefined && typeof value !== 'string') part = value;
      });
      if (part === undefined) {
        response.writeHead(400).end('no file part');
        return;
      }
      bytes = new Uint8Array(await part.arrayBuffer());
      if (part.type !== '' && part.type !== 'application/octet-stream') file.mimetype = part.type;
    }
    file.bytes = bytes;
    file.size = bytes.byteLength;
    file.mimetype = guessMimeType(file.name, file.mimetype);
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${bytes.byteLength}`);
  }

  function handleDownload(request: IncomingMessage, response: ServerResponse, path: string): void {
    const match = /^\/files-pri\/([A-Z0-9]+)-([A-Z0-9]+)\//.exec(path);
    const file = match === null ? undefined : files.get(match[2] ?? '');
    if (file === undefined || file.teamId !== match?.[1] || file.bytes === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('file not found');
      return;
    }
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    const known = tokens.get(token);
    if (
      known === undefined ||
      known.type !== 'bot' ||
      known.workspace.teamId !== file.teamId ||
      revoked.has(token)
    ) {
      // Slack answers an unauthenticated download with its sign-in page; a 403 is clearer in tests.
      response
        .writeHead(403, { 'content-type': 'text/plain' })
        .end('a bot token of the workspace is required');
      return;
    }
    response.writeHead(200, {
      'content-type': file.mimetype,
      'content-length': String(file.bytes.byteLength),
      'content-disposition': `attachment; filename="${file.name.replace(/"/g, '')}"`,
    });
    response.end(Buffer.from(file.bytes));
  }

  async function handleHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/api/') && request.method === 'POST')
      return handleApi(request, response, path.slice(5));
    if (path.startsWith('/upload/')) return handleUpload(request, response, path.slice(8));
    if (path.startsWith('/files-pri/') && request.method === 'GET')
      return handleDownload(request, response, path);
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }

  // ---------------------------------------------------------------------------------------
  // Waiting
  // ---------------------------------------------------------------------------------------

  function waitUntil<T>(check: () => T | undefined, describe: () => string, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const first = check();
      if (first !== undefined) {
        resolve(first);
        return;
      }
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new TestkitError('TESTKIT_WAIT_TIMEOUT', `fake Slack: ${describe()} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = () => {
        if (closed) {
          clearTimeout(timer);
          waiters.delete(waiter);
          reject(new TestkitError('TESTKIT_CLOSED', `fake Slack closed while waiting: ${describe()}`));
          return;
        }
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve(value);
      };
      waiters.add(waiter);
    });
  }

  function baseUrl(): string {
    requireStarted('the URL was read');
    return `http://127.0.0.1:${port}`;
  }

  function botMessagesOf(channel: string): FakeSlackMessage[] {
    return (conversations.get(channel)?.messages ?? [])
      .filter((message) => message.fromBot)
      .map(snapshotMessage);
  }

  const fake: FakeSlack = {
    async start() {
      if (closed) throw new TestkitError('TESTKIT_CLOSED', 'fake Slack: start() after close()');
      if (!started) {
        port = await listenOnLoopback(server);
        started = true;
      }
      return fake;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const workspace of workspaces) {
        for (const connection of workspace.sockets) connection.socket.terminate();
        for (const waiting of workspace.waitingForSocket.splice(0)) finish(waiting.event, 'failed');
      }
      for (const event of events) if (event.status === 'pending') finish(event, 'failed');
      wake();
      socketServer.close();
      await closeServer(server);
    },
    [Symbol.asyncDispose]() {
      return fake.close();
    },
    get slackApiUrl() {
      return `${baseUrl()}/api/`;
    },
    get baseUrl() {
      return baseUrl();
    },
    get workspaces() {
      return workspaces.map(snapshotWorkspace);
    },
    workspace: (teamId) => snapshotWorkspace(workspaceState(teamId)),
    addWorkspace,
    setRequestUrl(url, teamId) {
      const workspace = workspaceState(teamId);
      workspace.requestUrl = url;
      workspace.delivery = 'http';
    },
    setDelivery(delivery, teamId) {
      workspaceState(teamId).delivery = delivery;
    },
    addUser,
    addChannel,
    directChannel: (userId, teamId) => snapshotConversation(directChannelState(userId, teamId)),
    conversation(id) {
      const conversation = conversations.get(id);
      return conversation === undefined ? undefined : snapshotConversation(conversation);
    },
    postUserMessage,
    uploadUserFile,
    async sendEvent(event, teamId) {
      requireStarted('sendEvent()');
      const state = newEvent(workspaceState(teamId), { ...event });
      await startDelivery(state, 0, '');
      return snapshotEvent(state);
    },
    async redeliver(eventId, reason = 'http_timeout') {
      const state = eventsById.get(eventId);
      if (state === undefined)
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', `fake Slack: no event ${eventId}`);
      await state.done;
      await startDelivery(state, Math.max(1, state.attempts.length), reason);
      return snapshotEvent(state);
    },
    async postSigned(url, body, signing) {
      const timestamp = signing.timestampSeconds ?? Math.floor(now() / 1000);
      const headers = slackSignatureHeaders(signing.signingSecret, timestamp, body);
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...headers,
          ...(signing.signature === undefined ? {} : { 'x-slack-signature': signing.signature }),
          ...signing.headers,
        },
        body,
      });
      return { status: response.status, text: await response.text() };
    },
    messages: (channel) => (conversations.get(channel)?.messages ?? []).map(snapshotMessage),
    botMessages: botMessagesOf,
    waitForBotMessages(channel, count, timeoutMs = waitTimeoutMs) {
      return waitUntil(
        () => {
          const found = botMessagesOf(channel);
          return found.length >= count ? found : undefined;
        },
        () =>
          `the bot did not post ${count} message(s) in ${channel} (it posted ${botMessagesOf(channel).length})`,
        timeoutMs,
      );
    },
    get calls() {
      return [...calls];
    },
    callsTo: (method) => calls.filter((call) => call.method === method),
    waitForCalls(method, count, timeoutMs = waitTimeoutMs) {
      const matching = () => calls.filter((call) => call.method === method);
      return waitUntil(
        () => (matching().length >= count ? matching() : undefined),
        () => `${method} was not called ${count} time(s) (${matching().length} so far)`,
        timeoutMs,
      );
    },
    get events() {
      return events.map(snapshotEvent);
    },
    statuses: (channel) =>
      statusCalls
        .filter((entry) => entry.channel === channel)
        .map((entry) => ({ threadTs: entry.threadTs, status: entry.status })),
    file(id) {
      const file = files.get(id);
      return file === undefined ? undefined : snapshotFile(file);
    },
    fail(method, fault, times = 1) {
      if (!Number.isInteger(times) || times < 1) {
        throw new TestkitError(
          'TESTKIT_INVALID_OPTIONS',
          `fake Slack: fail(): times must be a positive integer, got ${times}`,
        );
      }
      faults.push({ method, fault, remaining: times });
    },
    rateLimit(method, count, retryAfterSeconds) {
      fake.fail(method, { type: 'ratelimited', retryAfterSeconds }, count);
    },
    rateLimitedCount: (method) =>
      calls.filter((call) => call.error === 'ratelimited' && (method === undefined || call.method === method))
        .length,
    revokeToken(token, error = 'invalid_auth') {
      revoked.set(token, error);
    },
    socketConnections: (teamId) =>
      teamId === undefined
        ? workspaces.reduce((total, workspace) => total + workspace.sockets.size, 0)
        : workspaceState(teamId).sockets.size,
    async waitForSocketConnections(count, timeoutMs = waitTimeoutMs) {
      await waitUntil(
        () => (socketConnectionsOpened >= count ? true : undefined),
        () => `only ${socketConnectionsOpened} Socket Mode connection(s) were opened, expected ${count}`,
        timeoutMs,
      );
    },
    dropSocketConnections(dropOptions = {}) {
      const targets = dropOptions.teamId === undefined ? workspaces : [workspaceState(dropOptions.teamId)];
      for (const workspace of targets) {
        for (const connection of workspace.sockets) {
          if (dropOptions.graceful === true) {
            connection.socket.send(
              JSON.stringify({
                type: 'disconnect',
                reason: 'refresh_requested',
                debug_info: { host: 'fake-slack' },
              }),
            );
          } else {
            connection.socket.terminate();
          }
        }
      }
    },
  };

  for (const workspace of options.workspaces ?? [{}]) addWorkspace(workspace);
  return fake;
}

function validateOptions(options: FakeSlackOptions): void {
  const check = (value: number | undefined, path: string, minimum: number) => {
    if (value !== undefined && (!Number.isFinite(value) || value < minimum)) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `fake Slack: ${path} must be a number >= ${minimum}, got ${value}`,
      );
    }
  };
  check(options.http?.timeoutMs, 'http.timeoutMs', 1);
  for (const [index, delay] of (options.http?.retryDelaysMs ?? []).entries()) {
    check(delay, `http.retryDelaysMs[${index}]`, 0);
  }
  check(options.socket?.ackTimeoutMs, 'socket.ackTimeoutMs', 1);
  check(options.socket?.maxRetries, 'socket.maxRetries', 0);
  check(options.socket?.pingIntervalMs, 'socket.pingIntervalMs', 0);
  check(options.maxTextLength, 'maxTextLength', 1);
  check(options.waitTimeoutMs, 'waitTimeoutMs', 1);
}

const extensionTypes: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  json: 'application/json',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
};

function guessMimeType(name: string, current: string): string {
  if (current !== 'application/octet-stream') return current;
  const extension = name.includes('.') ? (name.split('.').pop() ?? '').toLowerCase() : '';
  return extensionTypes[extension] ?? current;
}
