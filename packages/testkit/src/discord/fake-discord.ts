// A fake Discord on one real HTTP server (127.0.0.1, port 0): the REST API under /api/v10
// and the gateway WebSocket under /gateway. The real discord.js talks to it through
// `rest: { api: fake.restApi }`; the gateway URL follows from `GET /gateway/bot`, and READY
// carries a `resume_gateway_url` pointing back here, so reconnects and RESUMEs stay local.
//
// One fake serves one bot (one token). A test builds the world (users, guilds, channels,
// threads), writes messages as users, reads what the bot sent, and injects faults: 429 with
// retry-after, HTTP errors, a revoked token (401 / close 4004), a missing privileged intent
// (close 4014), op 7 RECONNECT, dropped connections and invalid sessions.//
// This module is the public handle; the parts live beside it: `http-server.ts` (routing,
// token, faults, request records), `rest.ts` (the REST routes), `world.ts` (users, guilds,
// channels, messages, files), `gateway.ts` (sessions and event dispatch).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { TestkitError } from '../shared/errors.ts';
import { closeServer, listenOnLoopback } from '../shared/http-server.ts';
import { createConditionWaiter, whenTrue } from '../shared/waiter.ts';
import type {
  FakeDiscord,
  FakeDiscordOptions,
  FakeDiscordSendOptions,
  FakeDiscordWaitOptions,
} from './fake-discord-types.ts';
import { createDiscordGateway } from './gateway.ts';
import { createDiscordHttp } from './http-server.ts';
import { createDiscordRest, error } from './rest.ts';
import { createSnowflakeGenerator } from './snowflake.ts';
import type { DiscordAuth, Session } from './state.ts';
import {
  type DiscordApiChannel,
  type DiscordApiMessage,
  type DiscordApiUser,
  discordCloseCodes,
} from './types.ts';
import { createDiscordWorld } from './world.ts';

export {
  discordContentLimit,
  type ErrorFault,
  type FakeDiscord,
  type FakeDiscordAttachmentInput,
  type FakeDiscordChannelInput,
  type FakeDiscordEdit,
  type FakeDiscordGuild,
  type FakeDiscordGuildInput,
  type FakeDiscordOptions,
  type FakeDiscordReaction,
  type FakeDiscordSendOptions,
  type FakeDiscordSessionInfo,
  type FakeDiscordTyping,
  type FakeDiscordUpload,
  type FakeDiscordWaitOptions,
  type RateLimitFault,
  type RecordedDiscordRequest,
} from './fake-discord-types.ts';

const defaultWaitMs = 10_000;

/** Creates a fake Discord. Call `start()` before use. */
export function createFakeDiscord(options: FakeDiscordOptions = {}): FakeDiscord {
  const now = options.now ?? Date.now;
  const nextId = createSnowflakeGenerator(now);
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
  const replayBufferSize = options.replayBufferSize ?? 1000;
  const auth: DiscordAuth = {
    token: options.token ?? `fake-discord.${randomBytes(12).toString('hex')}`,
    tokenValid: true,
    messageContentAllowed: options.messageContentIntent ?? true,
  };

  const bot: DiscordApiUser = {
    id: options.bot?.id ?? nextId(),
    username: options.bot?.username ?? 'switchboard-bot',
    global_name: null,
    discriminator: '0',
    avatar: null,
    bot: true,
  };
  const applicationId = nextId();

  const waiter = createConditionWaiter({ subject: 'FakeDiscord', defaultTimeoutMs: defaultWaitMs });

  let server: Server | undefined;
  let sockets: WebSocketServer | undefined;
  let port = 0;
  let closed = false;

  const notify = (): void => waiter.notify();

  const requirePort = (): number => {
    if (port === 0) throw new TestkitError('TESTKIT_NOT_STARTED', 'FakeDiscord: call start() before use');
    return port;
  };
  const baseUrl = (): string => `http://127.0.0.1:${requirePort()}`;
  const gatewayUrl = (): string => `ws://127.0.0.1:${requirePort()}/gateway`;

  const world = createDiscordWorld({
    now,
    nextId,
    bot,
    baseUrl,
    dispatch: (type, payloadFor) => gateway.dispatchToAll(type, payloadFor),
  });
  const gateway = createDiscordGateway(world, auth, {
    heartbeatIntervalMs,
    replayBufferSize,
    applicationId,
    gatewayUrl,
    notify,
  });
  const rest = createDiscordRest(world, gateway, { now, gatewayUrl });
  const http = createDiscordHttp(world, auth, gateway, rest, { now, notify, sockets: () => sockets });
  const { channels, messagesById, messagesByChannel, requireUser, requireChannel, requireGuild, member } =
    world;
  const { sessions, send, dispatchMessage, sessionInfo } = gateway;
  const { handleHttp, onUpgrade, writeReply, requests, attachmentDownloads, rateLimits, errorFaults } = http;
  const { typings, edits, reactions } = rest;
  const {
    addUser,
    addGuild,
    addChannel,
    setMember,
    createThread,
    dmChannel,
    hostFile,
    buildMessage,
    storeMessage,
    referenceFor,
  } = world;

  // ----- users write ------------------------------------------------------------------

  function userMessage(
    channel: DiscordApiChannel,
    author: DiscordApiUser,
    content: string,
    options: FakeDiscordSendOptions,
    what: string,
  ): DiscordApiMessage {
    let referenced: DiscordApiMessage | undefined;
    if (options.replyTo !== undefined) {
      referenced = referenceFor(channel, options.replyTo);
      if (referenced === undefined)
        throw new TestkitError(
          'TESTKIT_INVALID_OPTIONS',
          `FakeDiscord.${what}: replyTo ${options.replyTo} is not a message in channel ${channel.id}`,
        );
    }
    const attachments = (options.attachments ?? []).map((input) => hostFile(channel.id, input));
    const message = buildMessage(channel, author, content, {
      attachments,
      referenced,
    });
    storeMessage(message);
    dispatchMessage('MESSAGE_CREATE', message);
    notify();
    return message;
  }

  function sendDirect(
    userId: string,
    content: string,
    options: FakeDiscordSendOptions = {},
  ): DiscordApiMessage {
    const author = requireUser(userId, 'sendDirect');
    return userMessage(dmChannel(userId), author, content, options, 'sendDirect');
  }

  function sendToChannel(
    channelId: string,
    userId: string,
    content: string,
    options: FakeDiscordSendOptions = {},
  ): DiscordApiMessage {
    const channel = requireChannel(channelId, 'sendToChannel');
    if (channel.guild_id === undefined)
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `FakeDiscord.sendToChannel: ${channelId} is a DM channel; use sendDirect`,
      );
    const author = requireUser(userId, 'sendToChannel');
    const state = requireGuild(channel.guild_id, 'sendToChannel');
    if (!state.members.has(userId)) state.members.set(userId, member([]));
    return userMessage(channel, author, content, options, 'sendToChannel');
  }

  function redeliver(messageId: string): void {
    const message = messagesById.get(messageId);
    if (message === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `FakeDiscord.redeliver: no message ${messageId}`);
    dispatchMessage('MESSAGE_CREATE', message);
  }

  // ----- the driver object ------------------------------------------------------------

  function waitFor(
    predicate: () => boolean,
    description: string,
    waitOptions: FakeDiscordWaitOptions = {},
  ): Promise<void> {
    return waiter
      .until({ check: whenTrue(predicate), awaited: description, timeoutMs: waitOptions.timeoutMs })
      .then(() => undefined);
  }

  const botMessages = (channelId: string): DiscordApiMessage[] =>
    (messagesByChannel.get(channelId) ?? []).filter((message) => message.author.id === bot.id);

  const fake: FakeDiscord = {
    async start() {
      if (closed) throw new TestkitError('TESTKIT_CLOSED', 'FakeDiscord: start() after close()');
      if (server !== undefined) return fake;
      sockets = new WebSocketServer({ noServer: true });
      server = createServer((request, response) => {
        handleHttp(request, response).catch((failure: unknown) => {
          if (!response.headersSent) writeReply(response, error(500, 0, `fake failure: ${String(failure)}`));
        });
      });
      server.on('upgrade', onUpgrade);
      port = await listenOnLoopback(server);
      return fake;
    },
    async close() {
      if (closed) return;
      closed = true;
      waiter.close();
      for (const client of sockets?.clients ?? []) client.terminate();
      sockets?.close();
      if (server !== undefined) await closeServer(server);
    },
    get restApi() {
      return `${baseUrl()}/api`;
    },
    get baseUrl() {
      return baseUrl();
    },
    get gatewayUrl() {
      return gatewayUrl();
    },
    get token() {
      return auth.token;
    },
    bot,
    addUser,
    addGuild,
    addChannel,
    setMember,
    createThread,
    dmChannel,
    channel: (channelId) => channels.get(channelId),
    sendDirect,
    sendToChannel,
    redeliver,
    message: (messageId) => messagesById.get(messageId),
    messages: (channelId) => [...(messagesByChannel.get(channelId) ?? [])],
    botMessages,
    async waitForBotMessages(channelId, count, waitOptions) {
      await waiter.until({
        check: whenTrue(() => botMessages(channelId).length >= count),
        awaited: `${count} bot message(s) in channel ${channelId}`,
        arrived: () => `${botMessages(channelId).length} posted`,
        timeoutMs: waitOptions?.timeoutMs,
      });
      return botMessages(channelId);
    },
    requests,
    attachmentDownloads,
    typings,
    edits,
    reactions,
    get rateLimitedCount() {
      return http.rateLimitedCount;
    },
    get heartbeatCount() {
      return gateway.heartbeatCount;
    },
    get identifyCount() {
      return gateway.identifyCount;
    },
    get resumeCount() {
      return gateway.resumeCount;
    },
    sessions: () => [...sessions.values()].map(sessionInfo),
    async waitForSession(waitOptions) {
      const connected = (): Session | undefined =>
        [...sessions.values()].find((session) => session.socket !== undefined && session.ready);
      await waitFor(() => connected() !== undefined, 'a connected gateway session', waitOptions);
      return sessionInfo(connected()!);
    },
    waitFor,
    rateLimitNext(fault = {}) {
      rateLimits.push({ fault, remaining: fault.count ?? 1 });
    },
    failNext(fault) {
      errorFaults.push({ fault, remaining: fault.count ?? 1 });
    },
    revokeToken() {
      auth.tokenValid = false;
      for (const session of sessions.values())
        session.socket?.close(discordCloseCodes.authenticationFailed, 'Authentication failed.');
    },
    setToken(next) {
      auth.token = next;
      auth.tokenValid = true;
    },
    setMessageContentIntent(enabled) {
      auth.messageContentAllowed = enabled;
    },
    forceReconnect() {
      for (const session of sessions.values())
        if (session.socket !== undefined) send(session.socket, { op: 7, d: null });
    },
    dropConnections(dropOptions = {}) {
      for (const session of sessions.values()) {
        const socket = session.socket;
        if (socket === undefined) continue;
        if (dropOptions.abrupt === true) socket.terminate();
        else socket.close(dropOptions.code ?? discordCloseCodes.unknownError, 'Dropped by the fake.');
      }
    },
    invalidateSessions(resumable = false) {
      for (const session of sessions.values()) {
        if (session.socket === undefined) continue;
        send(session.socket, { op: 9, d: resumable });
        if (!resumable) sessions.delete(session.id);
      }
    },
  };
  return fake;
}
