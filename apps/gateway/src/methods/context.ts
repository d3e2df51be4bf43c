import type { AuthStatusSnapshot } from '@switchboard/auth-profiles';
import type { HookRunner, Logger, PluginRegistry } from '@switchboard/hooks';
import type { Durability, SessionDispatcher, SessionStore } from '@switchboard/sessions';
import type { PairingStore } from '../access/pairing.ts';
import type { GatewayConfig } from '../config/schema.ts';
import type { ReplicaStatusReader } from '../replicas/replica-status.ts';
import type { ChannelManager } from '../runtime/channels.ts';
import type { Inbound } from '../runtime/inbound.ts';
import type { ModelCatalog } from '../runtime/models.ts';
import type { NotAnsweredLog } from '../runtime/not-answered.ts';
import type { SendOutbound } from '../runtime/outbound.ts';
import type { RunRegistry } from '../runtime/runs.ts';
import type { TurnInput } from '../runtime/turn-input.ts';

/** What protocol methods can reach. */
export interface MethodServices {
  readonly config: GatewayConfig;
  readonly configPath: string | undefined;
  readonly stateDirectory: string;
  /** The store's commit durability (`session.durability`). */
  readonly durability: Durability;
  readonly version: string;
  readonly startedAt: number;
  readonly store: SessionStore;
  readonly hooks: HookRunner;
  readonly registry: PluginRegistry;
  readonly catalog: ModelCatalog;
  readonly channels: ChannelManager;
  readonly pairing: PairingStore;
  readonly runs: RunRegistry;
  /** Messages the gateway decided not to answer, and why. */
  readonly notAnswered: NotAnsweredLog;
  readonly inbound: Inbound;
  readonly send: SendOutbound;
  readonly dispatcher: SessionDispatcher<TurnInput>;
  readonly logger: Logger;
  readonly now: () => number;
  readonly isShuttingDown: () => boolean;
  readonly pluginLoadReport: () => {
    loaded: readonly string[];
    failed: ReadonlyArray<{ plugin?: string; source: string; error: string }>;
  };
  readonly authProfilesStatus: () => AuthStatusSnapshot;
  readonly compactSession: (sessionKey: string, agentId: string) => Promise<Record<string, unknown>>;
  /** Several replicas on one PostgreSQL: each replica and its session leases (decision 0021). */
  readonly replicaStatus?: ReplicaStatusReader;
  /** Several replicas: asks the replica holding the session to abort its run (`chat.abort`). */
  readonly abortOnReplica?: (
    sessionKey: string,
    runId?: string,
  ) => Promise<{ readonly aborted: boolean; readonly runIds: readonly string[] }>;
}
