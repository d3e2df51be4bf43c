import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** The codes of every {@link WhatsAppError}; each is documented in {@link whatsappErrorCodes}. */
export type WhatsAppErrorCode =
  | 'WHATSAPP_INVALID_TARGET'
  | 'WHATSAPP_NOT_CONNECTED'
  | 'WHATSAPP_LOGGED_OUT'
  | 'WHATSAPP_RATE_LIMITED'
  | 'WHATSAPP_SEND_FAILED'
  | 'WHATSAPP_OUTSIDE_SERVICE_WINDOW'
  | 'WHATSAPP_GRAPH_AUTH_FAILED'
  | 'WHATSAPP_GRAPH_ERROR'
  | 'WHATSAPP_MEDIA_TOO_LARGE'
  | 'WHATSAPP_MEDIA_FAILED'
  | 'WHATSAPP_TEST_FACTORY_REFUSED'
  | 'WHATSAPP_TEST_FACTORY_INVALID';

/** Every code this package throws, with the sentence that documents it. */
export const whatsappErrorCodes: Readonly<Record<WhatsAppErrorCode, string>> & ErrorCodeTable = {
  WHATSAPP_INVALID_TARGET:
    'An outbound message is addressed to a peer id that is neither a phone number (E.164), a WhatsApp JID nor a group id; the message names the id.',
  WHATSAPP_NOT_CONNECTED:
    'A send was attempted while the linked-device connection was not open and it did not open in time; retryable.',
  WHATSAPP_LOGGED_OUT:
    'The phone removed this linked device (disconnect reason 401): the account stopped and must be linked again by scanning a new QR code; not retryable.',
  WHATSAPP_RATE_LIMITED:
    'WhatsApp refused a send with a rate limit (Baileys 429 rate-overlimit, Graph 130429/131056/80007); `details.retryAfterMs` is the wait. Retryable: the gateway retries the send within rateLimitRetry.',
  WHATSAPP_SEND_FAILED: 'WhatsApp refused a send for another reason; the message carries the platform error.',
  WHATSAPP_OUTSIDE_SERVICE_WINDOW:
    'The Cloud API refused a free-form message because the user has not written in the last 24 hours (Graph error 131047); only template messages may be sent until they write again; not retryable.',
  WHATSAPP_GRAPH_AUTH_FAILED:
    'The Graph API refused the access token (HTTP 401, error 190) or the app lacks a permission; fix accessToken; not retryable.',
  WHATSAPP_GRAPH_ERROR:
    'The Graph API answered with another error; the message names the endpoint, the HTTP status and the Graph error code and text.',
  WHATSAPP_MEDIA_TOO_LARGE:
    'An inbound or outbound attachment is larger than mediaMaxMb; the message names its size.',
  WHATSAPP_MEDIA_FAILED: 'An attachment could not be downloaded, decrypted, verified or uploaded.',
  WHATSAPP_TEST_FACTORY_REFUSED:
    'SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY is set but NODE_ENV is not "test": the test-only socket factory is never loaded outside tests.',
  WHATSAPP_TEST_FACTORY_INVALID:
    'The module named by SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY could not be imported or does not export a makeSocket function.',
};

/** The error this package throws. `retryable` says whether the gateway may try again later. */
export class WhatsAppError extends SwitchboardError<WhatsAppErrorCode> {
  constructor(code: WhatsAppErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
