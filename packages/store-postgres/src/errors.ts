import { SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/**
 * Every error code this package throws, with the sentence that documents it. A test checks
 * that each code used in the source is listed here. The store contract's own failures (a
 * missing session, a stale session id, a closed store…) are `SessionsError`s, as in SQLite.
 */
export const storePostgresErrorCodes = {
  STORE_POSTGRES_INVALID_URL:
    'The `storage.url` is not a postgres:// or postgresql:// connection URL. The message shows the value (password hidden).',
  STORE_POSTGRES_UNREACHABLE:
    'The PostgreSQL server did not accept a connection (refused, unknown host, authentication failed, database missing). The message names the server and the cause.',
  STORE_POSTGRES_SCHEMA_TOO_NEW:
    'The database was migrated by a newer Switchboard (its schema version is higher than this build knows). Upgrade every replica.',
  STORE_POSTGRES_MIGRATION_FAILED:
    'A schema migration failed; the database was left at the previous version (each migration runs in one transaction under the migration lock).',
  STORE_POSTGRES_FENCED:
    'A write made under a channel-account lease was refused because another replica took the lease since (its fencing token is newer): stop consuming that account.',
  STORE_POSTGRES_QUERY_FAILED:
    'Any other error reported by PostgreSQL during an operation; the message names the operation and the server error, the cause is attached.',
} as const;

/** One of the codes in {@link storePostgresErrorCodes}. */
export type StorePostgresErrorCode = keyof typeof storePostgresErrorCodes;

/** The error this package throws for database-level failures. */
export class StorePostgresError extends SwitchboardError<StorePostgresErrorCode> {
  constructor(code: StorePostgresErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}

/** The URL with its password replaced by `***`, for messages and `location`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}
