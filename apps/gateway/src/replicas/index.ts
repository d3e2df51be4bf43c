// Replica coordination for gateways sharing one PostgreSQL (decision 0021). Imported
// dynamically by the gateway only when `storage.kind` is `postgres`.

export { createChannelLeaseKeeper } from './channel-lease-keeper.ts';
export { createReplicaStatusReader } from './replica-status.ts';
export { createRunRelay } from './run-relay.ts';
export { createSessionCoordinator } from './session-coordinator.ts';
