import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LogFields, Logger } from '@switchboard/hooks';

type Level = 'debug' | 'info' | 'warn' | 'error';
const rank: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const secretKey = /token|secret|password|apikey|api_key|authorization/i;

export interface GatewayLoggerOptions {
  readonly level?: Level;
  /** Also append every line to this file (for `switchboard logs --follow`). */
  readonly file?: string;
  readonly write?: (line: string) => void;
}

function formatValue(key: string, value: unknown): string {
  if (secretKey.test(key)) return '[redacted]';
  if (typeof value === 'string') return /\s/.test(value) ? JSON.stringify(value) : value;
  if (value instanceof Error) return JSON.stringify(value.message);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Human-readable log lines (`time LEVEL message key=value`); secret-looking fields are redacted. */
export function createGatewayLogger(options: GatewayLoggerOptions = {}): Logger {
  const minimum = rank[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  if (options.file !== undefined) mkdirSync(dirname(options.file), { recursive: true });
  const log = (level: Level, message: string, fields?: LogFields) => {
    if (rank[level] < minimum) return;
    let line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}`;
    if (fields !== undefined)
      for (const [key, value] of Object.entries(fields))
        if (value !== undefined) line += ` ${key}=${formatValue(key, value)}`;
    line += '\n';
    write(line);
    if (options.file !== undefined) {
      try {
        appendFileSync(options.file, line);
      } catch {
        // A full disk must not take the gateway down; stderr still has the line.
      }
    }
  };
  return {
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
  };
}
