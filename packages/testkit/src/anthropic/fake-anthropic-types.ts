// The public types of the fake Anthropic API: turn sources, options, fault rules, waits.
import type { FaultRuleHandle } from '../shared/fault-rule.ts';
import type { FakeEndpoint, RecordedRequest } from './recorded-request.ts';
import type { FakeFault, FakeLatency, FakeTurn, MessagesRequestBody } from './types.ts';

/** A turn computed from the request, for tests that branch on what was sent. */
export type TurnFunction = (request: RecordedRequest) => FakeTurn | Promise<FakeTurn>;

/** One entry of the script: a fixed turn or a function of the request. */
export type TurnSource = FakeTurn | TurnFunction;

/**
 * What answers a `/v1/messages` request when the queue is empty: `echo` (the text of the
 * last user message), `fail` (HTTP 500 and a `TESTKIT_SCRIPT_EXHAUSTED` entry in
 * `errors`), or a turn / turn function used for every such request.
 */
export type FakeFallback = 'echo' | 'fail' | TurnSource;

/** The timer functions the fake uses for latency and wait timeouts (injectable). */
export interface FakeTimers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface FakeAnthropicOptions {
  /** The initial script, answered in order (one entry per `/v1/messages` request). */
  readonly turns?: readonly TurnSource[];
  /** What answers once the script is used up. Default `echo`. */
  readonly fallback?: FakeFallback;
  /** Fake-wide timing; a turn's own `latency` replaces it. Default zero (no timers at all). */
  readonly latency?: FakeLatency;
  /** Characters per `text_delta`/`thinking_delta` when a text is given as one string. Default 16. */
  readonly textChunkSize?: number;
  /** Characters per `input_json_delta` piece by default. Default 12. */
  readonly jsonChunkSize?: number;
  /**
   * When set, only these credentials (x-api-key or bearer token) are accepted; any other,
   * or none, gets 401 authentication_error.
   */
  readonly acceptedCredentials?: readonly string[];
  /** Every request carrying this credential (x-api-key or bearer token) gets this fault. */
  readonly faultsByCredential?: Readonly<Record<string, FakeFault>>;
  /**
   * Reject what the real API rejects with 400 invalid_request_error: a missing
   * `anthropic-version` header, a body that is not a JSON object, a missing `model`,
   * `messages` or (for /v1/messages) `max_tokens`. Default true.
   */
  readonly validateRequests?: boolean;
  /** How many requests `requests` keeps (oldest dropped first). Default unlimited. */
  readonly recordLimit?: number;
  /** Input-token count of a request body; default {@link estimateTokens}. */
  readonly countTokens?: (body: MessagesRequestBody) => number;
  /** Clock for `receivedAt`. Default `Date.now`. */
  readonly now?: () => number;
  /** Timers for latency and wait timeouts. Default the global ones. */
  readonly timers?: FakeTimers;
  /** Default timeout of `nextRequest` and `waitForRequests`. Default 5000 ms. */
  readonly waitTimeoutMs?: number;
  /** Largest accepted body; larger gets 413 request_too_large. Default 32 MiB (the API's limit). */
  readonly maxBodyBytes?: number;
}

/** Which requests an injected fault applies to. */
export interface FaultRuleOptions {
  /** How many matching requests fail. Default 1; `Infinity` for all of them. */
  readonly times?: number;
  /** Only requests carrying this credential (x-api-key or bearer token). */
  readonly credential?: string;
  /** Only requests for which this returns true. */
  readonly match?: (request: RecordedRequest) => boolean;
  /** Only this route. Default `messages`; `any` for every route. */
  readonly endpoint?: FakeEndpoint | 'any';
}

/** A fault injected with `injectFault`. */
export type FaultRule = FaultRuleHandle<FakeFault>;

/** Options of `nextRequest` and `waitForRequests`. */
export interface WaitOptions {
  /** Only count requests to this route. Default any route. */
  readonly endpoint?: FakeEndpoint;
  /** Default the fake's `waitTimeoutMs`. */
  readonly timeoutMs?: number;
}
