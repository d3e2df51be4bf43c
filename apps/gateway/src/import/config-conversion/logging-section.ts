// OpenClaw's `logging`: the level (pino's levels mapped to Switchboard's four) and the file.
import { isRecord } from '../openclaw-source.ts';
import { copyIfPresent } from './key-notes.ts';
import type { Mark } from './types.ts';

const logLevels: Readonly<Record<string, string>> = {
  trace: 'debug',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'error',
  silent: 'error',
};

/** Converts `logging` into `config.logging`. */
export function convertLogging(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
): void {
  const logging = raw.logging;
  if (!isRecord(logging)) return;
  const target: Record<string, unknown> = {};
  if (typeof logging.level === 'string' && logLevels[logging.level] !== undefined) {
    target.level = logLevels[logging.level];
    const same = logLevels[logging.level] === logging.level;
    mark('logging.level', {
      disposition: same ? 'mapped' : 'changed',
      target: 'logging.level',
      ...(same ? {} : { message: `"${logging.level}" becomes "${logLevels[logging.level]}"` }),
    });
  }
  copyIfPresent(logging, target, ['file'], 'logging', 'logging', mark);
  config.logging = target;
}
