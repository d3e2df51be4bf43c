// Lifecycle helpers shared by every fake: listen on 127.0.0.1:0, and close hard (every
// kept-alive or parked connection is destroyed, so close() never waits on a client).
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1 with an OS-assigned port and resolves with that port. */
export function listenOnLoopback(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops accepting connections, destroys the open ones and resolves once the server is closed. */
export function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** What {@link readBody} found: the text, a body over the limit, or a client that went away. */
export type BodyReadResult =
  | { readonly type: 'body'; readonly text: string }
  | { readonly type: 'too_large'; readonly size: number }
  | { readonly type: 'aborted' };

/**
 * Reads a request body as UTF-8 text. A body larger than `limit` bytes is drained and
 * dropped, so the caller can still answer with an error.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<BodyReadResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (tooLarge) return;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (tooLarge) {
        resolve({ type: 'too_large', size });
        return;
      }
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      resolve({ type: 'body', text });
    });
    request.on('error', () => resolve({ type: 'aborted' }));
  });
}
