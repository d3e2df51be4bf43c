// The supervised linked-device connection: one Baileys socket at a time, an explicit state,
// and what to do on each disconnect reason (logged out: stop and ask to relink; restart
// required: reconnect at once; anything else: reconnect with exponential backoff).
import type { Logger } from '@switchboard/hooks';
import type { ConnectionState } from 'baileys';
import { toE164 } from '../address.ts';
import { WhatsAppError } from '../errors.ts';
import type { Timers } from '../timers.ts';
import type { WhatsAppAuthStore } from './auth-state.ts';
import type { MakeWhatsAppSocket, WhatsAppSocket, WhatsAppSocketConfig } from './socket.ts';

/** Baileys' disconnect reasons (`DisconnectReason`), by status code. */
export const disconnectReasons: Readonly<Record<number, string>> = {
  401: 'logged out',
  403: 'forbidden',
  408: 'connection lost or timed out',
  411: 'multi-device mismatch',
  428: 'connection closed',
  440: 'connection replaced by another session',
  500: 'bad session',
  503: 'service unavailable',
  515: 'restart required',
};

const loggedOutCode = 401;
const restartRequiredCode = 515;

/** Where the linked-device connection is. Discriminated on `type`. */
export type BaileysConnectionState =
  | { readonly type: 'connecting'; readonly attempt: number }
  | { readonly type: 'linking'; readonly method: 'qr'; readonly qr: string }
  | { readonly type: 'linking'; readonly method: 'pairing-code'; readonly pairingCode: string }
  | { readonly type: 'open'; readonly user: { readonly id: string; readonly name?: string } }
  | {
      readonly type: 'backing_off';
      readonly attempt: number;
      readonly delayMs: number;
      readonly statusCode: number | undefined;
      readonly reason: string;
    }
  | { readonly type: 'logged_out'; readonly reason: string }
  | { readonly type: 'stopped' };

/** Reconnect delays: `initialMs × factor^(attempt-1)`, at most `maxMs`, ± `jitter` (a fraction). */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  readonly jitter: number;
}

export const defaultBackoff: BackoffPolicy = { initialMs: 1_000, maxMs: 60_000, factor: 2, jitter: 0.2 };

export interface ConnectionSupervisorOptions {
  readonly makeSocket: MakeWhatsAppSocket;
  /** Opens the credentials; called once, and again after a logout cleared them. */
  readonly openAuth: () => Promise<WhatsAppAuthStore>;
  /** Everything Baileys needs besides `auth`. */
  readonly socketConfig: Omit<WhatsAppSocketConfig, 'auth'>;
  /** Link with a pairing code sent to this number instead of a QR code. */
  readonly pairingPhoneNumber?: string;
  readonly backoff?: BackoffPolicy;
  readonly timers: Timers;
  readonly random?: () => number;
  readonly logger: Logger;
  /** Called on every state change. */
  onState(state: BaileysConnectionState): void;
  /** Called for each new socket; returns a function that detaches what it attached. */
  onSocket(socket: WhatsAppSocket): () => void;
}

export interface ConnectionSupervisor {
  readonly state: BaileysConnectionState;
  start(): void;
  /** The open socket, waiting up to `timeoutMs` for the connection to open. */
  waitForOpen(timeoutMs: number): Promise<WhatsAppSocket>;
  /** The socket when the connection is open. */
  openSocket(): WhatsAppSocket | undefined;
  stop(): Promise<void>;
}

interface Waiter {
  resolve(socket: WhatsAppSocket): void;
  reject(error: Error): void;
  timer: unknown;
}

/** The status code of a Baileys disconnect error (a Boom), if it has one. */
export function disconnectStatusCode(error: unknown): number | undefined {
  const output = (error as { output?: { statusCode?: unknown } } | undefined)?.output;
  return typeof output?.statusCode === 'number' ? output.statusCode : undefined;
}

export function createConnectionSupervisor(options: ConnectionSupervisorOptions): ConnectionSupervisor {
  const backoff = options.backoff ?? defaultBackoff;
  const random = options.random ?? Math.random;
  const { timers, logger } = options;
  let state: BaileysConnectionState = { type: 'connecting', attempt: 0 };
  let generation = 0;
  let attempt = 0;
  let socket: WhatsAppSocket | undefined;
  let detach: (() => void) | undefined;
  let retryTimer: unknown;
  let stopping = false;
  let authStore: WhatsAppAuthStore | undefined;
  let saving: Promise<void> = Promise.resolve();
  const waiters = new Set<Waiter>();

  const setState = (next: BaileysConnectionState) => {
    state = next;
    options.onState(next);
    if (next.type === 'open' && socket !== undefined) {
      for (const waiter of waiters) {
        timers.clearTimeout(waiter.timer);
        waiter.resolve(socket);
      }
      waiters.clear();
    } else if (next.type === 'logged_out' || next.type === 'stopped') {
      const error =
        next.type === 'logged_out'
          ? loggedOutError()
          : new WhatsAppError('WHATSAPP_NOT_CONNECTED', 'the WhatsApp account was stopped', {
              retryable: true,
            });
      for (const waiter of waiters) {
        timers.clearTimeout(waiter.timer);
        waiter.reject(error);
      }
      waiters.clear();
    }
  };

  const release = () => {
    detach?.();
    detach = undefined;
    const closing = socket;
    socket = undefined;
    return closing;
  };

  const delayFor = (failures: number) => {
    const base = Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** Math.max(0, failures - 1));
    const spread = base * backoff.jitter * (random() * 2 - 1);
    return Math.max(0, Math.round(base + spread));
  };

  const scheduleReconnect = (delayMs: number) => {
    timers.clearTimeout(retryTimer);
    retryTimer = timers.setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, delayMs);
  };

  async function connect(): Promise<void> {
    if (stopping) return;
    generation += 1;
    const mine = generation;
    setState({ type: 'connecting', attempt });
    let auth: WhatsAppAuthStore;
    let created: WhatsAppSocket;
    try {
      authStore ??= await options.openAuth();
      auth = authStore;
      // A reconnect right after linking must present the credentials the phone just issued.
      await saving;
      if (stopping || mine !== generation) return;
      created = options.makeSocket({ ...options.socketConfig, auth: auth.state });
    } catch (error) {
      onClosed(mine, undefined, error);
      return;
    }
    socket = created;
    let pairingRequested = false;
    const onCreds = () => {
      saving = saving
        .then(() => auth.saveCreds())
        .catch((error: unknown) => {
          logger.error('could not save the WhatsApp credentials', { error: String(error) });
        });
    };
    const onUpdate = (update: Partial<ConnectionState>) => {
      if (mine !== generation || stopping) return;
      if (update.qr !== undefined) {
        if (options.pairingPhoneNumber === undefined) {
          setState({ type: 'linking', method: 'qr', qr: update.qr });
        } else if (!pairingRequested) {
          pairingRequested = true;
          const digits = toE164(options.pairingPhoneNumber)?.slice(1) ?? options.pairingPhoneNumber;
          created.requestPairingCode(digits).then(
            (code) => {
              if (mine === generation && !stopping)
                setState({ type: 'linking', method: 'pairing-code', pairingCode: code });
            },
            (error: unknown) =>
              logger.warn('could not request a WhatsApp pairing code', { error: String(error) }),
          );
        }
      }
      if (update.connection === 'open') {
        attempt = 0;
        const user = created.user;
        setState({
          type: 'open',
          user: { id: user?.id ?? 'unknown', name: user?.name },
        });
      } else if (update.connection === 'close') {
        onClosed(mine, disconnectStatusCode(update.lastDisconnect?.error), update.lastDisconnect?.error);
      }
    };
    created.ev.on('creds.update', onCreds);
    created.ev.on('connection.update', onUpdate);
    const detachMessages = options.onSocket(created);
    detach = () => {
      created.ev.off('creds.update', onCreds);
      created.ev.off('connection.update', onUpdate);
      detachMessages();
    };
  }

  function onClosed(mine: number, statusCode: number | undefined, error: unknown): void {
    if (mine !== generation || stopping) return;
    const wasLinking = state.type === 'linking';
    release();
    const reason =
      (statusCode === undefined ? undefined : disconnectReasons[statusCode]) ??
      (error instanceof Error ? error.message : 'connection closed');
    if (statusCode === loggedOutCode) {
      logger.error('WhatsApp logged this device out; link it again', { statusCode });
      const cleared = authStore;
      authStore = undefined;
      const clearing = saving.then(() => cleared?.clear());
      clearing.catch((clearError: unknown) =>
        logger.error('could not remove the old WhatsApp credentials', { error: String(clearError) }),
      );
      setState({ type: 'logged_out', reason });
      return;
    }
    if (statusCode === restartRequiredCode) {
      logger.info('WhatsApp asked for a restart of the connection (normal after linking)');
      scheduleReconnect(0);
      return;
    }
    // A QR code that expired unscanned is not a failure: offer a new one soon.
    attempt = wasLinking ? 1 : attempt + 1;
    const delayMs = delayFor(attempt);
    logger.warn('WhatsApp connection closed; reconnecting', { statusCode, reason, attempt, delayMs });
    setState({ type: 'backing_off', attempt, delayMs, statusCode, reason });
    scheduleReconnect(delayMs);
  }

  return {
    get state() {
      return state;
    },
    start() {
      void connect();
    },
    openSocket() {
      return state.type === 'open' ? socket : undefined;
    },
    waitForOpen(timeoutMs) {
      if (state.type === 'open' && socket !== undefined) return Promise.resolve(socket);
      if (state.type === 'logged_out') return Promise.reject(loggedOutError());
      if (state.type === 'stopped' || stopping) {
        return Promise.reject(
          new WhatsAppError('WHATSAPP_NOT_CONNECTED', 'the WhatsApp account was stopped', {
            retryable: true,
          }),
        );
      }
      return new Promise<WhatsAppSocket>((resolve, reject) => {
        const waiter: Waiter = {
          resolve,
          reject,
          timer: timers.setTimeout(() => {
            waiters.delete(waiter);
            reject(
              new WhatsAppError(
                'WHATSAPP_NOT_CONNECTED',
                `the WhatsApp connection did not open within ${timeoutMs} ms (${describeState(state)})`,
                { retryable: true, details: { state: state.type } },
              ),
            );
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      timers.clearTimeout(retryTimer);
      const closing = release();
      setState({ type: 'stopped' });
      await Promise.resolve(closing?.end(undefined)).catch(() => undefined);
      await saving;
    },
  };
}

function loggedOutError(): WhatsAppError {
  return new WhatsAppError(
    'WHATSAPP_LOGGED_OUT',
    'WhatsApp logged this linked device out; restart the account to link it again with a new QR code',
    { retryable: false },
  );
}

/** A short human description of a state, for status lines and errors. */
export function describeState(state: BaileysConnectionState): string {
  switch (state.type) {
    case 'connecting':
      return state.attempt === 0 ? 'connecting' : `connecting (attempt ${state.attempt + 1})`;
    case 'linking':
      return state.method === 'qr' ? 'waiting for the QR code to be scanned' : 'waiting for the pairing code';
    case 'open':
      return 'open';
    case 'backing_off':
      return `reconnecting in ${Math.ceil(state.delayMs / 1000)} s after: ${state.reason}`;
    case 'logged_out':
      return 'logged out';
    case 'stopped':
      return 'stopped';
  }
}
