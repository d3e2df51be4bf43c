// The public shapes of the fake Slack: its options, what it records, and its faults.

/** How a workspace's app receives events: POSTs to its request URL, or Socket Mode. */
export type FakeSlackDelivery = 'http' | 'socket';

/** One workspace (team) with the app installed in it. Every field has a default. */
export interface FakeSlackWorkspaceOptions {
  /** Default `T` + a sequence number (`T0000001`). */
  readonly teamId?: string;
  readonly teamName?: string;
  /** The bot token (`xoxb-…`) the app uses in this workspace. */
  readonly botToken?: string;
  /** The app-level token (`xapp-…`) that opens Socket Mode connections. */
  readonly appToken?: string;
  /** The signing secret the Events API signs HTTP requests with. */
  readonly signingSecret?: string;
  readonly botUserId?: string;
  readonly botId?: string;
  readonly botName?: string;
  readonly appId?: string;
  /** How events reach the app. Default `socket`. */
  readonly delivery?: FakeSlackDelivery;
  /** Where `http` delivery POSTs events (the app's Request URL). */
  readonly requestUrl?: string;
  /** Also send an `app_mention` event when a message mentions the bot (as Slack does). Default true. */
  readonly appMentionEvents?: boolean;
  /** Send `message` events for the bot's own posts, as Slack does when subscribed. Default false. */
  readonly echoBotMessages?: boolean;
}

/** A workspace as the fake runs it. */
export interface FakeSlackWorkspace {
  readonly teamId: string;
  readonly teamName: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly signingSecret: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly botName: string;
  readonly appId: string;
  readonly delivery: FakeSlackDelivery;
  readonly requestUrl: string | undefined;
}

/** A person (or another bot) in a workspace. */
export interface FakeSlackUser {
  readonly id: string;
  readonly teamId: string;
  readonly name: string;
  readonly realName?: string;
  readonly isBot: boolean;
}

/** The kinds of conversation Slack has, as `channel_type` names them. */
export type FakeSlackConversationType = 'im' | 'channel' | 'group' | 'mpim';

export interface FakeSlackConversation {
  readonly id: string;
  readonly teamId: string;
  readonly type: FakeSlackConversationType;
  readonly name?: string;
  /** The other member of a DM (`im`). */
  readonly userId?: string;
  /** False makes the bot's posts fail with `not_in_channel`. */
  readonly botIsMember: boolean;
}

/** A file in a workspace: uploaded by a user (inbound) or by the bot (files upload v2). */
export interface FakeSlackFile {
  readonly id: string;
  readonly teamId: string;
  readonly name: string;
  readonly title?: string;
  readonly mimetype: string;
  readonly size: number;
  /** Who uploaded it (a user id, or the bot user id). */
  readonly user: string;
  readonly urlPrivate: string;
  readonly urlPrivateDownload: string;
  /** The bytes, once uploaded. */
  readonly bytes: Uint8Array | undefined;
}

/** A message in a conversation, from a user or from the bot. */
export interface FakeSlackMessage {
  readonly teamId: string;
  readonly channel: string;
  readonly ts: string;
  /** The author's user id (the bot user id for the bot's posts). */
  readonly user: string;
  readonly botId?: string;
  readonly fromBot: boolean;
  /** The current text (after edits). */
  readonly text: string;
  readonly threadTs?: string;
  readonly files: readonly FakeSlackFile[];
  /** Earlier texts, oldest first, one per `chat.update`. */
  readonly edits: readonly string[];
  /** Whether the bot asked for mrkdwn rendering (`mrkdwn` param, default true). */
  readonly mrkdwn: boolean;
}

/** A GET of a private file URL (`url_private` / `url_private_download`). */
export interface FakeSlackDownload {
  readonly fileId: string;
  readonly status: number;
  /**
   * The bytes handed to the socket so far: the body goes out in 64 KiB chunks with
   * backpressure and stops when the client hangs up, so an early abort leaves this below the size.
   */
  readonly bytesSent: number;
  readonly at: number;
}

/** The kind of token a Web API call carried. */
export type FakeSlackTokenType = 'bot' | 'app' | 'none' | 'unknown';

/** One Web API call the fake answered. */
export interface FakeSlackCall {
  readonly method: string;
  readonly teamId: string | undefined;
  readonly tokenType: FakeSlackTokenType;
  /** The parameters as sent (form fields are strings; JSON bodies keep their types). */
  readonly params: Readonly<Record<string, unknown>>;
  readonly status: number;
  readonly ok: boolean;
  /** Slack's error string when `ok` is false (`ratelimited`, `invalid_auth`, …). */
  readonly error?: string;
  readonly at: number;
}

/** A failure injected into Web API calls. */
export type FakeSlackFault =
  /** HTTP 429 with `Retry-After` and `{ ok: false, error: 'ratelimited' }`, as Slack rate limits. */
  | { readonly type: 'ratelimited'; readonly retryAfterSeconds: number }
  /** HTTP 200 with `{ ok: false, error }` (`invalid_auth`, `account_inactive`, `channel_not_found`, …). */
  | { readonly type: 'error'; readonly error: string }
  /** A bare HTTP status (500, 503) with no Slack body. */
  | { readonly type: 'http'; readonly status: number };

/** One attempt at delivering an event to the app. */
export interface FakeSlackDeliveryAttempt {
  /** 0 for the first delivery; Slack's `X-Slack-Retry-Num` / `retry_attempt` for retries. */
  readonly retryNum: number;
  readonly retryReason: string;
  readonly transport: FakeSlackDelivery;
  readonly at: number;
  /**
   * `acked` (HTTP 200 or a Socket Mode ack), `rejected` (another HTTP status), `timeout` (no
   * answer in time), `unreachable` (connection refused, no request URL), `disconnected` (the
   * socket closed before the ack).
   */
  readonly outcome: 'acked' | 'rejected' | 'timeout' | 'unreachable' | 'disconnected';
  readonly status?: number;
}

/** An Events API event the fake sent (or is sending) to the app. */
export interface FakeSlackEventRecord {
  readonly eventId: string;
  readonly teamId: string;
  /** `event.type`: `message`, `app_mention`, … */
  readonly type: string;
  /** The whole `event_callback` body. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly attempts: readonly FakeSlackDeliveryAttempt[];
}

/** A message a user writes, as `postUserMessage` takes it. */
export interface FakeSlackUserMessageInput {
  /** Default: the first workspace. */
  readonly teamId?: string;
  readonly user: string;
  /** A conversation id (`C…`, `D…`, `G…`). */
  readonly channel: string;
  readonly text?: string;
  /** Post into this thread. */
  readonly threadTs?: string;
  /** Files the user uploaded with the message (from `uploadUserFile`). */
  readonly files?: readonly FakeSlackFile[];
}

/** What `postUserMessage` produced: the stored message and the events sent for it. */
export interface FakeSlackPosted {
  readonly message: FakeSlackMessage;
  readonly events: readonly FakeSlackEventRecord[];
  /** True when every event was acknowledged by the app. */
  readonly delivered: boolean;
}

/** The answer to a raw signed POST (`postSigned`). */
export interface FakeSlackHttpAnswer {
  readonly status: number;
  readonly text: string;
}
