import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from './workspace-files.ts';

function setup() {
  const base = mkdtempSync(join(tmpdir(), 'switchboard-workspace-'));
  const root = join(base, 'workspace');
  mkdirSync(root);
  writeFileSync(join(base, 'secret.txt'), 'top secret');
  writeFileSync(join(root, 'notes.md'), 'line one\nline two\nline three\n');
  return { base, root };
}

describe('workspace files', () => {
  it('reads, writes, edits and lists inside the workspace', async () => {
    const { root } = setup();
    const files = await openWorkspace(root);
    expect((await files.read('notes.md')).text).toContain('line two');
    expect((await files.read('notes.md', { offset: 2, limit: 1 })).text).toBe('line two');
    await files.write('sub/dir/new.txt', 'hello');
    expect(readFileSync(join(root, 'sub/dir/new.txt'), 'utf8')).toBe('hello');
    await files.edit('notes.md', 'line two', 'line 2');
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toContain('line 2');
    const listing = await files.list('.');
    expect(listing.entries.map((entry) => entry.name)).toEqual(['notes.md', 'sub']);
  });

  it('refuses .. and absolute paths that leave the workspace', async () => {
    const { base, root } = setup();
    const files = await openWorkspace(root);
    await expect(files.read('../secret.txt')).rejects.toThrow(/outside the agent workspace/);
    await expect(files.read(join(base, 'secret.txt'))).rejects.toThrow(/outside the agent workspace/);
    await expect(files.write('a/../../escape.txt', 'x')).rejects.toThrow(/outside the agent workspace/);
    await expect(files.list('..')).rejects.toThrow(/outside the agent workspace/);
  });

  it('refuses symbolic links that lead out, for reading and through parent directories', async () => {
    const { base, root } = setup();
    symlinkSync(join(base, 'secret.txt'), join(root, 'link.txt'));
    symlinkSync(base, join(root, 'outside-dir'));
    const files = await openWorkspace(root);
    await expect(files.read('link.txt')).rejects.toThrow(/symbolic link/);
    await expect(files.write('outside-dir/planted.txt', 'x')).rejects.toThrow(/symbolic link/);
    await expect(files.read('outside-dir/secret.txt')).rejects.toThrow(/symbolic link/);
  });

  it('requires an edit target that occurs exactly once', async () => {
    const { root } = setup();
    const files = await openWorkspace(root);
    await expect(files.edit('notes.md', 'line', 'x')).rejects.toThrow(/more than once/);
    await expect(files.edit('notes.md', 'absent', 'x')).rejects.toThrow(/not found/);
  });
});
