import { mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MemoryIndex, type MemoryIndexOptions, openMemoryIndex } from '../src/memory-index.ts';
import { defaultSearchSettings } from '../src/ranking.ts';
import { writeCorpus } from './corpus.ts';

let root: string;
let workspace: string;
const opened: MemoryIndex[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'memory-index-'));
  workspace = join(root, 'workspace');
  await mkdir(join(workspace, 'memory'), { recursive: true });
});

afterEach(async () => {
  for (const index of opened.splice(0)) await index.close();
  await rm(root, { recursive: true, force: true });
});

async function open(options: Partial<MemoryIndexOptions> = {}): Promise<MemoryIndex> {
  const index = await openMemoryIndex({
    workspaceDir: workspace,
    databasePath: join(root, 'state', 'memory', 'main.sqlite'),
    watch: false,
    ...options,
  });
  opened.push(index);
  return index;
}

async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('memory index, keyword-only', () => {
  it('finds the known answers of a generated corpus (recall@5)', async () => {
    const corpus = await writeCorpus(workspace, 120);
    // Recency decay is measured on its own below; here every note counts the same.
    const index = await open({
      search: { ...defaultSearchSettings, temporalDecay: { enabled: false, halfLifeDays: 30 } },
    });
    expect(index.status()).toMatchObject({ files: 120, mode: 'keyword' });
    let found = 0;
    for (const answer of corpus.answers) {
      const { results } = await index.search(answer.query, { maxResults: 5 });
      if (results.some((result) => result.path === answer.path)) found++;
    }
    const recall = found / corpus.answers.length;
    console.log(`keyword-only recall@5 on ${corpus.answers.length} known answers: ${recall.toFixed(3)}`);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it('finds CJK text by a two-character word', async () => {
    await writeFile(
      join(workspace, 'memory', '2026-11-20.md'),
      '# 会议\n\n我们讨论了记忆系统的设计，决定使用混合检索。\n',
    );
    await writeFile(join(workspace, 'MEMORY.md'), '# 好み\n\nユーザーは東京に住んでいます。\n');
    const index = await open();
    const chinese = await index.search('记忆');
    expect(chinese.results.map((result) => result.path)).toEqual(['memory/2026-11-20.md']);
    const japanese = await index.search('東京');
    expect(japanese.results[0]?.citation).toBe('MEMORY.md#1-3');
  });

  it('re-indexes only what changed: an edited file, a deleted file, a new file', async () => {
    await writeFile(join(workspace, 'MEMORY.md'), '# Facts\n\nThe deploy window is Tuesday.\n');
    await writeFile(join(workspace, 'memory', '2026-11-01.md'), 'The router password hint is lighthouse.\n');
    await writeFile(join(workspace, 'memory', '2026-11-02.md'), 'Unrelated note about lunch.\n');
    const first = await open();
    expect(first.status().counters.filesRead).toBe(3);
    await first.close();

    // A restart with nothing changed reads no file.
    const second = await open();
    expect(second.status().counters).toMatchObject({ filesChecked: 3, filesRead: 0 });
    await second.close();

    await writeFile(join(workspace, 'MEMORY.md'), '# Facts\n\nThe deploy window is Thursday.\n');
    await unlink(join(workspace, 'memory', '2026-11-01.md'));
    await writeFile(join(workspace, 'memory', 'projects.md'), 'Project Kestrel ships in March.\n');
    const third = await open();
    expect(third.status()).toMatchObject({ files: 3, lastSync: { indexed: 2, removed: 1 } });
    expect((await third.search('deploy window Thursday')).results[0]?.snippet).toContain('Thursday');
    expect(
      (await third.search('deploy window Tuesday', { minScore: 0 })).results
        .map((result) => result.snippet)
        .join(),
    ).not.toContain('Tuesday');
    expect((await third.search('lighthouse', { minScore: 0 })).results).toEqual([]);
    expect((await third.search('Kestrel')).results[0]?.path).toBe('memory/projects.md');
  });

  it('never scans the files per query: a search with no change does no file I/O and uses the FTS index', async () => {
    await writeCorpus(workspace, 50);
    const index = await open();
    const before = index.status().counters;
    for (let query = 0; query < 20; query++)
      await index.search(`Person${query}x what is the favourite colour`);
    const after = index.status().counters;
    expect(after.searches - before.searches).toBe(20);
    expect(after.filesChecked).toBe(before.filesChecked);
    expect(after.filesRead).toBe(before.filesRead);
    expect(after.syncs).toBe(before.syncs);
    // The keyword query is answered from the FTS5 index, not by reading every chunk.
    const { openIndexDatabase } = await import('../src/index-database.ts');
    const database = await openIndexDatabase(join(root, 'state', 'memory', 'main.sqlite'));
    const plan = database.database
      .prepare(
        'EXPLAIN QUERY PLAN SELECT rowid, bm25(chunks_fts) AS rank FROM chunks_fts WHERE chunks_fts MATCH \'"teal"\' ORDER BY rank LIMIT 24',
      )
      .all()
      .map((row) => String(row.detail));
    database.close();
    expect(plan.join('\n')).toMatch(/VIRTUAL TABLE INDEX/);
    expect(plan.join('\n')).not.toMatch(/SCAN chunks\b/);
  });

  it('re-indexes a file the watcher saw change, before the next search', async () => {
    await writeFile(join(workspace, 'MEMORY.md'), '# Facts\n\nNothing yet.\n');
    const index = await open({ watch: true, watchDebounceMs: 50 });
    expect(index.status().watching).toBe(true);
    await writeFile(join(workspace, 'memory', '2026-11-24.md'), 'The office moved to Harbour Street.\n');
    await waitFor(async () => index.status().files === 2, 'the watcher to index the new note');
    expect((await index.search('Harbour Street')).results[0]?.path).toBe('memory/2026-11-24.md');
    // A note written in a folder created after the index opened.
    await mkdir(join(workspace, 'memory', 'people'));
    await writeFile(join(workspace, 'memory', 'people', 'bob.md'), 'Bob prefers tea.\n');
    await waitFor(async () => (await index.search('Bob tea')).results.length > 0, 'the note in a new folder');
    await unlink(join(workspace, 'memory', '2026-11-24.md'));
    await waitFor(async () => index.status().files === 2, 'the deleted note to leave the index');
  });

  it('ranks a recent dated note above an old one with the same words, and keeps MEMORY.md evergreen', async () => {
    await writeFile(join(workspace, 'memory', '2025-01-10.md'), 'The standup moved to 10:00.\n');
    await writeFile(join(workspace, 'memory', '2026-11-20.md'), 'The standup moved to 09:30.\n');
    await writeFile(join(workspace, 'MEMORY.md'), 'The standup moved to 09:00 for good.\n');
    const index = await open({ now: () => Date.UTC(2026, 10, 25) });
    const { results } = await index.search('standup moved', { minScore: 0 });
    const order = results.map((result) => result.path);
    expect(order.indexOf('memory/2026-11-20.md')).toBeLessThan(order.indexOf('memory/2025-01-10.md'));
    expect(results.find((result) => result.path === 'MEMORY.md')!.score).toBeGreaterThan(
      results.find((result) => result.path === 'memory/2025-01-10.md')!.score,
    );
  });

  it('reads bounded excerpts of memory files and refuses other paths', async () => {
    const lines = Array.from({ length: 500 }, (_, index) => `line ${index + 1}`);
    await writeFile(join(workspace, 'memory', 'long.md'), lines.join('\n'));
    await writeFile(join(workspace, 'notes.txt'), 'not memory');
    await writeFile(join(root, 'secret.md'), 'outside');
    await symlink(join(root, 'secret.md'), join(workspace, 'memory', 'link.md'));
    const index = await open();
    const excerpt = await index.read('memory/long.md', { from: 10, lines: 3 });
    expect(excerpt).toMatchObject({
      text: 'line 10\nline 11\nline 12',
      from: 10,
      to: 12,
      totalLines: 500,
      truncated: true,
    });
    expect((await index.read('memory/long.md#20-25')).text.split('\n')[0]).toBe('line 20');
    expect((await index.read('memory/long.md', { lines: 10_000 })).text.split('\n')).toHaveLength(300);
    await expect(index.read('notes.txt')).rejects.toMatchObject({ code: 'MEMORY_PATH_REFUSED' });
    await expect(index.read('../secret.md')).rejects.toMatchObject({ code: 'MEMORY_PATH_REFUSED' });
    await expect(index.read('memory/link.md')).rejects.toMatchObject({ code: 'MEMORY_PATH_REFUSED' });
    await expect(index.read('memory/none.md')).rejects.toMatchObject({ code: 'MEMORY_FILE_NOT_FOUND' });
    await expect(index.search('  ')).rejects.toMatchObject({ code: 'MEMORY_INVALID_ARGUMENT' });
    // The symbolic link was not indexed either.
    expect((await index.search('outside', { minScore: 0 })).results).toEqual([]);
    expect(await readFile(join(root, 'secret.md'), 'utf8')).toBe('outside');
  });

  it('refuses bad settings with the key path', async () => {
    await expect(open({ chunking: { tokens: 100, overlap: 100 } })).rejects.toMatchObject({
      code: 'MEMORY_INVALID_SETTINGS',
      message: expect.stringContaining('memory.search.chunking.overlap'),
    });
  });
});
