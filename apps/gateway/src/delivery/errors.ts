import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/**
 * Every error code the delivery module raises or reports, with the sentence that documents it.
 * Options errors are thrown by the factories; send errors are never thrown into the agent loop,
 * they are reported through `onEvent` and counted in the reply summary.
 */
export const deliveryErrorCodes = {
  DELIVERY_INVALID_OPTIONS:
    'An option given to a delivery factory (chunker, chunkText, coalescer, pipeline, reply stream) is out of range or of the wrong type; the message names the option path.',
  DELIVERY_SEND_TIMEOUT:
    'One send did not settle within the per-send timeout; the pipeline aborted and skipped the remaining blocks to preserve order.',
  DELIVERY_SEND_FAILED:
    'One send threw or rejected; the failure is reported and the pipeline carries on with the next payload.',
} as const satisfies ErrorCodeTable;

export type DeliveryErrorCode = keyof typeof deliveryErrorCodes;

export class DeliveryError extends SwitchboardError<DeliveryErrorCode> {
  constructor(code: DeliveryErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}

/** Throws `DELIVERY_INVALID_OPTIONS` unless `value` is an integer within [min, max]. */
export function assertInteger(
  value: unknown,
  path: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer in [${min}, ${max}]`;
    throw new DeliveryError('DELIVERY_INVALID_OPTIONS', `${path} must be ${range}, got ${describe(value)}`, {
      details: { path },
    });
  }
  return value;
}

/** Throws `DELIVERY_INVALID_OPTIONS` unless `value` is one of `allowed`. */
export function assertOneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new DeliveryError(
      'DELIVERY_INVALID_OPTIONS',
      `${path} must be one of ${allowed.map((item) => `'${item}'`).join(', ')}, got ${describe(value)}`,
      { details: { path } },
    );
  }
  return value as T;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value);
  }
  return typeof value;
}
