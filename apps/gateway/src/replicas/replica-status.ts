// What `status` reports about the replicas sharing the PostgreSQL store (decision 0021):
// each registered replica with its host, pid, start time, whether it is alive, the session
// leases it holds, and the channel accounts it consumes (their leases, with fencing tokens). Only built when `storage.kind` is `postgres`.
import type { PostgresSessionStore } from '@switchboard/store-postgres';

/** Sessions listed per replica; the count is always complete. */
const listedSessions = 20;

interface ReplicaSummary {
  readonly instanceId: number;
  readonly ownerId: string;
  readonly hostname: string;
  readonly pid: number;
  readonly startedAt: number;
  readonly alive: boolean;
  /** This gateway. */
  readonly self: boolean;
  readonly sessionLeases: { readonly count: number; readonly sessions: readonly string[] };
  /** Polling channel accounts this replica runs: `channel:accountId` with the lease's fencing token. */
  readonly channelLeases: readonly {
    readonly channel: string;
    readonly accountId: string;
    readonly fencingToken: number;
    readonly acquiredAt: number;
  }[];
}

interface ReplicasStatus {
  readonly self: number;
  readonly replicas: readonly ReplicaSummary[];
}

/** The seam `status` calls. Contract: one consistent-enough read of instances and leases; never changes state. */
export type ReplicaStatusReader = () => Promise<ReplicasStatus>;

export function createReplicaStatusReader(store: PostgresSessionStore): ReplicaStatusReader {
  return async () => {
    const [instances, leases, channelLeases] = await Promise.all([
      store.listInstances(),
      store.listSessionLeases(),
      store.listChannelLeases(),
    ]);
    return {
      self: store.instanceId,
      replicas: instances.map((instance) => {
        const held = leases.filter((lease) => lease.ownerId === instance.ownerId);
        return {
          ...instance,
          self: instance.ownerId === store.ownerId,
          sessionLeases: {
            count: held.length,
            sessions: held.slice(0, listedSessions).map((lease) => lease.sessionKey),
          },
          channelLeases: channelLeases
            .filter((lease) => lease.ownerId === instance.ownerId)
            .map(({ channel, accountId, fencingToken, acquiredAt }) => ({
              channel,
              accountId,
              fencingToken,
              acquiredAt,
            })),
        };
      }),
    };
  };
}

/** The `switchboard status` lines for `status.replicas` (none on SQLite). */
export function formatReplicas(value: unknown): string[] {
  const status = value as ReplicasStatus | undefined;
  if (status === undefined || !Array.isArray(status.replicas)) return [];
  return [
    `Replicas (PostgreSQL): ${status.replicas.filter((replica) => replica.alive).length} alive of ${status.replicas.length} registered`,
    ...status.replicas.map(
      (replica) =>
        `  #${replica.instanceId}${replica.self ? ' (this gateway)' : ''} ${replica.hostname} pid ${replica.pid}, started ${new Date(replica.startedAt).toISOString()}, ${replica.alive ? 'alive' : 'gone'}, ${replica.sessionLeases.count} session lease${replica.sessionLeases.count === 1 ? '' : 's'}${replica.sessionLeases.count === 0 ? '' : `: ${replica.sessionLeases.sessions.join(', ')}${replica.sessionLeases.count > replica.sessionLeases.sessions.length ? ', …' : ''}`}${channelLeaseText(replica.channelLeases ?? [])}`,
    ),
  ];
}

/** `; runs telegram:bot1 (token 3)` for the channel accounts a replica consumes. */
function channelLeaseText(leases: ReplicaSummary['channelLeases']): string {
  if (leases.length === 0) return '';
  return `; runs ${leases.map((lease) => `${lease.channel}:${lease.accountId} (token ${lease.fencingToken})`).join(', ')}`;
}
