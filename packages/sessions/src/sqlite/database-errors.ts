import { SessionsError } from '../errors.ts';

// SQLite primary result codes (https://sqlite.org/rescode.html).
const SQLITE_PERM = 3;
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_READONLY = 8;
const SQLITE_IOERR = 10;
const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;

interface SqliteFailure {
  readonly code?: unknown;
  readonly errcode?: unknown;
  readonly errstr?: unknown;
  readonly message?: unknown;
}

/** The primary SQLite result code of an error thrown by `node:sqlite`, if it is one. */
function sqliteResultCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const failure = error as SqliteFailure;
  if (failure.code !== 'ERR_SQLITE_ERROR' || typeof failure.errcode !== 'number') return undefined;
  return failure.errcode & 0xff;
}

/**
 * Turns anything thrown while using the database into a SessionsError that names the file
 * and says what to do. Switchboard errors pass through unchanged.
 */
export function toStoreError(error: unknown, path: string, operation: string): SessionsError {
  if (error instanceof SessionsError) return error;
  const code = sqliteResultCode(error);
  const reason = describeFailure(error);
  switch (code) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return new SessionsError(
        'SESSIONS_DATABASE_CORRUPT',
        `The session database ${path} is damaged or is not a SQLite database (${reason}, during ${operation}). ` +
          'Stop the gateway, move the file aside (for example rename it to switchboard.db.corrupt, together with its -wal and -shm files) ' +
          'and start again to begin with an empty store, or restore a backup; `sqlite3 <file> .recover` can often salvage the data.',
        { cause: error, details: { path, operation } },
      );
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
      return new SessionsError(
        'SESSIONS_DATABASE_UNREADABLE',
        `The session database ${path} cannot be opened for reading and writing (${reason}, during ${operation}). ` +
          'Check that the path is a regular file (not a directory), that the state directory and the file (and its -wal and -shm files) ' +
          'belong to the user running the gateway and are writable, and that the file system is not mounted read-only.',
        { cause: error, details: { path, operation } },
      );
    case SQLITE_FULL:
    case SQLITE_IOERR:
      return new SessionsError(
        'SESSIONS_DATABASE_IO',
        `Reading or writing the session database ${path} failed (${reason}, during ${operation}). ` +
          'Check free disk space and the health of the disk; the last committed state is intact.',
        { cause: error, details: { path, operation }, retryable: code === SQLITE_FULL },
      );
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return new SessionsError(
        'SESSIONS_DATABASE_BUSY',
        `The session database ${path} stayed locked by another connection longer than the busy timeout (during ${operation}).`,
        { cause: error, details: { path, operation }, retryable: true },
      );
    default:
      return new SessionsError(
        'SESSIONS_DATABASE_ERROR',
        `The session database ${path} reported an error during ${operation}: ${reason}.`,
        { cause: error, details: { path, operation } },
      );
  }
}

function describeFailure(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const failure = error as SqliteFailure;
    if (
      typeof failure.errstr === 'string' &&
      typeof failure.message === 'string' &&
      failure.message !== failure.errstr
    ) {
      return `${failure.message}: ${failure.errstr}`;
    }
    if (typeof failure.message === 'string') return failure.message;
  }
  return String(error);
}
