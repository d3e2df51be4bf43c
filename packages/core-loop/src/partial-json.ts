/**
 * Tool arguments that are still streaming, read with the `partial-json` library: the value the
 * text describes so far. An unfinished string is kept as far as it goes; an unfinished number,
 * literal or key is left out; open objects and arrays are closed. Text that cannot be the start
 * of a JSON value throws a `SyntaxError`; inside an object or array the library stops at the
 * first thing it cannot read and keeps what came before.
 */
import { Allow, parse } from 'partial-json';

/** Which unfinished values are kept: strings, objects and arrays (numbers and literals are not). */
const keepUnfinished = Allow.STR | Allow.OBJ | Allow.ARR;

export function parsePartialJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Fall through to the tolerant parse.
  }
  if (text.trim() === '') return undefined;
  try {
    return parse(text, keepUnfinished);
  } catch (error) {
    // The library throws its own error classes; callers catch a SyntaxError, as from JSON.parse.
    throw new SyntaxError(`not JSON: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/**
 * Parses streamed tool arguments into an object: strict JSON first, then the tolerant
 * parser; anything that is not an object (or fails) gives `{}`.
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = parsePartialJson(text);
  } catch {
    return {};
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
