import type { ChannelAccountStatus } from '@switchboard/hooks';

/** Keeps an account's status snapshot, with the last inbound and outbound times carried over. */
export interface StatusReporter {
  readonly current: ChannelAccountStatus;
  set(status: Omit<ChannelAccountStatus, 'lastInboundAt' | 'lastOutboundAt'>): void;
  inbound(at: number): void;
  outbound(at: number): void;
}

export function createStatusReporter(setStatus: (status: ChannelAccountStatus) => void): StatusReporter {
  let current: ChannelAccountStatus = { state: 'starting' };
  let lastInboundAt: number | undefined;
  let lastOutboundAt: number | undefined;
  const publish = (status: Omit<ChannelAccountStatus, 'lastInboundAt' | 'lastOutboundAt'>) => {
    current = {
      ...status,
      lastInboundAt,
      lastOutboundAt,
    };
    setStatus(current);
  };
  return {
    get current() {
      return current;
    },
    set: publish,
    inbound(at) {
      lastInboundAt = at;
      publish(current);
    },
    outbound(at) {
      lastOutboundAt = at;
      publish(current);
    },
  };
}
