// The gateway's storage, opened first: the session store (SQLite on one host, PostgreSQL for
// several replicas), with PostgreSQL the replicas' coordination (session leases, channel
// leases with fencing, the run relay: decision 0021), and the inbound journal with what the
// last process left unanswered, listed before anything is admitted (decision 0004).
import type { Logger } from '@switchboard/hooks';
import type { Durability, InboundRecord, SessionStore } from '@switchboard/sessions';
import type { PostgresSessionStore } from '@switchboard/store-postgres';
import type { GatewayConfig } from '../config/schema.ts';
import type { ChannelLeaseKeeper } from '../replicas/channel-lease-keeper.ts';
import type { ReplicaStatusReader } from '../replicas/replica-status.ts';
import type { createRunRelay } from '../replicas/run-relay.ts';
import type { createSessionCoordinator } from '../replicas/session-coordinator.ts';
import { createInboundJournal, type InboundJournal } from '../runtime/journal.ts';
import { openSessionStore } from '../runtime/session-store.ts';

type RunRelay = ReturnType<typeof createRunRelay>;
type SessionCoordinator = ReturnType<typeof createSessionCoordinator>;

export interface GatewayStorageOptions {
  readonly config: GatewayConfig;
  readonly stateDirectory: string;
  readonly durability: Durability;
  readonly now?: () => number;
  readonly logger: Logger;
}

/** The replicas' coordination, present only when the store is shared (PostgreSQL). */
export interface ReplicaServices {
  /** What `status` lists of the replicas and their leases. */
  readonly readStatus: ReplicaStatusReader;
  readonly channelLeases: ChannelLeaseKeeper;
  readonly relay: RunRelay;
  readonly coordinator: SessionCoordinator;
  /** Start-up is over: the store's instance lock goes from its start-up timeout to `livenessTimeoutMs`. */
  started(): Promise<void>;
}

export interface GatewayStorage {
  /** The store every part uses (with replicas: fenced for leased channel accounts). */
  readonly store: SessionStore;
  readonly durability: Durability;
  readonly journal: InboundJournal;
  /** What the last process left unanswered (resumed once the gateway is up). */
  readonly leftUnanswered: InboundRecord[];
  readonly replicas: ReplicaServices | undefined;
  /**
   * Resolves with the reason when this replica cannot go on: its PostgreSQL instance lock is
   * gone, so every store operation fails and the other replicas have taken its work over. The
   * gateway then stops, for its supervisor to start a fresh replica. Never resolves on SQLite.
   */
  readonly unrecoverable: Promise<Error>;
}

export async function openGatewayStorage(options: GatewayStorageOptions): Promise<GatewayStorage> {
  const { logger } = options;
  let lockLost: (error: Error) => void = () => undefined;
  const unrecoverable = new Promise<Error>((resolve) => {
    lockLost = resolve;
  });
  const opened = await openSessionStore({
    storage: options.config.storage,
    stateDirectory: options.stateDirectory,
    durability: options.durability,
    now: options.now,
    logger,
    onLockLost: (error) => {
      logger.error(`storage: ${error.message}`);
      lockLost(error);
    },
  });
  const replicas = opened.shared === undefined ? undefined : await replicaServices(opened.shared, logger);
  // One consumer per polling channel account: its journal writes and sends carry the lease's token.
  const store = replicas?.channelLeases.fence(opened.store) ?? opened.store;
  const local = createInboundJournal({ store, logger });
  const journal = replicas?.coordinator.journal(local) ?? local;
  const leftUnanswered = await journal.unfinished();
  return { store, durability: opened.durability, journal, leftUnanswered, replicas, unrecoverable };
}

async function replicaServices(shared: PostgresSessionStore, logger: Logger): Promise<ReplicaServices> {
  const module = await import('../replicas/index.ts');
  const relay = module.createRunRelay({ store: shared, logger });
  const coordinator = module.createSessionCoordinator({
    store: shared,
    logger,
    onHandedOver: (input) => {
      if (input.runId !== undefined) relay.handedOver(input.runId);
    },
  });
  return {
    readStatus: module.createReplicaStatusReader(shared),
    // A taken-over account starts once the gone holder's messages are admitted (their order).
    channelLeases: module.createChannelLeaseKeeper({
      store: shared,
      logger,
      beforeStart: () => coordinator.catchUp(),
    }),
    relay,
    coordinator,
    started: () => shared.started(),
  };
}
