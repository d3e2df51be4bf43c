// Where the runtime's operator events go: the protocol server's sockets and, with several
// replicas, the relay to the others. The hub exists before either sink, so the runtime is
// built first and the sinks attach when they exist; an event published before a sink is
// attached has no client to reach.
import type { Broadcast, EventFilter } from '../access/event-audience.ts';

export interface EventHub {
  readonly publish: Broadcast;
  /** Adds a sink (contract: a sink never throws; it is called in the publisher's tick). */
  attach(sink: Broadcast): void;
}

export function createEventHub(): EventHub {
  const sinks: Broadcast[] = [];
  return {
    publish(event: string, payload: unknown, filter?: EventFilter) {
      for (const sink of sinks) sink(event, payload, filter);
    },
    attach(sink) {
      sinks.push(sink);
    },
  };
}
