// The state the fake Slack keeps, shared by its parts: workspaces, conversations, messages,
// files, events being delivered and Socket Mode connections.
import type { WebSocket } from 'ws';
import type {
  FakeSlackConversationType,
  FakeSlackDelivery,
  FakeSlackDeliveryAttempt,
  FakeSlackFile,
  FakeSlackUser,
  FakeSlackWorkspace,
} from './types.ts';

export interface WorkspaceState extends FakeSlackWorkspace {
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

export interface ConversationState {
  readonly id: string;
  readonly teamId: string;
  readonly type: FakeSlackConversationType;
  readonly name?: string;
  readonly userId?: string;
  botIsMember: boolean;
  readonly messages: MessageState[];
}

export interface MessageState {
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

export interface FileState {
  readonly id: string;
  readonly teamId: string;
  name: string;
  title?: string;
  mimetype: string;
  size: number;
  readonly user: string;
  bytes: Uint8Array | undefined;
}

export interface EventState {
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

export interface SocketConnection {
  readonly socket: WebSocket;
  readonly teamId: string;
  readonly unacked: Map<
    string,
    { event: EventState; retryNum: number; reason: string; timer: NodeJS.Timeout }
  >;
  pinger: NodeJS.Timeout | undefined;
}
