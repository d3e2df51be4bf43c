// The connection state machine alone: a scripted socket per attempt, timers moved by hand.
import { noopLogger } from '@switchboard/hooks';
import type { AuthenticationState, ConnectionState } from 'baileys';
import { describe, expect, it } from 'vitest';
import { createManualTimers } from '../../test/start-context.ts';
import type { WhatsAppError } from '../errors.ts';
import type { WhatsAppAuthStore } from './auth-state.ts';
import {
  type BaileysConnectionState,
  type ConnectionSupervisor,
  createConnectionSupervisor,
  describeState,
} from './connection.ts';
import type { WhatsAppSocket } from './socket.ts';

interface ScriptedSocket extends WhatsAppSocket {
  emit(event: 'connection.update', update: Partial<ConnectionState>): void;
  emit(event: 'creds.update', update: Record<string, unknown>): void;
  readonly ended: boolean;
  readonly pairingRequests: string[];
}

function scriptedSocket(): ScriptedSocket {
  const listeners = new Map<string, Set<(value: never) => void>>();
  let ended = false;
  let user: { id: string; name?: string } | undefined;
  const pairingRequests: string[] = [];
  const socket = {
    ev: {
      on(event: string, listener: (value: never) => void) {
        if (!listeners.has(event)) listeners.set(event, new Set());
        listeners.get(event)!.add(listener);
      },
      off(event: string, listener: (value: never) => void) {
        listeners.get(event)?.delete(listener);
      },
    },
    get user() {
      return user;
    },
    emit(event: string, value: unknown) {
      if (event === 'connection.update' && (value as Partial<ConnectionState>).connection === 'open') {
        user = { id: '15550009999:3@s.whatsapp.net', name: 'Bot' };
      }
      for (const listener of listeners.get(event) ?? []) listener(value as never);
    },
    get ended() {
      return ended;
    },
    pairingRequests,
    async sendMessage() {
      return undefined;
    },
    async sendPresenceUpdate() {},
    async readMessages() {},
    async requestPairingCode(phoneNumber: string) {
      pairingRequests.push(phoneNumber);
      return 'ABCD1234';
    },
    async groupMetadata() {
      throw new Error('not scripted');
    },
    async updateMediaMessage() {
      throw new Error('not scripted');
    },
    end() {
      ended = true;
    },
  };
  return socket as unknown as ScriptedSocket;
}

const closeWith = (statusCode: number) => ({
  connection: 'close' as const,
  lastDisconnect: {
    error: Object.assign(new Error(`closed ${statusCode}`), { output: { statusCode } }),
    date: new Date(),
  },
});

interface Harness {
  readonly supervisor: ConnectionSupervisor;
  readonly sockets: ScriptedSocket[];
  readonly states: BaileysConnectionState[];
  readonly timers: ReturnType<typeof createManualTimers>;
  readonly auth: { opened: number; cleared: number; saved: number };
  /** Lets the supervisor's async steps (opening the credentials) run. */
  settle(): Promise<void>;
  current(): ScriptedSocket;
}

function harness(
  options: { random?: () => number; pairingPhoneNumber?: string; failCreate?: number } = {},
): Harness {
  const timers = createManualTimers();
  const sockets: ScriptedSocket[] = [];
  const states: BaileysConnectionState[] = [];
  const auth = { opened: 0, cleared: 0, saved: 0 };
  let failures = options.failCreate ?? 0;
  const store = (): WhatsAppAuthStore => ({
    state: { creds: {}, keys: {} } as unknown as AuthenticationState,
    async saveCreds() {
      auth.saved += 1;
    },
    isRegistered: () => true,
    async clear() {
      auth.cleared += 1;
    },
  });
  const supervisor = createConnectionSupervisor({
    makeSocket: () => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('socket could not be created');
      }
      const socket = scriptedSocket();
      sockets.push(socket);
      return socket;
    },
    openAuth: async () => {
      auth.opened += 1;
      return store();
    },
    socketConfig: {},
    pairingPhoneNumber: options.pairingPhoneNumber,
    backoff: { initialMs: 1_000, maxMs: 60_000, factor: 2, jitter: 0.2 },
    timers,
    random: options.random ?? (() => 0.5),
    logger: noopLogger,
    onState: (state) => states.push(state),
    onSocket: () => () => {},
  });
  const settle = async () => {
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  return { supervisor, sockets, states, timers, auth, settle, current: () => sockets.at(-1)! };
}

const backoffDelays = (states: readonly BaileysConnectionState[]) =>
  states.flatMap((state) => (state.type === 'backing_off' ? [state.delayMs] : []));

describe('the linked-device connection supervisor', () => {
  it('backs off exponentially on disconnects other than logout, up to the maximum', async () => {
    const { supervisor, timers, states, settle, current, sockets } = harness();
    supervisor.start();
    await settle();
    for (let attempt = 0; attempt < 9; attempt += 1) {
      current().emit('connection.update', closeWith(attempt % 2 === 0 ? 408 : 503));
      const delay = timers.pending()[0]!;
      timers.advance(delay);
      await settle();
    }
    expect(backoffDelays(states)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
    expect(sockets).toHaveLength(10);
    expect(
      states
        .filter((state) => state.type === 'backing_off')
        .map((state) => state.type === 'backing_off' && state.reason),
    ).toContain('service unavailable');
  });

  it('starts the backoff over once the connection opened', async () => {
    const { supervisor, timers, states, settle, current } = harness();
    supervisor.start();
    await settle();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      current().emit('connection.update', closeWith(428));
      timers.advance(timers.pending()[0]!);
      await settle();
    }
    current().emit('connection.update', { connection: 'open' });
    expect(supervisor.state).toEqual({
      type: 'open',
      user: { id: '15550009999:3@s.whatsapp.net', name: 'Bot' },
    });
    current().emit('connection.update', closeWith(408));
    expect(backoffDelays(states)).toEqual([1_000, 2_000, 4_000, 1_000]);
  });

  it('reconnects at once when WhatsApp asks for a restart (515), without counting a failure', async () => {
    const { supervisor, timers, states, settle, current, sockets } = harness();
    supervisor.start();
    await settle();
    current().emit('connection.update', closeWith(515));
    expect(timers.pending()).toEqual([0]);
    timers.advance(0);
    await settle();
    expect(sockets).toHaveLength(2);
    expect(states.some((state) => state.type === 'backing_off')).toBe(false);
    current().emit('connection.update', closeWith(408));
    expect(backoffDelays(states)).toEqual([1_000]);
  });

  it('stops for good on logout (401): clears the credentials, rejects waiting sends, schedules nothing', async () => {
    const { supervisor, timers, states, settle, current, sockets, auth } = harness();
    supervisor.start();
    await settle();
    current().emit('connection.update', { connection: 'open' });
    const opened = await supervisor.waitForOpen(1_000);
    expect(opened).toBe(current());
    current().emit('connection.update', closeWith(408));
    const waiting = supervisor.waitForOpen(30_000).catch((error: unknown) => error);
    timers.advance(timers.pending().find((delay) => delay < 30_000)!);
    await settle();
    current().emit('connection.update', closeWith(401));
    await settle();
    const error = (await waiting) as WhatsAppError;
    expect(error.code).toBe('WHATSAPP_LOGGED_OUT');
    expect(error.retryable).toBe(false);
    expect(states.at(-1)).toEqual({ type: 'logged_out', reason: 'logged out' });
    expect(auth.cleared).toBe(1);
    expect(timers.pending()).toEqual([]);
    timers.advance(10 * 60_000);
    await settle();
    expect(sockets).toHaveLength(2);
    await expect(supervisor.waitForOpen(10)).rejects.toMatchObject({ code: 'WHATSAPP_LOGGED_OUT' });
  });

  it('lets a send wait for the connection, and fails it (retryable) when it does not open in time', async () => {
    const { supervisor, timers, settle, current } = harness();
    supervisor.start();
    await settle();
    const late = supervisor.waitForOpen(5_000).catch((error: unknown) => error);
    const onTime = supervisor.waitForOpen(20_000);
    timers.advance(5_000);
    const error = (await late) as WhatsAppError;
    expect(error.code).toBe('WHATSAPP_NOT_CONNECTED');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('connecting');
    current().emit('connection.update', { connection: 'open' });
    await expect(onTime).resolves.toBe(current());
  });

  it('stops during a backoff: the timer is cancelled, the socket not reopened, waiters released', async () => {
    const { supervisor, timers, states, settle, current, sockets } = harness();
    supervisor.start();
    await settle();
    current().emit('connection.update', closeWith(408));
    const waiting = supervisor.waitForOpen(60_000).catch((error: unknown) => error);
    await supervisor.stop();
    expect(((await waiting) as WhatsAppError).code).toBe('WHATSAPP_NOT_CONNECTED');
    expect(states.at(-1)).toEqual({ type: 'stopped' });
    expect(timers.pending()).toEqual([]);
    timers.advance(60_000);
    await settle();
    expect(sockets).toHaveLength(1);
  });

  it('closes the open socket on stop and ignores what it reports afterwards', async () => {
    const { supervisor, states, settle, current } = harness();
    supervisor.start();
    await settle();
    const socket = current();
    socket.emit('connection.update', { connection: 'open' });
    await supervisor.stop();
    expect(socket.ended).toBe(true);
    socket.emit('connection.update', closeWith(408));
    expect(states.at(-1)).toEqual({ type: 'stopped' });
  });

  it('ignores events from a socket it already replaced', async () => {
    const { supervisor, timers, states, settle, sockets } = harness();
    supervisor.start();
    await settle();
    const first = sockets[0]!;
    first.emit('connection.update', closeWith(515));
    timers.advance(0);
    await settle();
    const count = states.length;
    first.emit('connection.update', closeWith(408));
    first.emit('connection.update', { connection: 'open' });
    expect(states).toHaveLength(count);
  });

  it('backs off when the socket cannot even be created', async () => {
    const { supervisor, timers, states, settle, sockets } = harness({ failCreate: 2 });
    supervisor.start();
    await settle();
    timers.advance(timers.pending()[0]!);
    await settle();
    timers.advance(timers.pending()[0]!);
    await settle();
    expect(backoffDelays(states)).toEqual([1_000, 2_000]);
    expect(
      states
        .filter((state) => state.type === 'backing_off')
        .every((state) => state.type === 'backing_off' && state.reason === 'socket could not be created'),
    ).toBe(true);
    expect(sockets).toHaveLength(1);
  });

  it('offers a fresh QR code soon after one expired unscanned, instead of backing off further', async () => {
    const { supervisor, timers, states, settle, current } = harness();
    supervisor.start();
    await settle();
    current().emit('connection.update', closeWith(408));
    timers.advance(1_000);
    await settle();
    current().emit('connection.update', closeWith(408));
    timers.advance(2_000);
    await settle();
    current().emit('connection.update', { qr: 'https://wa.me/settings/linked_devices#2@ref,a,b,c,1' });
    expect(supervisor.state).toMatchObject({ type: 'linking', method: 'qr' });
    current().emit('connection.update', closeWith(408));
    expect(backoffDelays(states)).toEqual([1_000, 2_000, 1_000]);
  });

  it('asks for a pairing code once per socket when pairingPhoneNumber is set', async () => {
    const { supervisor, settle, current } = harness({ pairingPhoneNumber: '+1 (555) 000-9999' });
    supervisor.start();
    await settle();
    current().emit('connection.update', { qr: 'one' });
    current().emit('connection.update', { qr: 'two' });
    await settle();
    expect(current().pairingRequests).toEqual(['15550009999']);
    expect(supervisor.state).toEqual({ type: 'linking', method: 'pairing-code', pairingCode: 'ABCD1234' });
    expect(describeState(supervisor.state)).toBe('waiting for the pairing code');
  });

  it('saves the credentials on every creds.update, and opens them only once', async () => {
    const { supervisor, timers, settle, current, auth } = harness();
    supervisor.start();
    await settle();
    current().emit('creds.update', { me: { id: 'x' } });
    current().emit('creds.update', { account: {} });
    current().emit('connection.update', closeWith(515));
    timers.advance(0);
    await settle();
    expect(auth.saved).toBe(2);
    expect(auth.opened).toBe(1);
  });

  it('spreads reconnect delays by the jitter', async () => {
    for (const [random, expected] of [
      [0, 800],
      [1, 1_200],
    ] as const) {
      const { supervisor, states, settle, current } = harness({ random: () => random });
      supervisor.start();
      await settle();
      current().emit('connection.update', closeWith(408));
      expect(backoffDelays(states)).toEqual([expected]);
    }
  });
});
