import { SwitchboardError } from '@switchboard/hooks';
import { GatewayError, type GatewayErrorCode } from '../gateway-error.ts';

/** Top-level protocol error classes, as in the OpenClaw gateway protocol v4. */
type ProtocolErrorClass = 'INVALID_REQUEST' | 'FORBIDDEN' | 'UNAVAILABLE' | 'NOT_PAIRED';

/** The wire error class a gateway error code travels under. */
function protocolClassOf(code: GatewayErrorCode): ProtocolErrorClass {
  switch (code) {
    case 'MISSING_SCOPE':
    case 'CONTROL_UI_ORIGIN_NOT_ALLOWED':
      return 'FORBIDDEN';
    case 'SHUTTING_DOWN':
    case 'OVERLOADED':
    case 'INTERNAL':
    case 'RUN_FAILED':
      return 'UNAVAILABLE';
    default:
      return 'INVALID_REQUEST';
  }
}

/** The `error` object of a failed response frame. */
export interface ProtocolErrorShape {
  readonly code: ProtocolErrorClass;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly retryable?: boolean;
  readonly retryAfterMs?: number;
}

/** Converts anything thrown by a method into the wire error shape. */
export function toProtocolError(error: unknown): ProtocolErrorShape {
  if (error instanceof GatewayError) {
    return {
      code: protocolClassOf(error.code),
      message: error.message,
      details: { ...error.details, code: error.code },
      ...(error.retryable ? { retryable: true } : {}),
      retryAfterMs: error.retryAfterMs,
    };
  }
  if (SwitchboardError.isInstance(error)) {
    return {
      code: 'INVALID_REQUEST',
      message: error.message,
      details: { ...error.details, code: error.code },
      ...(error.retryable ? { retryable: true } : {}),
    };
  }
  return {
    code: 'UNAVAILABLE',
    message: 'internal error',
    details: { code: 'INTERNAL' },
  };
}
