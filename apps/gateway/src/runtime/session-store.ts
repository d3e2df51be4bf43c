// Opens the session store `storage` names: SQLite in the state directory (the default, one
// gateway), or PostgreSQL shared by several replicas. The PostgreSQL package and its driver
// are imported only when configured.
import type { Logger } from '@switchboard/hooks';
import { createSqliteSessionStore, type Durability, type SessionStore } from '@switchboard/sessions';
import type { PostgresSessionStore } from '@switchboard/store-postgres';
import type { StorageConfig } from '../config/schema-storage.ts';

export interface OpenSessionStoreOptions {
  readonly storage: StorageConfig;
  readonly stateDirectory: string;
  /** SQLite's commit durability (`session.durability`). */
  readonly durability: Durability;
  readonly now?: () => number;
  readonly logger: Logger;
  /**
   * PostgreSQL: the store lost its instance lock (other replicas take its work over); called
   * once. The gateway cannot go on with this store and stops, for its supervisor to restart it.
   */
  readonly onLockLost?: (error: Error) => void;
}

export interface OpenedSessionStore {
  readonly store: SessionStore;
  /** What a resolved write survives: SQLite's setting, or `full` on PostgreSQL (committed on the server). */
  readonly durability: Durability;
  /** The same store when it is shared by several replicas (PostgreSQL): leases, NOTIFY, instances. */
  readonly shared?: PostgresSessionStore;
}

/** The instance lock's timeout while a replica starts (see `startupLivenessTimeoutMs`). */
const startupLivenessTimeoutMs = 60_000;

export async function openSessionStore(options: OpenSessionStoreOptions): Promise<OpenedSessionStore> {
  const { storage, logger } = options;
  if (storage.kind === 'postgres') {
    const { createPostgresSessionStore } = await import('@switchboard/store-postgres');
    const store = await createPostgresSessionStore({
      url: storage.url,
      poolSize: storage.poolSize,
      livenessTimeoutMs: storage.livenessTimeoutMs,
      // Loading the channels and plugins can keep a loaded host busy for seconds: the lock is
      // not lost for that (the short timeout applies once the gateway has started).
      startupLivenessTimeoutMs: startupLivenessTimeoutMs,
      now: options.now,
      onConnectionError: (error) => logger.warn(`storage: a PostgreSQL connection failed: ${error.message}`),
      onLockLost: options.onLockLost,
    });
    logger.info(
      `storage: PostgreSQL ${store.location} (replica ${store.instanceId}, owner ${store.ownerId})`,
    );
    return { store, durability: 'full', shared: store };
  }
  const store = await createSqliteSessionStore({
    stateDirectory: options.stateDirectory,
    durability: options.durability,
    now: options.now,
  });
  return { store, durability: store.durability };
}
