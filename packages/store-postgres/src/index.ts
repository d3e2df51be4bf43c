// @switchboard/store-postgres: every session store interface on PostgreSQL, for gateways
// that share one database (several replicas) — the gateway loads it when `storage.kind` is
// `postgres`.

// One consumer per channel account (decision 0021): the gateway's channel-lease keeper.
export type { ChannelLease, ChannelLeaseHolder, ChannelLeaseStore } from './channel-leases.ts';
// Errors.
export { StorePostgresError, type StorePostgresErrorCode, storePostgresErrorCodes } from './errors.ts';
// For `status`: the replicas sharing the database.
export type { StoreInstance } from './instance.ts';
// For the gateway's replica coordination: session leases and LISTEN/NOTIFY.
export type { NotificationListener, Notifications } from './notifications.ts';
// For the gateway: open the store.
export {
  createPostgresSessionStore,
  type PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './postgres-store.ts';
export type { HandOver, SessionAdmission, SessionLease, SessionLeaseStore } from './session-leases.ts';
export { workChannel } from './session-leases.ts';
