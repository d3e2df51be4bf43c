/**
 * The bytes of an Anthropic Messages request. The system prompt and the tool definitions are
 * most of a request (about 18 KB of 19 with the gateway's default tools) and the same turn
 * after turn, so their JSON is encoded once and kept: a request costs the encoding of its
 * messages and a copy, instead of `JSON.stringify` and a UTF-8 conversion of the whole body
 * (decision 0025).
 *
 * Contract: `anthropicRequestBody(params, system, tools)` is the UTF-8 JSON of `params` with
 * `system` (one text block with its `cache_control`) and `tools` (`{name, description,
 * input_schema}` each) added, byte-for-byte what `JSON.stringify` of the whole would give up to
 * key order. Kept fragments are keyed by content (the system text and its cache control; a
 * tool's name, description and schema object), so an edited prompt or tool is encoded afresh.
 */
import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';

/** A tool as the request sends it. */
export interface RequestTool {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema object; kept fragments are tied to this object's identity. */
  readonly parameters: object;
}

/** The system prompt as the request sends it. */
export interface RequestSystem {
  readonly text: string;
  readonly cacheControl: { readonly type: 'ephemeral'; readonly ttl?: '1h' } | undefined;
}

/** System prompts kept: one per session's prompt, a few hundred sessions at most matter. */
const maxKeptSystems = 256;
const keptSystems = new Map<string, Buffer>();
/** Per schema object, per name and description: the tool's encoded JSON. */
const keptTools = new WeakMap<object, Map<string, Buffer>>();

const comma = Buffer.from(',');
const toolsOpen = Buffer.from(',"tools":[');
const toolsClose = Buffer.from(']');
const close = Buffer.from('}');

function systemBytes(system: RequestSystem): Buffer {
  const key = `${JSON.stringify(system.cacheControl ?? null)}\u0000${system.text}`;
  const kept = keptSystems.get(key);
  if (kept !== undefined) {
    // Most recently used last (Map order), so the oldest goes first.
    keptSystems.delete(key);
    keptSystems.set(key, kept);
    return kept;
  }
  const block = { type: 'text', text: system.text, cache_control: system.cacheControl };
  const bytes = Buffer.from(`,"system":${JSON.stringify([block])}`);
  keptSystems.set(key, bytes);
  if (keptSystems.size > maxKeptSystems) {
    const oldest = keptSystems.keys().next().value;
    if (oldest !== undefined) keptSystems.delete(oldest);
  }
  return bytes;
}

function toolBytes(tool: RequestTool): Buffer {
  let byText = keptTools.get(tool.parameters);
  if (byText === undefined) {
    byText = new Map();
    keptTools.set(tool.parameters, byText);
  }
  const key = `${tool.name}\u0000${tool.description}`;
  let bytes = byText.get(key);
  if (bytes === undefined) {
    bytes = Buffer.from(
      JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.parameters }),
    );
    byText.set(key, bytes);
  }
  return bytes;
}

export function anthropicRequestBody(
  params: Omit<MessageCreateParamsStreaming, 'system' | 'tools'>,
  system: RequestSystem | undefined,
  tools: readonly RequestTool[],
): Uint8Array {
  const head = JSON.stringify(params);
  const parts: Buffer[] = [Buffer.from(head.slice(0, -1))];
  if (system !== undefined) parts.push(systemBytes(system));
  if (tools.length > 0) {
    parts.push(toolsOpen);
    for (const [index, tool] of tools.entries()) {
      if (index > 0) parts.push(comma);
      parts.push(toolBytes(tool));
    }
    parts.push(toolsClose);
  }
  parts.push(close);
  return Buffer.concat(parts);
}
