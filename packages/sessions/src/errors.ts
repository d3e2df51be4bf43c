import { SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/**
 * Every error code this package throws, with the sentence that documents it. A test checks
 * that each code used in the source is listed here.
 */
export const sessionsErrorCodes = {
  SESSIONS_STATE_DIRECTORY_INVALID:
    'The state directory cannot be used: it is not a directory, or it cannot be created. The message names the path.',
  SESSIONS_DATABASE_UNREADABLE:
    'The database file cannot be opened or written (missing permission, read-only file system, the path is a directory). The message names the file and what to check.',
  SESSIONS_DATABASE_CORRUPT:
    'The database file is not a SQLite database or is damaged. The message names the file and how to recover (move it aside, restore a backup, or salvage it with `sqlite3 .recover`).',
  SESSIONS_DATABASE_IO:
    'The disk is full or the operating system reported an I/O error while reading or writing the database.',
  SESSIONS_DATABASE_BUSY: 'Another connection held the database longer than the busy timeout. Retryable.',
  SESSIONS_DATABASE_ERROR: 'Any other error reported by the database; the cause is attached.',
  SESSIONS_SCHEMA_TOO_NEW:
    'The database was written by a newer Switchboard (its schema version is higher than this build knows). Upgrade Switchboard or restore a backup.',
  SESSIONS_MIGRATION_FAILED:
    'A schema migration failed; the database was left at the previous version (each migration runs in one transaction).',
  SESSIONS_WAL_UNAVAILABLE:
    'The database could not be switched to WAL mode (for example on a network file system). The store refuses to run without it.',
  SESSIONS_LOCKED:
    'Another gateway process holds the state directory. The message names the directory and the pid (and host) holding it.',
  SESSIONS_LOCK_LOST:
    'This store no longer holds the single-instance lock (another process reclaimed it, for example after this one was suspended for a long time). Restart the gateway.',
  SESSIONS_STORE_CLOSED: 'The store was used after `close()`.',
  SESSIONS_INVALID_ARGUMENT: 'An argument is missing or has the wrong shape. The message names the argument.',
  SESSIONS_INVALID_ENTRY:
    'A transcript entry passed to `appendEntries` is malformed. The message names its index and the field.',
  SESSIONS_INVALID_CONFIG:
    'A reset-policy or maintenance setting is out of range. The message names the key path.',
  SESSIONS_NOT_FOUND: 'No session exists under the given session key.',
  SESSIONS_TRANSCRIPT_NOT_FOUND: 'No transcript exists with the given session id.',
  SESSIONS_STALE_SESSION:
    'The caller expected a different session id for this key: the session was reset or deleted meanwhile.',
  SESSIONS_TRANSCRIPT_ARCHIVED:
    'The transcript was archived by a reset or delete and accepts no more entries.',
  SESSIONS_JOURNAL_NOT_FOUND: 'No inbound journal record exists for (channel, accountId, messageId).',
  SESSIONS_JOURNAL_INVALID_TRANSITION:
    'An inbound journal record cannot move to the requested state (for example out of `replied`).',
  SESSIONS_DELIVERY_NOT_FOUND: 'No delivery receipt exists for the idempotency key.',
  SESSIONS_DELIVERY_CONFLICT:
    'The delivery was already recorded as sent with a different platform message id, or recorded without a claim.',
  SESSIONS_DISPATCHER_CLOSED: 'A message was enqueued after the dispatcher was closed.',
} as const;

/** One of the codes in {@link sessionsErrorCodes}. */
export type SessionsErrorCode = keyof typeof sessionsErrorCodes;

/** The error every operation of this package throws. */
export class SessionsError extends SwitchboardError<SessionsErrorCode> {
  constructor(code: SessionsErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
