// How the fake Anthropic API writes its answers: a JSON message, an SSE stream (all at once,
// or event by event with `chunkMs` between), an error body, an injected HTTP fault, and the
// broken answers stream faults make (cut, garbled, an error event mid-stream). Each records
// on the request's response what it sent.
import type { ServerResponse } from 'node:http';
import type { FakeTimers } from './fake-anthropic-types.ts';
import {
  errorBody,
  isHttpFault,
  type ResolvedHttpFault,
  resolveHttpFault,
  statusForErrorType,
} from './faults.ts';
import type { MutableRecordedResponse, RecordedRequest } from './recorded-request.ts';
import { type CompiledTurn, malformedEvent, renderErrorEvent, renderStreamEvents } from './turns.ts';
import type { FakeFault, FakeLatency, MessagesRequestBody, StreamFault } from './types.ts';

const sseContentType = 'text/event-stream; charset=utf-8';
/** The content type of every JSON answer. */
export const jsonContentType = 'application/json';

/** Writes answers; `latency.firstByteMs` and `chunkMs` run on the given timers. */
export class AnthropicResponses {
  readonly #timers: FakeTimers;
  readonly #countTokens: (body: MessagesRequestBody) => number;

  constructor(timers: FakeTimers, countTokens: (body: MessagesRequestBody) => number) {
    this.#timers = timers;
    this.#countTokens = countTokens;
  }

  sendFault(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    request: RecordedRequest,
    requestId: string,
    fault: FakeFault,
    latency: FakeLatency,
  ): void {
    response.fault = fault;
    if (fault.type === 'hang') return;
    if (!isHttpFault(fault)) return;
    const parsedBody = request.body;
    const resolved: ResolvedHttpFault = resolveHttpFault(fault, {
      model: parsedBody?.model,
      estimatedTokens: parsedBody === undefined ? 0 : this.#countTokens(parsedBody),
    });
    const headers: Record<string, string> = {
      ...resolved.headers,
      'content-type': jsonContentType,
      'request-id': requestId,
    };
    this.#afterFirstByteDelay(outgoing, latency, () => {
      response.status = resolved.status;
      outgoing.writeHead(resolved.status, headers);
      outgoing.end(errorBody(resolved.errorType, resolved.message, requestId));
      response.finished = true;
    });
  }

  reject(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    requestId: string,
    status: number,
    errorType: string,
    message: string,
    extraHeaders?: Readonly<Record<string, string>>,
  ): void {
    response.source ??= 'rejected';
    response.status = status;
    outgoing.writeHead(status, { ...extraHeaders, 'content-type': jsonContentType, 'request-id': requestId });
    outgoing.end(errorBody(errorType, message, requestId));
    response.finished = true;
  }

  sendJson(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    requestId: string,
    json: string,
    latency: FakeLatency,
  ): void {
    this.#afterFirstByteDelay(outgoing, latency, () => {
      response.status = 200;
      outgoing.writeHead(200, { 'content-type': jsonContentType, 'request-id': requestId });
      outgoing.end(json);
      response.finished = true;
    });
  }

  /** A stream fault hitting a non-streaming answer: cut or garble the JSON, or answer the HTTP equivalent. */
  sendBrokenJson(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    requestId: string,
    fault: StreamFault,
    json: string,
  ): void {
    if (fault.type === 'stream_error') {
      const errorType = fault.errorType ?? 'overloaded_error';
      this.reject(
        outgoing,
        response,
        requestId,
        statusForErrorType(errorType),
        errorType,
        fault.message ?? 'Overloaded',
      );
      return;
    }
    const half = json.slice(0, Math.floor(json.length / 2));
    response.status = 200;
    if (fault.type === 'stream_cut' && (fault.mode ?? 'destroy') === 'destroy') {
      // Promise the whole body, send half, then reset the connection.
      outgoing.writeHead(200, {
        'content-type': jsonContentType,
        'request-id': requestId,
        'content-length': String(Buffer.byteLength(json)),
      });
      outgoing.write(half, () => outgoing.destroy());
      return;
    }
    // malformed_json, or a clean early end: a complete response whose body does not parse.
    outgoing.writeHead(200, { 'content-type': jsonContentType, 'request-id': requestId });
    outgoing.end(half);
    response.finished = true;
  }

  sendStream(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    requestId: string,
    turn: CompiledTurn,
    latency: FakeLatency,
    fault: StreamFault | undefined,
  ): void {
    let events = renderStreamEvents(turn);
    let destroyAtEnd = false;
    if (fault !== undefined) {
      const after = Math.min(fault.afterEvents ?? Math.floor(events.length / 2), events.length);
      events = events.slice(0, after);
      if (fault.type === 'stream_error') {
        events.push(
          renderErrorEvent(fault.errorType ?? 'overloaded_error', fault.message ?? 'Overloaded', requestId),
        );
      } else if (fault.type === 'malformed_json') events.push(malformedEvent);
      else destroyAtEnd = (fault.mode ?? 'destroy') === 'destroy';
    }
    const headers = { 'content-type': sseContentType, 'cache-control': 'no-cache', 'request-id': requestId };
    const chunkMs = latency.chunkMs ?? 0;
    this.#afterFirstByteDelay(outgoing, latency, () => {
      response.status = 200;
      outgoing.writeHead(200, headers);
      if (chunkMs === 0) {
        response.eventsSent = events.length;
        const payload = events.length === 1 ? events[0]! : events.join('');
        if (destroyAtEnd) {
          outgoing.flushHeaders();
          outgoing.write(payload, () => outgoing.destroy());
        } else {
          outgoing.end(payload);
          response.finished = fault === undefined;
        }
        return;
      }
      outgoing.flushHeaders();
      let index = 0;
      const writeNext = (): void => {
        if (outgoing.destroyed) return;
        const event = events[index]!;
        index += 1;
        response.eventsSent = index;
        if (index < events.length) {
          outgoing.write(event);
          this.#timers.setTimeout(writeNext, chunkMs);
        } else if (destroyAtEnd) outgoing.write(event, () => outgoing.destroy());
        else {
          outgoing.end(event);
          response.finished = fault === undefined;
        }
      };
      if (events.length === 0) {
        if (destroyAtEnd) outgoing.destroy();
        else outgoing.end();
        return;
      }
      writeNext();
    });
  }

  #afterFirstByteDelay(outgoing: ServerResponse, latency: FakeLatency, send: () => void): void {
    const delay = latency.firstByteMs ?? 0;
    if (delay === 0) {
      send();
      return;
    }
    this.#timers.setTimeout(() => {
      if (!outgoing.destroyed) send();
    }, delay);
  }
}
