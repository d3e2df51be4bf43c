// Writing frames to sockets: frames sent to one socket within one tick leave in one TCP
// write (the raw socket is corked until the next tick), and a socket whose client reads too
// slowly is closed rather than buffered without bound.
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import { closeCodes, maxBufferedBytes } from './frames.ts';

/** A socket frames are written to: the WebSocket and the TCP socket under it. */
interface FrameTarget {
  readonly socket: WebSocket;
  readonly raw: Socket;
}

/** Sends an already serialized frame (contract: never throws; a closed socket drops it). */
export type SendFrame = (target: FrameTarget, text: string) => void;

export function createFrameWriter(): SendFrame {
  const corked = new Set<Socket>();
  const uncorkAll = () => {
    for (const raw of corked) raw.uncork();
    corked.clear();
  };
  return (target, text) => {
    const socket = target.socket;
    if (socket.readyState !== WebSocket.OPEN) return;
    if (socket.bufferedAmount > maxBufferedBytes) {
      socket.close(closeCodes.policyViolation, 'slow consumer');
      return;
    }
    const raw = target.raw;
    if (!corked.has(raw)) {
      if (corked.size === 0) process.nextTick(uncorkAll);
      raw.cork();
      corked.add(raw);
    }
    socket.send(text);
  };
}

/**
 * The same event to many connections: the payload is serialized once and only the
 * per-connection `seq` differs (append `${seq}}`; the keys keep a single event's order).
 */
export function eventFrameHead(event: string, payload: unknown): string {
  return `{"type":"event","event":${JSON.stringify(event)},"payload":${JSON.stringify(payload) ?? 'null'},"seq":`;
}
