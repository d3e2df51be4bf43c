// The linked device's connections to the fake WhatsApp: the hello handshake, linking (QR
// codes, pairing codes, pair-success and the restart that follows), logins, and the faults
// on them (refused connections, logout from the phone, dropped connections).
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import { TestkitError } from '../../shared/errors.ts';
import type { SocketFrame, WireError, WireMe, WorldFrame } from '../protocol.ts';
import type { FakeWhatsAppLinkState } from './types.ts';

/** One socket connected to the world. */
export interface Connection {
  readonly socket: WebSocket;
  state: 'hello' | 'linking' | 'open' | 'closed';
  qrTimer?: NodeJS.Timeout;
  refsLeft: number;
  pairingCode?: string;
}

/** What the connections need from the rest of the fake. */
export interface ConnectionsOptions {
  readonly botNumber: string;
  readonly botLid: string;
  readonly botName: string;
  /** QR codes offered per connection before it closes with 408. */
  readonly qrRefCount: number;
  readonly qrIntervalMs: number;
  /** The phone links as soon as a QR code or pairing code is shown. */
  readonly autoLink: boolean;
  /** Called after each change a wait may be watching (a connection, a QR ref, a login). */
  readonly notify: () => void;
  /** Called right after a login with the connection just opened (the offline backlog goes there). */
  readonly onLogin: (connection: Connection) => void;
}

const crockford = '123456789ABCDEFGHJKLMNPQRSTVWXYZ';

export class WhatsAppConnections {
  readonly #options: ConnectionsOptions;
  readonly #connections = new Set<Connection>();
  readonly #qrRefs: string[] = [];
  readonly #pairingCodes: string[] = [];
  #linkedMe: WireMe | undefined;
  #deviceNumber = 0;
  #logins = 0;
  #refusals: { count: number; statusCode: number } | undefined;

  constructor(options: ConnectionsOptions) {
    this.#options = options;
  }

  /** Registers a socket that just connected; it must say hello first. */
  add(socket: WebSocket): Connection {
    const connection: Connection = { socket, state: 'hello', refsLeft: this.#options.qrRefCount };
    this.#connections.add(connection);
    return connection;
  }

  /** Forgets a connection whose socket closed. */
  remove(connection: Connection): void {
    clearTimeout(connection.qrTimer);
    connection.state = 'closed';
    this.#connections.delete(connection);
  }

  send(connection: Connection, frame: WorldFrame): void {
    if (connection.socket.readyState === connection.socket.OPEN)
      connection.socket.send(JSON.stringify(frame));
  }

  /** Closes a connection with a disconnect reason, as WhatsApp ends a stream. */
  close(connection: Connection, error: WireError): void {
    if (connection.state === 'closed') return;
    clearTimeout(connection.qrTimer);
    this.send(connection, { type: 'close', error });
    connection.state = 'closed';
    connection.socket.close();
    this.#connections.delete(connection);
    this.#options.notify();
  }

  /** The connection that is logged in and open, if any. */
  open(): Connection | undefined {
    return [...this.#connections].find(
      (connection) => connection.state === 'open' && connection.socket.readyState === connection.socket.OPEN,
    );
  }

  onHello(connection: Connection, frame: Extract<SocketFrame, { type: 'hello' }>): void {
    const refusals = this.#refusals;
    if (refusals !== undefined && refusals.count > 0) {
      refusals.count -= 1;
      this.close(connection, { statusCode: refusals.statusCode, message: 'Connection Failure' });
      return;
    }
    if (!frame.registered) {
      connection.state = 'linking';
      this.#offerQr(connection);
      return;
    }
    const user = frame.me?.id.split('@')[0]?.split(':')[0];
    const linkedMe = this.#linkedMe;
    if (linkedMe === undefined || user !== this.#options.botNumber || frame.me?.id !== linkedMe.id) {
      this.close(connection, { statusCode: 401, message: 'Connection Failure' });
      return;
    }
    for (const other of this.#connections) {
      if (other !== connection && other.state === 'open') {
        this.close(other, { statusCode: 440, message: 'Stream Errored (conflict)' });
      }
    }
    connection.state = 'open';
    this.#logins += 1;
    this.send(connection, { type: 'open', me: linkedMe });
    this.#options.onLogin(connection);
    this.#options.notify();
  }

  /** Hands a linking connection a pairing code (Baileys' `requestPairingCode`). */
  createPairingCode(connection: Connection): string {
    const code = Array.from(randomBytes(8), (byte) => crockford[byte % 32]).join('');
    connection.pairingCode = code;
    this.#pairingCodes.push(code);
    this.#options.notify();
    if (this.#options.autoLink) setTimeout(() => this.enterPairingCode(code), 5);
    return code;
  }

  /** The phone enters a pairing code. */
  enterPairingCode(code: string): void {
    const connection = [...this.#connections].find(
      (candidate) => candidate.state === 'linking' && candidate.pairingCode === code,
    );
    if (connection === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `no device is waiting for pairing code ${code}`);
    this.#pairSuccess(connection);
  }

  /** The phone scans the QR code being shown. */
  scanQr(): void {
    const connection = [...this.#connections].find((candidate) => candidate.state === 'linking');
    if (connection === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', 'scanQr: no device is showing a QR code');
    this.#pairSuccess(connection);
  }

  /** The phone removes the linked device: open connections close with 401. */
  logoutDevice(): void {
    this.#linkedMe = undefined;
    for (const connection of [...this.#connections]) {
      if (connection.state === 'open')
        this.close(connection, { statusCode: 401, message: 'Stream Errored (conflict)' });
    }
  }

  /** WhatsApp drops every connection with this disconnect reason. */
  disconnect(statusCode: number, message: string): void {
    for (const connection of [...this.#connections]) this.close(connection, { statusCode, message });
  }

  refuseNextConnections(count: number, statusCode: number): void {
    this.#refusals = { count, statusCode };
  }

  get link(): FakeWhatsAppLinkState {
    return {
      linked: this.#linkedMe !== undefined,
      connections: this.#connections.size,
      open: this.open() !== undefined,
      qrRefs: [...this.#qrRefs],
      pairingCodes: [...this.#pairingCodes],
      logins: this.#logins,
    };
  }

  /** Cuts every connection without a close frame (the fake is closing). */
  terminateAll(): void {
    for (const connection of this.#connections) {
      clearTimeout(connection.qrTimer);
      connection.socket.terminate();
    }
    this.#connections.clear();
  }

  #pairSuccess(connection: Connection): void {
    this.#deviceNumber += 1;
    const { botNumber, botLid, botName } = this.#options;
    this.#linkedMe = {
      id: `${botNumber}:${this.#deviceNumber}@s.whatsapp.net`,
      lid: `${botLid}:${this.#deviceNumber}@lid`,
      name: botName,
    };
    clearTimeout(connection.qrTimer);
    this.send(connection, { type: 'pair-success', me: this.#linkedMe });
    // WhatsApp then ends the stream and the client reconnects with its new credentials.
    setTimeout(
      () => this.close(connection, { statusCode: 515, message: 'Stream Errored (restart required)' }),
      5,
    );
    this.#options.notify();
  }

  #offerQr(connection: Connection): void {
    if (connection.state !== 'linking') return;
    if (connection.refsLeft === 0) {
      this.close(connection, { statusCode: 408, message: 'QR refs attempts ended' });
      return;
    }
    connection.refsLeft -= 1;
    const ref = `2@${randomBytes(24).toString('base64')}`;
    this.#qrRefs.push(ref);
    this.send(connection, { type: 'qr', ref });
    this.#options.notify();
    if (this.#options.autoLink && connection.pairingCode === undefined) {
      setTimeout(() => {
        if (connection.state === 'linking' && connection.pairingCode === undefined)
          this.#pairSuccess(connection);
      }, 5);
    }
    connection.qrTimer = setTimeout(() => this.#offerQr(connection), this.#options.qrIntervalMs);
    connection.qrTimer.unref();
  }
}
