/**
 * A tolerant JSON parser for tool arguments that are still streaming: it returns the value
 * the text describes so far. An unfinished string is kept as far as it goes; an unfinished
 * number, literal or key is left out; open objects and arrays are closed. Text that cannot
 * be the start of a JSON value throws a `SyntaxError`.
 */
export function parsePartialJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Fall through to the tolerant parse.
  }
  const parser = new PartialParser(text);
  const value = parser.value();
  parser.expectEnd();
  return value === missing ? undefined : value;
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

const missing: unique symbol = Symbol('missing');

/** Thrown inside the parser when the text ends; unwinds to the outermost container. */
class EndOfText {}
const endOfText = new EndOfText();

class PartialParser {
  readonly #text: string;
  #position = 0;

  constructor(text: string) {
    this.#text = text;
  }

  value(): unknown {
    try {
      return this.#value();
    } catch (error) {
      if (error === endOfText) return missing;
      throw error;
    }
  }

  expectEnd(): void {
    this.#skipWhitespace();
    if (this.#position < this.#text.length) {
      throw new SyntaxError(`Unexpected text after JSON at position ${this.#position}`);
    }
  }

  #skipWhitespace(): void {
    const text = this.#text;
    while (this.#position < text.length) {
      const code = text.charCodeAt(this.#position);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return;
      this.#position += 1;
    }
  }

  #peek(): string {
    this.#skipWhitespace();
    if (this.#position >= this.#text.length) throw endOfText;
    return this.#text[this.#position] as string;
  }

  #value(): unknown {
    const char = this.#peek();
    if (char === '{') return this.#object();
    if (char === '[') return this.#array();
    if (char === '"') {
      const result = this.#string();
      return result.value;
    }
    if (char === '-' || (char >= '0' && char <= '9')) return this.#number();
    return this.#literal();
  }

  #object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.#position += 1;
    try {
      for (;;) {
        let char = this.#peek();
        if (char === '}') {
          this.#position += 1;
          return result;
        }
        if (char === ',') {
          this.#position += 1;
          char = this.#peek();
        }
        if (char !== '"') throw new SyntaxError(`Expected a property name at position ${this.#position}`);
        const key = this.#string();
        if (!key.complete) return result;
        if (this.#peek() !== ':') throw new SyntaxError(`Expected ":" at position ${this.#position}`);
        this.#position += 1;
        const value = this.#member();
        if (value === missing) return result;
        result[key.value] = value;
        if (this.#incomplete) return result;
      }
    } catch (error) {
      if (error === endOfText) {
        this.#incomplete = true;
        return result;
      }
      throw error;
    }
  }

  #array(): unknown[] {
    const result: unknown[] = [];
    this.#position += 1;
    try {
      for (;;) {
        let char = this.#peek();
        if (char === ']') {
          this.#position += 1;
          return result;
        }
        if (char === ',') {
          this.#position += 1;
          char = this.#peek();
        }
        const value = this.#member();
        if (value === missing) return result;
        result.push(value);
        if (this.#incomplete) return result;
      }
    } catch (error) {
      if (error === endOfText) {
        this.#incomplete = true;
        return result;
      }
      throw error;
    }
  }

  /** Set once the text ended inside a value: every enclosing container stops there. */
  #incomplete = false;

  /** A member value; `missing` when the text ended before any usable part of it. */
  #member(): unknown {
    try {
      return this.#value();
    } catch (error) {
      if (error === endOfText) {
        this.#incomplete = true;
        return missing;
      }
      throw error;
    }
  }

  #string(): { value: string; complete: boolean } {
    const text = this.#text;
    this.#position += 1;
    let value = '';
    let start = this.#position;
    while (this.#position < text.length) {
      const char = text[this.#position] as string;
      if (char === '"') {
        value += text.slice(start, this.#position);
        this.#position += 1;
        return { value, complete: true };
      }
      if (char === '\\') {
        value += text.slice(start, this.#position);
        const escaped = text[this.#position + 1];
        if (escaped === undefined) break;
        if (escaped === 'u') {
          const hex = text.slice(this.#position + 2, this.#position + 6);
          if (hex.length < 4) break;
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new SyntaxError(`Bad unicode escape at ${this.#position}`);
          value += String.fromCharCode(Number.parseInt(hex, 16));
          this.#position += 6;
        } else {
          const decoded = escapes[escaped];
          if (decoded === undefined) throw new SyntaxError(`Bad escape \\${escaped} at ${this.#position}`);
          value += decoded;
          this.#position += 2;
        }
        start = this.#position;
        continue;
      }
      this.#position += 1;
    }
    // The text ended inside the string (or inside an escape): keep what is there.
    if (this.#position >= text.length) value += text.slice(start, this.#position);
    this.#position = text.length;
    this.#incomplete = true;
    return { value, complete: false };
  }

  #number(): number {
    const text = this.#text;
    const match = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    match.lastIndex = this.#position;
    const found = match.exec(text);
    if (found === null) {
      // A lone "-" at the very end.
      if (this.#position + 1 >= text.length) {
        this.#position = text.length;
        throw endOfText;
      }
      throw new SyntaxError(`Bad number at position ${this.#position}`);
    }
    const end = this.#position + found[0].length;
    if (end >= text.length) {
      // The number may go on ("12" of "123", "1." of "1.5"): not usable yet.
      const rest = text.slice(end);
      if (rest === '' || /^[.eE+-]/.test(rest)) {
        this.#position = text.length;
        throw endOfText;
      }
    }
    if (end < text.length && /[.eE]/.test(text[end] as string)) {
      // "1." or "1e" cut at the end.
      if (/^[.eE][+-]?$/.test(text.slice(end))) {
        this.#position = text.length;
        throw endOfText;
      }
      throw new SyntaxError(`Bad number at position ${this.#position}`);
    }
    this.#position = end;
    return Number(found[0]);
  }

  #literal(): unknown {
    const text = this.#text;
    for (const [word, value] of literals) {
      if (text.startsWith(word, this.#position)) {
        this.#position += word.length;
        return value;
      }
      const rest = text.slice(this.#position);
      if (rest.length < word.length && word.startsWith(rest)) {
        this.#position = text.length;
        throw endOfText;
      }
    }
    throw new SyntaxError(
      `Unexpected character ${JSON.stringify(text[this.#position])} at ${this.#position}`,
    );
  }
}

const escapes: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const literals: ReadonlyArray<readonly [string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];
