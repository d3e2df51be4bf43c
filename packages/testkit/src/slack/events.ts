// Event delivery of the fake Slack: each event is wrapped in an `event_callback` and sent to
// its workspace's app, over signed HTTP POSTs to the request URL (retried with Slack's
// `x-slack-retry-*` headers) or over Socket Mode (an envelope the app must ack in time, sent
// again on timeout or a closed socket). Users posting messages starts here too.
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { TestkitError } from '../shared/errors.ts';
import { slackSignatureHeaders } from './signing.ts';
import type {
  ConversationState,
  EventState,
  MessageState,
  SocketConnection,
  WorkspaceState,
} from './state.ts';
import type {
  FakeSlackDeliveryAttempt,
  FakeSlackEventRecord,
  FakeSlackPosted,
  FakeSlackUserMessageInput,
} from './types.ts';
import type { SlackWorld } from './world.ts';

/** What delivery needs from the rest of the fake. */
export interface SlackEventDeliveryOptions {
  readonly now: () => number;
  readonly wake: () => void;
  readonly requireStarted: (what: string) => void;
  readonly httpTimeoutMs: number;
  readonly retryDelaysMs: readonly number[];
  readonly ackTimeoutMs: number;
  readonly maxSocketRetries: number;
  readonly pingIntervalMs: number;
}

/**
 * Event delivery. Contract: `startDelivery` resolves once the event was acked or its retries
 * ran out (the event's status says which); after `close()` nothing is sent and every pending
 * event is failed.
 */
export interface SlackEventDelivery {
  /** Every event sent to an app, in order. */
  readonly events: readonly EventState[];
  /** Socket Mode connections opened in total. */
  readonly socketConnectionsOpened: number;
  newEvent(workspace: WorkspaceState, event: Record<string, unknown>): EventState;
  startDelivery(event: EventState, retryNum: number, reason: string): Promise<void>;
  /** The `message` event of a stored message. */
  messageEvent(conversation: ConversationState, message: MessageState): Record<string, unknown>;
  /** Takes over an upgraded Socket Mode connection: hello, pings, acks, pending envelopes. */
  acceptSocket(socket: WebSocket, workspace: WorkspaceState): void;
  issueTicket(workspace: WorkspaceState): string;
  takeTicket(ticket: string): WorkspaceState | undefined;
  postUserMessage(input: FakeSlackUserMessageInput): Promise<FakeSlackPosted>;
  sendEvent(event: Record<string, unknown>, workspace: WorkspaceState): Promise<FakeSlackEventRecord>;
  redeliver(eventId: string, reason: string): Promise<FakeSlackEventRecord>;
  snapshotEvent(event: EventState): FakeSlackEventRecord;
  close(): void;
}

export function createSlackEventDelivery(
  world: SlackWorld,
  options: SlackEventDeliveryOptions,
): SlackEventDelivery {
  const {
    now,
    wake,
    requireStarted,
    httpTimeoutMs,
    retryDelaysMs,
    ackTimeoutMs,
    maxSocketRetries,
    pingIntervalMs,
  } = options;
  const { conversations, nextId, workspaceState, fileJson, storeMessage, snapshotMessage } = world;
  const events: EventState[] = [];
  const eventsById = new Map<string, EventState>();
  const tickets = new Map<string, WorkspaceState>();
  const timers = new Set<NodeJS.Timeout>();
  let socketConnectionsOpened = 0;
  let closed = false;

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
      thread_ts: message.threadTs,
      parent_user_id: parent?.user,
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
      threadTs: input.threadTs,
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

  /** A Socket Mode ticket for `apps.connections.open`; the WebSocket upgrade takes it. */
  function issueTicket(workspace: WorkspaceState): string {
    const ticket = randomUUID();
    tickets.set(ticket, workspace);
    return ticket;
  }

  /** The workspace a ticket was issued for, once (a ticket opens one connection). */
  function takeTicket(ticket: string): WorkspaceState | undefined {
    const workspace = tickets.get(ticket);
    tickets.delete(ticket);
    return workspace;
  }

  /** Stops delivering: timers cleared, sockets terminated, every pending event failed. */
  function close(): void {
    closed = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    for (const workspace of world.workspaces) {
      for (const connection of workspace.sockets) connection.socket.terminate();
      for (const waiting of workspace.waitingForSocket.splice(0)) finish(waiting.event, 'failed');
    }
    for (const event of events) if (event.status === 'pending') finish(event, 'failed');
  }

  /** Sends any event to a workspace's app and resolves once its delivery is over. */
  async function sendEvent(
    event: Record<string, unknown>,
    workspace: WorkspaceState,
  ): Promise<FakeSlackEventRecord> {
    const state = newEvent(workspace, event);
    await startDelivery(state, 0, '');
    return snapshotEvent(state);
  }

  /** Delivers an already-delivered event again (same `event_id`), after its current delivery. */
  async function redeliver(eventId: string, reason: string): Promise<FakeSlackEventRecord> {
    const state = eventsById.get(eventId);
    if (state === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `fake Slack: no event ${eventId}`);
    await state.done;
    await startDelivery(state, Math.max(1, state.attempts.length), reason);
    return snapshotEvent(state);
  }

  return {
    events,
    get socketConnectionsOpened() {
      return socketConnectionsOpened;
    },
    newEvent,
    startDelivery,
    messageEvent,
    acceptSocket,
    issueTicket,
    takeTicket,
    postUserMessage,
    sendEvent,
    redeliver,
    snapshotEvent,
    close,
  };
}
