// The gateway protocol from the browser: open the socket, answer connect.challenge with
// `connect`, then requests (res frames matched by id) and events.

/** A failed request or handshake: `code` is the protocol class, `detailCode` is details.code. */
export class GatewayRequestError extends Error {
  /** @param {{ code?: string, message?: string, details?: Record<string, unknown>, retryAfterMs?: number }} error */
  constructor(error) {
    super(error.message ?? 'request failed');
    this.name = 'GatewayRequestError';
    this.code = error.code;
    this.detailCode = typeof error.details?.code === 'string' ? error.details.code : undefined;
    this.retryAfterMs = error.retryAfterMs;
    this.error = error;
  }
}

/** The socket closed or never opened. */
export class GatewayClosedError extends Error {
  /** @param {string} message @param {number} closeCode */
  constructor(message, closeCode) {
    super(message);
    this.name = 'GatewayClosedError';
    this.closeCode = closeCode;
  }
}

/** An id that works in insecure contexts too (crypto.randomUUID needs https or localhost). */
export function randomId() {
  if (typeof crypto.randomUUID === 'function' && globalThis.isSecureContext) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * @typedef {object} ConnectionOptions
 * @property {string} url
 * @property {string | undefined} token
 * @property {string} version
 * @property {(event: string, payload: any) => void} onEvent
 * @property {(code: number, reason: string) => void} onClose
 * @property {number} [requestTimeoutMs]
 */

/**
 * Opens the socket and completes the handshake. Resolves with the connection once
 * `hello-ok` arrived; rejects with GatewayRequestError (refused) or GatewayClosedError.
 * @param {ConnectionOptions} options
 */
export function openConnection(options) {
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    /** @type {WebSocket} */
    let socket;
    try {
      socket = new WebSocket(options.url);
    } catch (error) {
      reject(new GatewayClosedError(`cannot open ${options.url}: ${String(error)}`, 0));
      return;
    }
    /** @type {Map<string, { resolve: (payload: any) => void, reject: (error: Error) => void, timer: ReturnType<typeof setTimeout> }>} */
    const pending = new Map();
    const connectId = randomId();
    let ready = false;
    let settled = false;

    const connection = {
      /** @type {any} */
      hello: undefined,
      /**
       * @param {string} method
       * @param {unknown} [params]
       * @returns {Promise<any>}
       */
      request(method, params) {
        return new Promise((resolveRequest, rejectRequest) => {
          if (socket.readyState !== WebSocket.OPEN) {
            rejectRequest(new GatewayClosedError('not connected to the gateway', 0));
            return;
          }
          const id = randomId();
          const timer = setTimeout(() => {
            pending.delete(id);
            rejectRequest(
              new Error(`the gateway did not answer ${method} in ${Math.round(timeoutMs / 1000)} s`),
            );
          }, timeoutMs);
          pending.set(id, { resolve: resolveRequest, reject: rejectRequest, timer });
          socket.send(JSON.stringify({ type: 'req', id, method, params: params ?? {} }));
        });
      },
      close() {
        socket.onclose = null;
        socket.close(1000, 'bye');
        for (const entry of pending.values()) {
          clearTimeout(entry.timer);
          entry.reject(new GatewayClosedError('closed', 1000));
        }
        pending.clear();
      },
    };

    socket.onmessage = (message) => {
      /** @type {any} */
      let frame;
      try {
        frame = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (frame?.type === 'event') {
        if (frame.event === 'connect.challenge' && !ready) {
          socket.send(
            JSON.stringify({
              type: 'req',
              id: connectId,
              method: 'connect',
              params: {
                minProtocol: 4,
                maxProtocol: 4,
                client: {
                  id: 'webchat-ui',
                  mode: 'webchat',
                  version: options.version,
                  platform: navigator.platform || 'web',
                  displayName: 'WebChat',
                },
                role: 'operator',
                scopes: ['operator.read', 'operator.write', 'operator.admin'],
                // Run events of the sessions this page opens or writes to, a `session.run`
                // summary of every other run (decision 0025, "Event fan-out").
                caps: ['tool-events', 'session-scoped-events'],
                ...(options.token === undefined || options.token === ''
                  ? {}
                  : { auth: { token: options.token } }),
                userAgent: navigator.userAgent,
                locale: navigator.language,
              },
            }),
          );
          return;
        }
        if (ready) options.onEvent(String(frame.event), frame.payload);
        return;
      }
      if (frame?.type !== 'res' || typeof frame.id !== 'string') return;
      if (frame.id === connectId) {
        settled = true;
        if (frame.ok === true) {
          ready = true;
          connection.hello = frame.payload;
          resolve(connection);
        } else {
          reject(new GatewayRequestError(frame.error ?? {}));
        }
        return;
      }
      const entry = pending.get(frame.id);
      if (entry === undefined) return;
      pending.delete(frame.id);
      clearTimeout(entry.timer);
      if (frame.ok === true) entry.resolve(frame.payload ?? {});
      else entry.reject(new GatewayRequestError(frame.error ?? {}));
    };
    socket.onclose = (event) => {
      for (const entry of pending.values()) {
        clearTimeout(entry.timer);
        entry.reject(new GatewayClosedError('the connection to the gateway closed', event.code));
      }
      pending.clear();
      if (!settled) {
        settled = true;
        reject(new GatewayClosedError(`cannot reach the gateway at ${options.url}`, event.code));
        return;
      }
      if (ready) options.onClose(event.code, event.reason);
    };
  });
}
