// Message delivery of the fake WhatsApp: what people write reaches the open connection live
// (a `notify` upsert); what they wrote while no device was connected waits in a queue and
// reaches the next login as the offline backlog (an `append` upsert, then `offline`).
import { TestkitError } from '../../shared/errors.ts';
import type { WireMessage } from '../protocol.ts';
import type { Connection, WhatsAppConnections } from './connections.ts';
import type { WhatsAppWorld } from './world.ts';

export class MessageDelivery {
  readonly #world: WhatsAppWorld;
  readonly #connections: WhatsAppConnections;
  readonly #queue: WireMessage[] = [];

  constructor(world: WhatsAppWorld, connections: WhatsAppConnections) {
    this.#world = world;
    this.#connections = connections;
  }

  /** Records a message a person wrote and delivers it (live, or at the next login). */
  deliver(wire: WireMessage): void {
    const id = (wire.json.key as { id: string }).id;
    this.#world.delivered.set(id, wire);
    this.#queue.push(wire);
    this.flush();
  }

  /** Delivers an already delivered message again, with the same id. */
  redeliver(messageId: string): void {
    const wire = this.#world.delivered.get(messageId);
    if (wire === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `redeliver: no delivered message ${messageId}`);
    this.#queue.push(wire);
    this.flush();
  }

  // Delivers what is queued to the open connection. A message written while a device is
  // connected reaches it live: Baileys emits it as a `notify` upsert.
  flush(): void {
    const open = this.#connections.open();
    if (open === undefined || this.#queue.length === 0 || open.socket.readyState !== open.socket.OPEN) return;
    const messages = this.#queue.splice(0, this.#queue.length);
    this.#connections.send(open, { type: 'upsert', upsertType: 'notify', messages });
  }

  // Right after a login: what was written while no device was connected. WhatsApp sends those
  // stanzas marked `offline`, and Baileys 7 emits them as `append` upserts (messages-recv.js,
  // `upsertMessage(msg, node.attrs.offline ? 'append' : 'notify')`), buffered into one upsert
  // until the server's `<ib><offline count=…/></ib>` says the backlog is done, at which point
  // it flushes and reports `receivedPendingNotifications: true` (socket.js).
  flushOffline(connection: Connection): void {
    const messages = this.#queue.splice(0, this.#queue.length);
    if (messages.length > 0)
      this.#connections.send(connection, { type: 'upsert', upsertType: 'append', messages });
    this.#connections.send(connection, { type: 'offline', count: messages.length });
  }
}
