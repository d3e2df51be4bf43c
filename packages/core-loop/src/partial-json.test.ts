import { describe, expect, it } from 'vitest';
import { parsePartialJson, parseToolArguments } from './partial-json.ts';

describe('parsePartialJson', () => {
  it('parses complete JSON as JSON.parse does', () => {
    expect(parsePartialJson('{"a":[1,2,{"b":null}],"c":true}')).toEqual({ a: [1, 2, { b: null }], c: true });
  });

  it('closes open containers and keeps an unfinished string value', () => {
    expect(parsePartialJson('{"path": "src/ind')).toEqual({ path: 'src/ind' });
    expect(parsePartialJson('{"a": [1, 2, {"b": "x')).toEqual({ a: [1, 2, { b: 'x' }] });
    expect(parsePartialJson('[')).toEqual([]);
  });

  it('leaves out an unfinished key, number or literal', () => {
    expect(parsePartialJson('{"done": 1, "pa')).toEqual({ done: 1 });
    expect(parsePartialJson('{"n": 12')).toEqual({});
    expect(parsePartialJson('{"n": 1.')).toEqual({});
    expect(parsePartialJson('{"n": -')).toEqual({});
    expect(parsePartialJson('{"ok": tr')).toEqual({});
    expect(parsePartialJson('{"a": 1,')).toEqual({ a: 1 });
    expect(parsePartialJson('{"a":')).toEqual({});
    expect(parsePartialJson('')).toBeUndefined();
  });

  it('decodes escapes, and drops an escape cut in the middle', () => {
    expect(parsePartialJson('{"s": "line\\nnext \\u00e9')).toEqual({ s: 'line\nnext é' });
    expect(parsePartialJson('{"s": "abc\\')).toEqual({ s: 'abc' });
    expect(parsePartialJson('{"s": "abc\\u00')).toEqual({ s: 'abc' });
  });

  it('rejects text that cannot start a JSON value, and keeps what came before a bad token inside one', () => {
    expect(() => parsePartialJson('garbage')).toThrow(SyntaxError);
    expect(() => parsePartialJson('nope')).toThrow(SyntaxError);
    // The partial-json library reads a container up to the first thing it cannot read.
    expect(parsePartialJson('{"a": nope}')).toEqual({});
    expect(parsePartialJson('{"a": 1, "b": nope}')).toEqual({ a: 1 });
    expect(parsePartialJson('{a: 1}')).toEqual({});
    expect(parseToolArguments('{"a": nope}')).toEqual({});
  });

  it('grows monotonically over every prefix of a document', () => {
    const text = JSON.stringify({
      path: 'a/b.ts',
      lines: [10, 20],
      options: { follow: true, depth: 3 },
      note: 'x"y',
    });
    let previousKeys = 0;
    for (let end = 0; end <= text.length; end += 1) {
      const value = parseToolArguments(text.slice(0, end));
      const keys = Object.keys(value).length;
      expect(keys).toBeGreaterThanOrEqual(previousKeys);
      previousKeys = keys;
    }
    expect(parseToolArguments(text)).toEqual(JSON.parse(text));
  });

  it('parseToolArguments gives {} for non-objects and garbage', () => {
    expect(parseToolArguments('[1,2]')).toEqual({});
    expect(parseToolArguments('garbage')).toEqual({});
    expect(parseToolArguments('  ')).toEqual({});
  });
});
