// Scripted turns: validation (so a typo in a test fails loudly, naming the field), and
// compilation into the exact SSE frames or JSON body the fake sends.
import { TestkitError, type TestkitErrorCode } from '../shared/errors.ts';
import { validateFault } from './faults.ts';
import { estimateTextTokens } from './tokens.ts';
import type { FakeContentBlock, FakeLatency, FakeTurn } from './types.ts';

const turnKeys = new Set([
  'text',
  'thinking',
  'toolCalls',
  'content',
  'stopReason',
  'stopSequence',
  'usage',
  'model',
  'id',
  'latency',
  'ping',
  'fault',
]);
const usageKeys = new Set([
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
]);

/** Checks a turn written by a test; throws a TestkitError naming the bad field under `path`. */
export function validateTurn(value: unknown, path: string, code: TestkitErrorCode): FakeTurn {
  const fail = (what: string): never => {
    throw new TestkitError(code, `${path}${what}`, { details: { path } });
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail(' must be a turn object like { text: "hi" }');
  }
  const turn = value as Record<string, unknown>;
  for (const key of Object.keys(turn)) {
    if (!turnKeys.has(key)) fail(`.${key} is not a turn field; expected one of ${[...turnKeys].join(', ')}`);
  }
  if (turn.text !== undefined) checkTextLike(turn.text, `${path}.text`, code);
  if (turn.thinking !== undefined) {
    if (typeof turn.thinking !== 'string') {
      if (turn.thinking === null || typeof turn.thinking !== 'object') {
        fail('.thinking must be a string or { text, signature? }');
      }
      const thinking = turn.thinking as Record<string, unknown>;
      checkTextLike(thinking.text, `${path}.thinking.text`, code);
      if (thinking.signature !== undefined && typeof thinking.signature !== 'string') {
        fail('.thinking.signature must be a string');
      }
    }
  }
  if (turn.toolCalls !== undefined) {
    if (!Array.isArray(turn.toolCalls)) fail('.toolCalls must be an array of { name, input, id? }');
    (turn.toolCalls as unknown[]).forEach((call, index) => {
      checkToolCall(call, `${path}.toolCalls[${index}]`, code);
    });
  }
  if (turn.content !== undefined) {
    if (turn.text !== undefined || turn.thinking !== undefined || turn.toolCalls !== undefined) {
      fail('.content cannot be combined with text, thinking or toolCalls; put every block in content');
    }
    if (!Array.isArray(turn.content)) fail('.content must be an array of blocks');
    (turn.content as unknown[]).forEach((block, index) => {
      checkBlock(block, `${path}.content[${index}]`, code);
    });
  }
  for (const key of ['stopReason', 'stopSequence', 'model', 'id'] as const) {
    if (turn[key] !== undefined && typeof turn[key] !== 'string') fail(`.${key} must be a string`);
  }
  if (turn.usage !== undefined) {
    if (turn.usage === null || typeof turn.usage !== 'object') fail('.usage must be an object');
    for (const [key, count] of Object.entries(turn.usage as object)) {
      if (!usageKeys.has(key))
        fail(`.usage.${key} is not a usage field; expected one of ${[...usageKeys].join(', ')}`);
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
        fail(`.usage.${key} must be an integer >= 0`);
      }
    }
  }
  if (turn.latency !== undefined) validateLatency(turn.latency, `${path}.latency`, code);
  if (turn.ping !== undefined && typeof turn.ping !== 'boolean') fail('.ping must be a boolean');
  if (turn.fault !== undefined) validateFault(turn.fault, `${path}.fault`, code);
  return value as FakeTurn;
}

/** Checks a latency object; throws a TestkitError naming `path` when it is malformed. */
export function validateLatency(value: unknown, path: string, code: TestkitErrorCode): FakeLatency {
  if (value === null || typeof value !== 'object') {
    throw new TestkitError(code, `${path} must be an object like { firstByteMs, chunkMs }`, {
      details: { path },
    });
  }
  for (const [key, milliseconds] of Object.entries(value)) {
    if (key !== 'firstByteMs' && key !== 'chunkMs') {
      throw new TestkitError(code, `${path}.${key} is not a latency field; expected firstByteMs or chunkMs`, {
        details: { path: `${path}.${key}` },
      });
    }
    if (typeof milliseconds !== 'number' || !Number.isFinite(milliseconds) || milliseconds < 0) {
      throw new TestkitError(code, `${path}.${key} must be a number of milliseconds >= 0`, {
        details: { path: `${path}.${key}` },
      });
    }
  }
  return value as FakeLatency;
}

function checkTextLike(value: unknown, path: string, code: TestkitErrorCode): void {
  if (typeof value === 'string') return;
  if (Array.isArray(value) && value.every((piece) => typeof piece === 'string')) return;
  throw new TestkitError(code, `${path} must be a string or an array of strings (the deltas)`, {
    details: { path },
  });
}

function checkToolCall(value: unknown, path: string, code: TestkitErrorCode): void {
  const fail = (what: string): never => {
    throw new TestkitError(code, `${path}${what}`, { details: { path } });
  };
  if (value === null || typeof value !== 'object') {
    fail(' must be an object like { name, input }');
    return;
  }
  const call = value as Record<string, unknown>;
  if (typeof call.name !== 'string' || call.name === '') fail('.name must be a non-empty string');
  if (call.id !== undefined && typeof call.id !== 'string') fail('.id must be a string');
  if (call.inputChunks === undefined) {
    let serialised: string | undefined;
    try {
      serialised = JSON.stringify(call.input);
    } catch {
      serialised = undefined;
    }
    if (serialised === undefined) fail('.input must be a JSON-serialisable value');
  } else if (typeof call.inputChunks === 'number') {
    if (!Number.isInteger(call.inputChunks) || call.inputChunks < 1)
      fail('.inputChunks must be an integer >= 1');
  } else if (
    !Array.isArray(call.inputChunks) ||
    !call.inputChunks.every((piece) => typeof piece === 'string')
  ) {
    fail('.inputChunks must be a number of pieces or an array of strings');
  }
}

function checkBlock(value: unknown, path: string, code: TestkitErrorCode): void {
  const fail = (what: string): never => {
    throw new TestkitError(code, `${path}${what}`, { details: { path } });
  };
  if (value === null || typeof value !== 'object') {
    fail(' must be a block object with a type');
    return;
  }
  const block = value as Record<string, unknown>;
  switch (block.type) {
    case 'text':
      checkTextLike(block.text, `${path}.text`, code);
      return;
    case 'thinking':
      checkTextLike(block.thinking, `${path}.thinking`, code);
      if (block.signature !== undefined && typeof block.signature !== 'string')
        fail('.signature must be a string');
      return;
    case 'redacted_thinking':
      if (typeof block.data !== 'string') fail('.data must be a string');
      return;
    case 'tool_use':
      checkToolCall(block, path, code);
      return;
    default:
      fail(
        `.type must be one of text, thinking, redacted_thinking, tool_use (got ${JSON.stringify(block.type)})`,
      );
  }
}

/** A block ready to send: its pieces are the deltas, in order. */
type CompiledBlock =
  | { readonly type: 'text'; readonly text: string; readonly pieces: readonly string[] }
  | {
      readonly type: 'thinking';
      readonly thinking: string;
      readonly signature: string;
      readonly pieces: readonly string[];
    }
  | { readonly type: 'redacted_thinking'; readonly data: string }
  | {
      readonly type: 'tool_use';
      readonly id: string;
      readonly name: string;
      readonly input: unknown;
      readonly pieces: readonly string[];
    };

/** A turn resolved against one request: ids, model, usage and every delta fixed. */
export interface CompiledTurn {
  readonly id: string;
  readonly model: string;
  readonly blocks: readonly CompiledBlock[];
  readonly stopReason: string;
  readonly stopSequence: string | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly cacheCreationInputTokens: number;
  readonly ping: boolean;
}

export interface CompileContext {
  readonly sequence: number;
  readonly model: string;
  readonly estimatedInputTokens: number;
  readonly textChunkSize: number;
  readonly jsonChunkSize: number;
}

/** The signature a thinking block carries when the turn names none. */
export const defaultThinkingSignature = 'ZmFrZS1hbnRocm9waWMtc2lnbmF0dXJl';

export function compileTurn(turn: FakeTurn, context: CompileContext): CompiledTurn {
  const blocks: CompiledBlock[] = [];
  let outputCharacters = 0;
  let hasToolUse = false;
  const addBlock = (block: FakeContentBlock): void => {
    const index = blocks.length;
    switch (block.type) {
      case 'text': {
        const [text, pieces] = textPieces(block.text, context.textChunkSize);
        outputCharacters += text.length;
        blocks.push({ type: 'text', text, pieces });
        return;
      }
      case 'thinking': {
        const [thinking, pieces] = textPieces(block.thinking, context.textChunkSize);
        outputCharacters += thinking.length;
        blocks.push({
          type: 'thinking',
          thinking,
          signature: block.signature ?? defaultThinkingSignature,
          pieces,
        });
        return;
      }
      case 'redacted_thinking':
        blocks.push({ type: 'redacted_thinking', data: block.data });
        return;
      case 'tool_use': {
        hasToolUse = true;
        let pieces: readonly string[];
        let input = block.input;
        if (Array.isArray(block.inputChunks)) {
          pieces = block.inputChunks;
          if (input === undefined) input = parseOr(pieces.join(''), {});
        } else {
          const json = JSON.stringify(input) ?? '{}';
          pieces =
            typeof block.inputChunks === 'number'
              ? splitEvenly(json, block.inputChunks)
              : ['', ...splitBySize(json, context.jsonChunkSize)];
        }
        for (const piece of pieces) outputCharacters += piece.length;
        blocks.push({
          type: 'tool_use',
          id: block.id ?? `toolu_fake_${context.sequence}_${index}`,
          name: block.name,
          input,
          pieces,
        });
        return;
      }
    }
  };
  if (turn.content !== undefined) {
    for (const block of turn.content) addBlock(block);
  } else {
    if (turn.thinking !== undefined) {
      if (typeof turn.thinking === 'string') addBlock({ type: 'thinking', thinking: turn.thinking });
      else {
        addBlock({
          type: 'thinking',
          thinking: turn.thinking.text,
          signature: turn.thinking.signature,
        });
      }
    }
    if (turn.text !== undefined) addBlock({ type: 'text', text: turn.text });
    if (turn.toolCalls !== undefined) {
      for (const call of turn.toolCalls) addBlock({ type: 'tool_use', ...call });
    }
  }
  const usage = turn.usage;
  return {
    id: turn.id ?? `msg_fake_${context.sequence}`,
    model: turn.model ?? context.model,
    blocks,
    stopReason: turn.stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
    stopSequence: turn.stopSequence ?? null,
    inputTokens: usage?.input_tokens ?? context.estimatedInputTokens,
    outputTokens: usage?.output_tokens ?? estimateTextTokens(outputCharacters),
    cacheReadInputTokens: usage?.cache_read_input_tokens ?? 0,
    cacheCreationInputTokens: usage?.cache_creation_input_tokens ?? 0,
    ping: turn.ping ?? true,
  };
}

function parseOr(json: string, fallback: unknown): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return fallback;
  }
}

function textPieces(value: string | readonly string[], size: number): [string, readonly string[]] {
  if (typeof value === 'string') return [value, splitBySize(value, size)];
  return [value.join(''), value];
}

/** Splits into pieces of `size` characters, never between the two halves of a surrogate pair. */
function splitBySize(text: string, size: number): string[] {
  if (text.length <= size) return text === '' ? [] : [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** Splits into `count` pieces of near-equal length (arbitrary positions, mid-token included). */
function splitEvenly(text: string, count: number): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < count; index += 1) {
    pieces.push(
      text.slice(Math.floor((index * text.length) / count), Math.floor(((index + 1) * text.length) / count)),
    );
  }
  return pieces;
}

// ---------------------------------------------------------------------------------------
// Rendering. Constant frames are built once; per-request frames are plain concatenation.

const pingFrame = 'event: ping\ndata: {"type": "ping"}\n\n';
const messageStopFrame = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
const blockStopFrames: string[] = [];
function blockStopFrame(index: number): string {
  let frame = blockStopFrames[index];
  if (frame === undefined) {
    frame = `event: content_block_stop\ndata: {"type":"content_block_stop","index":${index}}\n\n`;
    blockStopFrames[index] = frame;
  }
  return frame;
}

function deltaFrame(index: number, deltaJson: string): string {
  return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":${deltaJson}}\n\n`;
}

/** The SSE events of a compiled turn, one string per event, in sending order. */
export function renderStreamEvents(turn: CompiledTurn): string[] {
  const frames: string[] = [
    `event: message_start\ndata: {"type":"message_start","message":{"id":${JSON.stringify(turn.id)},"type":"message","role":"assistant","model":${JSON.stringify(turn.model)},"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":${turn.inputTokens},"cache_creation_input_tokens":${turn.cacheCreationInputTokens},"cache_read_input_tokens":${turn.cacheReadInputTokens},"output_tokens":${Math.min(1, turn.outputTokens)}}}}\n\n`,
  ];
  if (turn.ping) frames.push(pingFrame);
  const blocks = turn.blocks;
  for (let index = 0; index < blocks.length; index += 1) {
    const block = blocks[index]!;
    const start = `event: content_block_start\ndata: {"type":"content_block_start","index":${index},"content_block":`;
    switch (block.type) {
      case 'text':
        frames.push(`${start}{"type":"text","text":""}}\n\n`);
        for (const piece of block.pieces) {
          frames.push(deltaFrame(index, `{"type":"text_delta","text":${JSON.stringify(piece)}}`));
        }
        break;
      case 'thinking':
        frames.push(`${start}{"type":"thinking","thinking":"","signature":""}}\n\n`);
        for (const piece of block.pieces) {
          frames.push(deltaFrame(index, `{"type":"thinking_delta","thinking":${JSON.stringify(piece)}}`));
        }
        frames.push(
          deltaFrame(index, `{"type":"signature_delta","signature":${JSON.stringify(block.signature)}}`),
        );
        break;
      case 'redacted_thinking':
        frames.push(`${start}{"type":"redacted_thinking","data":${JSON.stringify(block.data)}}}\n\n`);
        break;
      case 'tool_use':
        frames.push(
          `${start}{"type":"tool_use","id":${JSON.stringify(block.id)},"name":${JSON.stringify(block.name)},"input":{}}}\n\n`,
        );
        for (const piece of block.pieces) {
          frames.push(
            deltaFrame(index, `{"type":"input_json_delta","partial_json":${JSON.stringify(piece)}}`),
          );
        }
        break;
    }
    frames.push(blockStopFrame(index));
  }
  frames.push(
    `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":${JSON.stringify(turn.stopReason)},"stop_sequence":${JSON.stringify(turn.stopSequence)}},"usage":{"output_tokens":${turn.outputTokens}}}\n\n`,
    messageStopFrame,
  );
  return frames;
}

function blockJson(block: CompiledBlock): Record<string, unknown> {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'thinking')
    return { type: 'thinking', thinking: block.thinking, signature: block.signature };
  if (block.type === 'redacted_thinking') return { type: 'redacted_thinking', data: block.data };
  return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
}

/** The non-streaming JSON body of a compiled turn. */
export function renderMessageJson(turn: CompiledTurn): string {
  const content = turn.blocks.map(blockJson);
  return JSON.stringify({
    id: turn.id,
    type: 'message',
    role: 'assistant',
    model: turn.model,
    content,
    stop_reason: turn.stopReason,
    stop_sequence: turn.stopSequence,
    usage: {
      input_tokens: turn.inputTokens,
      cache_creation_input_tokens: turn.cacheCreationInputTokens,
      cache_read_input_tokens: turn.cacheReadInputTokens,
      output_tokens: turn.outputTokens,
    },
  });
}

/** An SSE `error` event, as the API sends it mid-stream. */
export function renderErrorEvent(errorType: string, message: string, requestId: string): string {
  return `event: error\ndata: {"type":"error","error":${JSON.stringify({ type: errorType, message })},"request_id":"${requestId}"}\n\n`;
}

/** An SSE event whose data line does not parse as JSON. */
export const malformedEvent: string =
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_del\n\n';
