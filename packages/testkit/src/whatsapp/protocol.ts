// The wire between a fake Baileys socket (in the process running the channel, maybe a
// child gateway) and the FakeWhatsApp "world" (in the test process): JSON over a WebSocket
// on 127.0.0.1. Messages travel in protobuf JSON form (`WebMessageInfo.toJSON()`), which
// the socket turns back into real protobuf objects with `WebMessageInfo.fromObject`.

/** The v7 LID-addressing key fields protobuf does not carry (`fromObject` drops them). */
export interface KeyExtras {
  readonly remoteJidAlt?: string;
  readonly participantAlt?: string;
  readonly addressingMode?: 'lid' | 'pn';
}

/** A WebMessageInfo in protobuf JSON form, plus the key extras. */
export interface WireMessage {
  readonly json: Record<string, unknown>;
  readonly keyExtras?: KeyExtras;
}

/** The linked account, as `creds.me` holds it. */
export interface WireMe {
  readonly id: string;
  readonly lid?: string;
  readonly name?: string;
}

/** A Boom-like failure: Baileys errors carry `output.statusCode` and sometimes `data`. */
export interface WireError {
  readonly statusCode: number;
  readonly message: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

export type SocketRequest =
  | { readonly op: 'relay'; readonly jid: string; readonly message: WireMessage }
  | { readonly op: 'group-metadata'; readonly jid: string }
  | { readonly op: 'pairing-code'; readonly phoneNumber: string }
  | { readonly op: 'pn-for-lid'; readonly lid: string };

/** Socket → world. */
export type SocketFrame =
  | { readonly type: 'hello'; readonly registered: boolean; readonly me?: WireMe }
  | { readonly type: 'request'; readonly id: number; readonly request: SocketRequest }
  | { readonly type: 'presence'; readonly presence: string; readonly jid?: string }
  | { readonly type: 'read'; readonly keys: ReadonlyArray<Record<string, unknown>> };

/** World → socket. */
export type WorldFrame =
  | { readonly type: 'response'; readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly type: 'response'; readonly id: number; readonly ok: false; readonly error: WireError }
  | { readonly type: 'qr'; readonly ref: string }
  | { readonly type: 'pair-success'; readonly me: WireMe }
  | { readonly type: 'open'; readonly me: WireMe }
  | {
      readonly type: 'upsert';
      readonly upsertType: 'notify' | 'append';
      readonly messages: readonly WireMessage[];
    }
  /** The offline backlog (sent after `open`) is delivered: `count` stanzas. */
  | { readonly type: 'offline'; readonly count: number }
  | { readonly type: 'close'; readonly error: WireError };

/** Creates an error shaped like a `@hapi/boom` Boom, which is what Baileys throws and emits. */
export function boomError(
  message: string,
  statusCode: number,
  data?: Readonly<Record<string, unknown>>,
): Error {
  const error = new Error(message) as Error & {
    isBoom: true;
    output: { statusCode: number; payload: { statusCode: number; error: string; message: string } };
    data?: Readonly<Record<string, unknown>>;
  };
  error.isBoom = true;
  error.output = { statusCode, payload: { statusCode, error: message, message } };
  if (data !== undefined) error.data = data;
  return error;
}
