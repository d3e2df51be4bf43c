import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/**
 * Detail codes clients branch on (`error.details.code`). Names match OpenClaw's where the
 * meaning is the same, so its clients react correctly.
 */
const gatewayErrorCodes = {
  PROTOCOL_MISMATCH: 'The client and gateway share no protocol version.',
  INVALID_HANDSHAKE: 'The first request on a socket was not a valid `connect`.',
  INVALID_FRAME: 'A frame was not JSON or not a request frame.',
  INVALID_PARAMS: 'A method was called with parameters of the wrong shape.',
  UNKNOWN_METHOD: 'No method of that name exists.',
  AUTH_TOKEN_MISSING: 'The gateway requires a token and none was sent.',
  AUTH_TOKEN_MISMATCH: 'The token sent does not match the gateway token.',
  AUTH_RATE_LIMITED: 'Too many failed authentication attempts; retry later.',
  DEVICE_AUTH_NONCE_MISMATCH: 'The device proof signed a different challenge nonce.',
  DEVICE_AUTH_SIGNATURE_INVALID: 'The device proof signature does not verify.',
  DEVICE_AUTH_SIGNATURE_EXPIRED: 'The device proof was signed too long ago (clock skew).',
  DEVICE_AUTH_DEVICE_ID_MISMATCH: 'The device id is not the hash of the public key.',
  DEVICE_AUTH_PUBLIC_KEY_INVALID: 'The device public key is not a 32-byte Ed25519 key.',
  CONTROL_UI_ORIGIN_NOT_ALLOWED: 'A browser connected from an origin the gateway does not allow.',
  MISSING_SCOPE: 'The socket lacks the operator scope the method requires.',
  NOT_FOUND: 'The session, run or other object named does not exist.',
  CONFLICT: 'The request conflicts with the current state (for example a run is still shutting down).',
  SHUTTING_DOWN: 'The gateway is shutting down and admits no new work.',
  OVERLOADED: 'The gateway is at capacity; retry later.',
  RUN_FAILED: 'The agent run failed; the message says why.',
  INTERNAL: 'An unexpected error inside the gateway.',
} as const satisfies ErrorCodeTable;

export type GatewayErrorCode = keyof typeof gatewayErrorCodes;

export interface GatewayErrorOptions extends SwitchboardErrorOptions {
  readonly retryAfterMs?: number;
}

/**
 * An error the gateway reports to whoever asked: a method's caller, a connecting client, a
 * tool. It names what went wrong by code; how a code travels on the wire (its protocol error
 * class) is the protocol layer's business (`protocol/errors.ts`), so the runtime can throw it
 * without knowing the wire.
 */
export class GatewayError extends SwitchboardError<GatewayErrorCode> {
  readonly retryAfterMs: number | undefined;

  constructor(code: GatewayErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(code, message, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}
