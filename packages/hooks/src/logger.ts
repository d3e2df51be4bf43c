/** Structured facts attached to a log line (ids, names, counts, durations); never secrets. */
export type LogFields = Readonly<Record<string, unknown>>;

/** The severity of a log line, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * The logger every plugin receives as `api.logger`, and that the registry and the hook
 * runner write to. The gateway implements it; {@link createConsoleLogger} and
 * {@link noopLogger} are the two defaults shipped here.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A logger that drops everything. */
export const noopLogger: Logger = Object.freeze({
  debug(): void {},
  info(): void {},
  warn(): void {},
  error(): void {},
});

const levelRank: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface ConsoleLoggerOptions {
  /** The lowest level written. Defaults to `info`. */
  readonly level?: LogLevel;
  /** Fields added to every line (e.g. `{ component: 'plugins' }`). */
  readonly fields?: LogFields;
  /** Where lines go; defaults to the global `console`. */
  readonly console?: Pick<Console, 'debug' | 'info' | 'warn' | 'error'>;
}

/**
 * A logger that writes one line per call to the console: the message followed by the
 * fields as JSON (errors are reduced to their name, message and code).
 */
export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const minimum = levelRank[options.level ?? 'info'];
  const target = options.console ?? console;
  const baseFields = options.fields ?? {};
  const write = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (levelRank[level] < minimum) return;
    const merged = fields === undefined ? baseFields : { ...baseFields, ...fields };
    const suffix = Object.keys(merged).length === 0 ? '' : ` ${safeJson(merged)}`;
    target[level](`[${level}] ${message}${suffix}`);
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/** A logger that adds `fields` to every line written through `logger`. */
export function withLogFields(logger: Logger, fields: LogFields): Logger {
  return {
    debug: (message, extra) => logger.debug(message, extra === undefined ? fields : { ...fields, ...extra }),
    info: (message, extra) => logger.info(message, extra === undefined ? fields : { ...fields, ...extra }),
    warn: (message, extra) => logger.warn(message, extra === undefined ? fields : { ...fields, ...extra }),
    error: (message, extra) => logger.error(message, extra === undefined ? fields : { ...fields, ...extra }),
  };
}

function safeJson(fields: LogFields): string {
  try {
    return JSON.stringify(fields, (_key, value: unknown) => {
      if (value instanceof Error) {
        const code = (value as { code?: unknown }).code;
        return { name: value.name, message: value.message, code };
      }
      if (typeof value === 'bigint') return value.toString();
      return value;
    });
  } catch {
    return '{"unserializable":true}';
  }
}
