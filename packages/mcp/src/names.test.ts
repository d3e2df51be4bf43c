import { describe, expect, it } from 'vitest';
import { baseToolName, ToolNamer } from './names.ts';

describe('tool names', () => {
  it('sanitizes to [A-Za-z0-9_-], caps the server prefix at 30 and the name at 64', () => {
    expect(baseToolName('git hub', 'search.issues/v2')).toBe('git_hub__search_issues_v2');
    expect(baseToolName('', 'ok')).toBe('server__ok');
    expect(baseToolName('s', '')).toBe('s__tool');
    const long = baseToolName('a'.repeat(50), 'b'.repeat(80));
    expect(long).toBe(`${'a'.repeat(30)}__${'b'.repeat(32)}`);
    expect(long).toHaveLength(64);
    expect(baseToolName('naïve', 'émoji🙂')).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('suffixes collisions with -2, -3 within 64 characters', () => {
    const namer = new ToolNamer();
    const names = namer.assign([
      { server: 'a.b', tool: 'x' },
      { server: 'a_b', tool: 'x' },
      { server: 'a b', tool: 'x' },
      { server: 'l'.repeat(40), tool: `${'t'.repeat(70)}1` },
      { server: 'l'.repeat(40), tool: `${'t'.repeat(70)}2` },
    ]);
    expect(names.slice(0, 3)).toEqual(['a_b__x', 'a_b__x-2', 'a_b__x-3']);
    expect(names[3]).toHaveLength(64);
    expect(names[4]).toBe(`${names[3]?.slice(0, 62)}-2`);
    expect(new Set(names).size).toBe(names.length);
  });

  it('keeps a name once given while the tool exists, and frees it when the tool goes', () => {
    const namer2 = new ToolNamer();
    // The tool named first keeps the base name when a colliding one comes first in order later.
    namer2.assign([{ server: 'a.b', tool: 'x' }]);
    expect(
      namer2.assign([
        { server: 'a_b', tool: 'x' },
        { server: 'a.b', tool: 'x' },
      ]),
    ).toEqual(['a_b__x-2', 'a_b__x']);
    expect(namer2.assign([{ server: 'a_b', tool: 'x' }])).toEqual(['a_b__x-2']);
    expect(new ToolNamer().assign([{ server: 'a_b', tool: 'x' }])).toEqual(['a_b__x']);
  });
});
