import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MemoryIndex, openMemoryIndex } from '../src/memory-index.ts';
import { renderSessionMemory } from '../src/session-memory.ts';
import { createMemoryTools } from '../src/tools.ts';

let root: string;
let workspace: string;
let index: MemoryIndex | undefined;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'memory-tools-'));
  workspace = join(root, 'workspace');
  await mkdir(join(workspace, 'memory'), { recursive: true });
});
afterEach(async () => {
  await index?.close();
  index = undefined;
  await rm(root, { recursive: true, force: true });
});

function textOf(result: { content: ReadonlyArray<{ type: string; text?: string }> }): string {
  return result.content.map((part) => part.text ?? '').join('');
}

describe('memory tools', () => {
  it('memory_search returns cited snippets; memory_get reads around a citation', async () => {
    await writeFile(
      join(workspace, 'memory', '2026-11-20.md'),
      '# Trip\n\nFlight to Porto leaves at 07:40 from gate B12.\n',
    );
    let opened = 0;
    const tools = createMemoryTools(async () => {
      opened++;
      index ??= await openMemoryIndex({
        workspaceDir: workspace,
        databasePath: join(root, 'index.sqlite'),
        watch: false,
      });
      return index;
    });
    expect(opened).toBe(0); // listing the tools opens nothing
    const [search, get] = tools;
    expect(search!.name).toBe('memory_search');
    const signal = new AbortController().signal;
    const found = await search!.execute('call-1', { query: 'Porto flight' }, signal, () => {});
    expect(textOf(found)).toContain('1 memory result for "Porto flight":');
    expect(textOf(found)).toContain('memory/2026-11-20.md#1-3');
    expect(textOf(found)).toContain('Flight to Porto leaves at 07:40');
    const excerpt = await get!.execute(
      'call-2',
      { path: 'memory/2026-11-20.md#3-3', lines: 1 },
      signal,
      () => {},
    );
    expect(textOf(excerpt)).toBe(
      'memory/2026-11-20.md lines 3-3 of 4:\nFlight to Porto leaves at 07:40 from gate B12.\n[more: memory_get path=memory/2026-11-20.md from=4]',
    );
    const nothing = await search!.execute('call-3', { query: 'submarine' }, signal, () => {});
    expect(textOf(nothing)).toContain('No memory matched "submarine".');
    expect(textOf(nothing)).toContain('keyword-only: no embeddings provider is configured');
    // The loop checks the model's arguments against these schemas before execute runs.
    expect(search!.parameters.safeParse({ query: '' }).success).toBe(false);
    expect(get!.parameters.safeParse({ path: 'MEMORY.md', lines: 1000 }).success).toBe(false);
  });
});

describe('renderSessionMemory', () => {
  it('includes MEMORY.md within the budget and names the recent daily notes', async () => {
    expect(await renderSessionMemory({ workspaceDir: workspace, today: '2026-11-25' })).toBeUndefined();
    await writeFile(join(workspace, 'MEMORY.md'), `# Facts\n\n${'x'.repeat(50)}\nend`);
    await writeFile(join(workspace, 'memory', '2026-11-24.md'), 'yesterday');
    const text = await renderSessionMemory({ workspaceDir: workspace, today: '2026-11-25', maxChars: 20 });
    expect(text).toContain('## MEMORY.md\n# Facts');
    expect(text).toContain('[truncated at 20 characters: memory_get path=MEMORY.md from=3 for the rest]');
    expect(text).not.toContain('end');
    expect(text).toContain('- memory/2026-11-24.md (yesterday)');
    expect(text).not.toContain('(today)');
  });
});
