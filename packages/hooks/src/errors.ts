/**
 * The one error base of Switchboard. Every package throws (or returns) errors of this
 * shape: a stable `code` to branch on, a human message that says what was wrong, optional
 * structured `details`, and whether retrying may help.
 *
 * `instanceof` breaks when two copies of a package are installed, so the class carries a
 * process-wide symbol marker and `SwitchboardError.isInstance()` checks that instead.
 */

const errorMarker = Symbol.for('switchboard.error');

/** Options accepted by every Switchboard error. */
export interface SwitchboardErrorOptions {
  /** The underlying error, if this one wraps another. */
  readonly cause?: unknown;
  /** Structured facts about the failure (key paths, ids, limits); never secrets. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Whether the same operation may succeed if retried later. Defaults to false. */
  readonly retryable?: boolean;
}

/** A JSON-safe view of an error, fit for logs and protocol frames. */
export interface SerializedSwitchboardError {
  readonly name: string;
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly details?: Readonly<Record<string, unknown>>;
}

export class SwitchboardError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly details: Readonly<Record<string, unknown>> | undefined;
  readonly retryable: boolean;

  constructor(code: Code, message: string, options: SwitchboardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }

  /** True for any Switchboard error, whichever copy of this package created it. */
  static isInstance(value: unknown): value is SwitchboardError {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[errorMarker] === true
    );
  }

  toJSON(): SerializedSwitchboardError {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      details: this.details,
    };
  }
}

/**
 * Turns anything thrown into a Switchboard error. Switchboard errors pass through
 * unchanged; other values are wrapped with `fallbackCode` and kept as the `cause`.
 */
export function toSwitchboardError(value: unknown, fallbackCode = 'UNKNOWN'): SwitchboardError {
  if (SwitchboardError.isInstance(value)) return value;
  if (value instanceof Error) return new SwitchboardError(fallbackCode, value.message, { cause: value });
  return new SwitchboardError(fallbackCode, typeof value === 'string' ? value : describeThrown(value), {
    cause: value,
  });
}

// The marker lives on the prototype so every subclass instance carries it.
Object.defineProperty(SwitchboardError.prototype, errorMarker, { value: true, enumerable: false });

function describeThrown(value: unknown): string {
  try {
    return `Non-error value thrown: ${JSON.stringify(value)}`;
  } catch {
    return `Non-error value thrown: ${String(value)}`;
  }
}

/**
 * A table of error codes with the sentence that documents each. Packages declare their
 * codes this way so the documentation lives beside the code and a test can check that
 * every code thrown is documented.
 */
export type ErrorCodeTable = Readonly<Record<string, string>>;
