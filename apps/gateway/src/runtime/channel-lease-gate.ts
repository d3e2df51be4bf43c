// The seam between the channel manager and a lease keeper: with several replicas on one
// PostgreSQL, a polling account starts only where its lease is held (decision 0021).

/** What a lease gate calls back for one account it holds the lease of (or stops holding). */
export interface ChannelLeaseHandlers {
  /** Starts the account (the lease is held); resolves once started or its start failed. */
  start(): Promise<void>;
  /** Stops the account: the lease is no longer this replica's. `reason` goes into its status. */
  stop(reason: string): Promise<void>;
  /** The account waits for the lease (another replica runs it); `detail` says who or why. */
  standby(detail: string): void;
}

/** An account under a lease gate. */
export interface ChannelLeaseHold {
  /** Resolves after the first attempt to take the lease (and the start, when it was taken). */
  readonly ready: Promise<void>;
  /** Stops watching the lease and gives it up; the caller has stopped the account first. */
  release(): Promise<void>;
}

/**
 * One consumer per polling account across replicas (decision 0021; replicas/channel-lease-keeper.ts).
 * Contract: `needsLease` says whether an account consumes by polling (webhook accounts run
 * everywhere); `hold` calls `handlers.start` once this replica holds the account's lease (at
 * once or on a later poll) and `handlers.stop` when the lease stops being its own, never two
 * of them at a time and nothing after `release`.
 */
export interface ChannelLeaseGate {
  needsLease(channel: string, config: Readonly<Record<string, unknown>>): boolean;
  hold(
    account: { readonly channel: string; readonly accountId: string },
    handlers: ChannelLeaseHandlers,
  ): ChannelLeaseHold;
}
