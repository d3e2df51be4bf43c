// The gateway of the fake Discord: WebSocket sessions (HELLO, IDENTIFY → READY, RESUME with
// replay of missed events, heartbeats, close codes 4004/4014/…), and dispatching events to
// every live session whose intents ask for them.
import { randomBytes } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import type { FakeDiscordSessionInfo } from './fake-discord-types.ts';
import type { DiscordAuth, Session } from './state.ts';
import { type DiscordApiMessage, discordChannelTypes, discordCloseCodes, discordIntents } from './types.ts';
import type { DiscordWorld } from './world.ts';

/** What the gateway needs from the rest of the fake. */
export interface DiscordGatewayOptions {
  readonly heartbeatIntervalMs: number;
  readonly replayBufferSize: number;
  readonly applicationId: string;
  /** `ws://127.0.0.1:<port>/gateway`. */
  readonly gatewayUrl: () => string;
  /** Re-checks the fake's pending waits. */
  readonly notify: () => void;
}

/**
 * The sessions and what the gateway did. Contract: an event is buffered per session (up to
 * `replayBufferSize`) whether or not the session is connected, so a RESUME replays it.
 */
export interface DiscordGateway {
  readonly sessions: Map<string, Session>;
  readonly identifyCount: number;
  readonly heartbeatCount: number;
  readonly resumeCount: number;
  /** Takes over a new gateway connection. */
  onConnection(socket: WebSocket): void;
  /** Sends a frame if the socket is open. */
  send(socket: WebSocket, frame: unknown): void;
  dispatchToAll(type: string, payloadFor: (session: Session) => unknown): void;
  /** MESSAGE_CREATE / MESSAGE_UPDATE to each session that may see it (content hidden without the intent). */
  dispatchMessage(type: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', message: DiscordApiMessage): void;
  sessionInfo(session: Session): FakeDiscordSessionInfo;
}

export function createDiscordGateway(
  world: DiscordWorld,
  auth: DiscordAuth,
  { heartbeatIntervalMs, replayBufferSize, applicationId, gatewayUrl, notify }: DiscordGatewayOptions,
): DiscordGateway {
  const { bot, guilds, channels, guildCreatePayload } = world;
  const sessions = new Map<string, Session>();
  let identifyCount = 0;
  let heartbeatCount = 0;
  let resumeCount = 0;

  function dispatchToAll(type: string, payloadFor: (session: Session) => unknown): void {
    for (const session of sessions.values()) {
      const payload = payloadFor(session);
      if (payload !== undefined) pushEvent(session, type, payload);
    }
  }

  /** The MESSAGE_CREATE payload one session gets, or undefined when its intents exclude it. */
  function messagePayload(session: Session, message: DiscordApiMessage): unknown {
    const channel = channels.get(message.channel_id);
    const isDirect = channel?.type === discordChannelTypes.dm;
    const needed = isDirect ? discordIntents.directMessages : discordIntents.guildMessages;
    if ((session.intents & needed) === 0) return undefined;
    const seesContent =
      (session.intents & discordIntents.messageContent) !== 0 ||
      isDirect ||
      message.author.id === bot.id ||
      message.mentions.some((user) => user.id === bot.id);
    return {
      ...message,
      channel_type: channel?.type ?? discordChannelTypes.guildText,
      ...(seesContent ? {} : { content: '', embeds: [], attachments: [] }),
    };
  }

  function dispatchMessage(type: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', message: DiscordApiMessage): void {
    dispatchToAll(type, (session) => messagePayload(session, message));
  }

  function send(socket: WebSocket, frame: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
  }

  function pushEvent(session: Session, type: string, payload: unknown): void {
    session.sequence += 1;
    const event = { s: session.sequence, t: type, d: payload };
    session.events.push(event);
    if (session.events.length > replayBufferSize) session.events.shift();
    if (session.socket !== undefined && session.ready)
      send(session.socket, { op: 0, t: type, s: event.s, d: payload });
  }

  function stripBotPrefix(value: unknown): string {
    const text = typeof value === 'string' ? value : '';
    return text.startsWith('Bot ') ? text.slice(4) : text;
  }

  function identify(
    socket: WebSocket,
    data: Record<string, unknown>,
    bind: (session: Session) => void,
  ): void {
    identifyCount += 1;
    if (!auth.tokenValid || stripBotPrefix(data.token) !== auth.token) {
      socket.close(discordCloseCodes.authenticationFailed, 'Authentication failed.');
      notify();
      return;
    }
    const intents = Number(data.intents ?? 0);
    if ((intents & discordIntents.messageContent) !== 0 && !auth.messageContentAllowed) {
      socket.close(discordCloseCodes.disallowedIntents, 'Disallowed intent(s).');
      notify();
      return;
    }
    // A fresh IDENTIFY replaces sessions nobody is connected to (a restarted client).
    for (const [id, existing] of sessions) if (existing.socket === undefined) sessions.delete(id);
    const session: Session = {
      id: randomBytes(16).toString('hex'),
      intents,
      sequence: 0,
      socket,
      ready: false,
      resumes: 0,
      events: [],
    };
    sessions.set(session.id, session);
    bind(session);
    session.sequence += 1;
    send(socket, {
      op: 0,
      t: 'READY',
      s: session.sequence,
      d: {
        v: 10,
        user: { ...bot, verified: true, mfa_enabled: false, flags: 0 },
        guilds: [...guilds.keys()].map((id) => ({ id, unavailable: true })),
        session_id: session.id,
        resume_gateway_url: gatewayUrl(),
        shard: [0, 1],
        application: { id: applicationId, flags: 0 },
        private_channels: [],
      },
    });
    session.ready = true;
    if (intents & discordIntents.guilds) {
      for (const state of guilds.values()) pushEvent(session, 'GUILD_CREATE', guildCreatePayload(state));
    }
    notify();
  }

  function resume(socket: WebSocket, data: Record<string, unknown>, bind: (session: Session) => void): void {
    resumeCount += 1;
    if (!auth.tokenValid || stripBotPrefix(data.token) !== auth.token) {
      socket.close(discordCloseCodes.authenticationFailed, 'Authentication failed.');
      notify();
      return;
    }
    const session = sessions.get(String(data.session_id));
    if (session === undefined) {
      send(socket, { op: 9, d: false });
      notify();
      return;
    }
    const from = Number(data.seq ?? 0);
    if (from > session.sequence) {
      socket.close(discordCloseCodes.invalidSeq, 'Invalid seq.');
      notify();
      return;
    }
    if (session.socket !== undefined && session.socket !== socket)
      session.socket.close(discordCloseCodes.unknownError, 'Session resumed elsewhere.');
    session.socket = socket;
    session.resumes += 1;
    bind(session);
    for (const event of session.events)
      if (event.s > from) send(socket, { op: 0, t: event.t, s: event.s, d: event.d });
    session.sequence += 1;
    send(socket, { op: 0, t: 'RESUMED', s: session.sequence, d: {} });
    session.ready = true;
    notify();
  }

  function onConnection(socket: WebSocket): void {
    let session: Session | undefined;
    const bind = (bound: Session): void => {
      session = bound;
    };
    send(socket, { op: 10, d: { heartbeat_interval: heartbeatIntervalMs } });
    socket.on('message', (raw: RawData) => {
      let frame: { op?: unknown; d?: unknown };
      try {
        frame = JSON.parse(raw.toString()) as { op?: unknown; d?: unknown };
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      const data = (typeof frame.d === 'object' && frame.d !== null ? frame.d : {}) as Record<
        string,
        unknown
      >;
      switch (frame.op) {
        case 1:
          heartbeatCount += 1;
          send(socket, { op: 11 });
          notify();
          return;
        case 2:
          if (session !== undefined) {
            socket.close(4005, 'Already authenticated.');
            return;
          }
          identify(socket, data, bind);
          return;
        case 6:
          resume(socket, data, bind);
          return;
        case 3:
        case 4:
        case 8:
          return;
        default:
          socket.close(4001, 'Unknown opcode.');
      }
    });
    socket.on('close', (code: number) => {
      if (session === undefined || session.socket !== socket) return;
      session.socket = undefined;
      session.ready = false;
      // A normal close from the client ends the session; anything else leaves it resumable.
      if (code === 1000 || code === 1001) sessions.delete(session.id);
      notify();
    });
  }

  const sessionInfo = (session: Session): FakeDiscordSessionInfo => ({
    id: session.id,
    connected: session.socket !== undefined && session.ready,
    intents: session.intents,
    resumes: session.resumes,
    sequence: session.sequence,
  });

  return {
    sessions,
    get identifyCount() {
      return identifyCount;
    },
    get heartbeatCount() {
      return heartbeatCount;
    },
    get resumeCount() {
      return resumeCount;
    },
    onConnection,
    send,
    dispatchToAll,
    dispatchMessage,
    sessionInfo,
  };
}
