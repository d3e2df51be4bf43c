import type { LogFields, Logger } from '@switchboard/hooks';
import type { ILogger } from 'baileys/lib/Utils/logger.js';

/**
 * Adapts the gateway's logger to the pino-like logger Baileys expects. Baileys is chatty:
 * its `info` lines go to `debug`, `trace` is dropped, warnings and errors pass through.
 */
export function toBaileysLogger(logger: Logger, bindings: LogFields = {}): ILogger {
  const write = (level: 'debug' | 'warn' | 'error', object: unknown, message?: string) => {
    const fields: Record<string, unknown> = { ...bindings, component: 'baileys' };
    let text = message;
    if (typeof object === 'string') text = message === undefined ? object : `${object} ${message}`;
    else if (object instanceof Error) fields.error = object.message;
    else if (typeof object === 'object' && object !== null) {
      for (const [key, value] of Object.entries(object)) {
        if (key === 'err' || key === 'error') fields.error = value instanceof Error ? value.message : value;
        else if (isLoggable(value)) fields[key] = value;
      }
    }
    logger[level](text ?? 'baileys', fields);
  };
  return {
    level: 'debug',
    child: (extra: Record<string, unknown>) => toBaileysLogger(logger, { ...bindings, ...extra }),
    trace: () => {},
    debug: (object: unknown, message?: string) => write('debug', object, message),
    info: (object: unknown, message?: string) => write('debug', object, message),
    warn: (object: unknown, message?: string) => write('warn', object, message),
    error: (object: unknown, message?: string) => write('error', object, message),
  };
}

/** Small scalar fields only: Baileys logs whole messages and key material at times. */
function isLoggable(value: unknown): boolean {
  return (
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    (typeof value === 'string' && value.length <= 200)
  );
}
