// A fake Slack on a real HTTP server (127.0.0.1, port 0): the Web API methods a chat bot
// uses, the Events API sending signed HTTP requests to the app's request URL (with Slack's
// retries), Socket Mode over a real WebSocket (`apps.connections.open` hands out a ws://
// URL), file uploads (v2) and private file downloads. The real `@slack/bolt` talks to it
// through `clientOptions.slackApiUrl`. Several workspaces share one fake; each has its own
// tokens, signing secret, bot user, users and conversations.//
// This module is the public handle; the parts live beside it: `http-server.ts` (routing,
// tokens, faults, call records), `world.ts` (workspaces, conversations, messages, files),
// `web-api.ts` (the Web API methods), `events.ts` (Events API and Socket Mode delivery).
import { TestkitError } from '../shared/errors.ts';
import { closeServer, listenOnLoopback } from '../shared/http-server.ts';
import { createConditionWaiter, whenTrue } from '../shared/waiter.ts';
import { createSlackEventDelivery } from './events.ts';
import { createSlackHttpServer } from './http-server.ts';
import { slackSignatureHeaders } from './signing.ts';
import type {
  FakeSlackCall,
  FakeSlackConversation,
  FakeSlackConversationType,
  FakeSlackDelivery,
  FakeSlackDownload,
  FakeSlackEventRecord,
  FakeSlackFault,
  FakeSlackFile,
  FakeSlackHttpAnswer,
  FakeSlackMessage,
  FakeSlackPosted,
  FakeSlackUser,
  FakeSlackUserMessageInput,
  FakeSlackWorkspace,
  FakeSlackWorkspaceOptions,
} from './types.ts';
import { createSlackWebApi } from './web-api.ts';
import { createSlackWorld } from './world.ts';

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
  /** Every private file download (`url_private`), oldest first. */
  readonly fileDownloads: readonly FakeSlackDownload[];
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

  const waiter = createConditionWaiter({ subject: 'fake Slack', defaultTimeoutMs: waitTimeoutMs });
  const wake = () => waiter.notify();
  let port = 0;
  let started = false;
  let closed = false;

  function requireStarted(what: string): void {
    if (!started)
      throw new TestkitError('TESTKIT_NOT_STARTED', `fake Slack: ${what} before start() resolved`);
  }

  function baseUrl(): string {
    requireStarted('the URL was read');
    return `http://127.0.0.1:${port}`;
  }

  const world = createSlackWorld({ now, wake, baseUrl, requireStarted });
  const delivery = createSlackEventDelivery(world, {
    now,
    wake,
    requireStarted,
    httpTimeoutMs,
    retryDelaysMs,
    ackTimeoutMs,
    maxSocketRetries,
    pingIntervalMs,
  });
  const webApi = createSlackWebApi(world, delivery, { maxTextLength, wake, baseUrl });
  const http = createSlackHttpServer(world, delivery, webApi, { now, wake });
  const { server, socketServer, calls, fileDownloads, faults } = http;
  const { statusCalls } = webApi;
  const { events, snapshotEvent, postUserMessage } = delivery;
  const {
    workspaces,
    revoked,
    conversations,
    files,
    addWorkspace,
    snapshotWorkspace,
    workspaceState,
    addUser,
    addChannel,
    directChannelState,
    snapshotConversation,
    snapshotFile,
    snapshotMessage,
    uploadUserFile,
    botMessagesOf,
  } = world;

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
      delivery.close();
      waiter.close();
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
      return delivery.sendEvent({ ...event }, workspaceState(teamId));
    },
    async redeliver(eventId, reason = 'http_timeout') {
      return delivery.redeliver(eventId, reason);
    },
    async postSigned(url, body, signing) {
      const timestamp = signing.timestampSeconds ?? Math.floor(now() / 1000);
      const headers = slackSignatureHeaders(signing.signingSecret, timestamp, body);
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...headers,
          // Kept (decision 0028, rules 1 and 3): overrides the computed signature only when given.
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
      return waiter.until({
        check: () => {
          const found = botMessagesOf(channel);
          return found.length >= count ? found : undefined;
        },
        awaited: `the bot to post ${count} message(s) in ${channel}`,
        arrived: () => `it posted ${botMessagesOf(channel).length}`,
        timeoutMs,
      });
    },
    get calls() {
      return [...calls];
    },
    callsTo: (method) => calls.filter((call) => call.method === method),
    fileDownloads,
    waitForCalls(method, count, timeoutMs = waitTimeoutMs) {
      const matching = () => calls.filter((call) => call.method === method);
      return waiter.until({
        check: () => (matching().length >= count ? matching() : undefined),
        awaited: `${count} call(s) of ${method}`,
        arrived: () => `${matching().length} so far`,
        timeoutMs,
      });
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
      await waiter.until({
        check: whenTrue(() => delivery.socketConnectionsOpened >= count),
        awaited: `${count} Socket Mode connection(s)`,
        arrived: () => `${delivery.socketConnectionsOpened} opened`,
        timeoutMs,
      });
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
