// Slack's request signing (v0): what the Events API puts on every request it sends to an
// app, so a receiver can check that Slack sent it and that it is fresh.
import { createHmac } from 'node:crypto';

/** The headers Slack puts on a signed request. */
export interface SlackSignatureHeaders {
  readonly 'x-slack-request-timestamp': string;
  readonly 'x-slack-signature': string;
}

/**
 * The v0 signature of a request body: `v0=` + hex(HMAC-SHA256(signingSecret,
 * `v0:<timestamp>:<raw body>`)), with the timestamp in Unix seconds.
 */
export function signSlackRequest(signingSecret: string, timestampSeconds: number, rawBody: string): string {
  const digest = createHmac('sha256', signingSecret)
    .update(`v0:${timestampSeconds}:${rawBody}`)
    .digest('hex');
  return `v0=${digest}`;
}

/** Both signing headers for a body sent at `timestampSeconds`. */
export function slackSignatureHeaders(
  signingSecret: string,
  timestampSeconds: number,
  rawBody: string,
): SlackSignatureHeaders {
  return {
    'x-slack-request-timestamp': String(timestampSeconds),
    'x-slack-signature': signSlackRequest(signingSecret, timestampSeconds, rawBody),
  };
}
