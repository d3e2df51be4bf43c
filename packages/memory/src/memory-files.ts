// Which files are memory: `MEMORY.md` at the workspace root, every Markdown file under
// `memory/` (daily notes are `memory/YYYY-MM-DD[-slug].md`), and the operator's extra paths.
// Paths in the index, in results and in memory_get are workspace-relative with `/`
// separators; an extra path outside the workspace keeps its absolute path.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** The curated memory file, included at session start. */
export const memoryFileName = 'MEMORY.md';
/** The folder of daily notes and other memory files. */
export const memoryDirectoryName = 'memory';

/** Where memory lives for one agent: its workspace and the operator's extra paths. */
export interface MemoryLocations {
  readonly workspaceDir: string;
  /** Absolute paths of extra Markdown files or folders (resolved against the workspace). */
  readonly extraPaths: readonly string[];
}

export function resolveLocations(workspaceDir: string, extraPaths: readonly string[] = []): MemoryLocations {
  const root = resolve(workspaceDir);
  return { workspaceDir: root, extraPaths: extraPaths.map((path) => resolve(root, path)) };
}

/** The index's name for an absolute path: workspace-relative with `/`, or absolute outside it. */
export function displayPath(locations: MemoryLocations, absolute: string): string {
  const inside = relative(locations.workspaceDir, absolute);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return absolute;
  return inside.split(sep).join('/');
}

/** The absolute path of an index path. */
export function absolutePath(locations: MemoryLocations, path: string): string {
  return isAbsolute(path) ? path : resolve(locations.workspaceDir, path);
}

function isMarkdown(name: string): boolean {
  return name.toLowerCase().endsWith('.md');
}

function isUnder(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent + sep);
}

/**
 * True when an absolute path names a memory file: `MEMORY.md`, a Markdown file under
 * `memory/`, or a Markdown file that is (or lies under) an extra path.
 */
export function isMemoryFile(locations: MemoryLocations, absolute: string): boolean {
  if (absolute === join(locations.workspaceDir, memoryFileName)) return true;
  if (!isMarkdown(absolute)) return false;
  if (isUnder(join(locations.workspaceDir, memoryDirectoryName), absolute)) return true;
  return locations.extraPaths.some((extra) => isUnder(extra, absolute));
}

/** The roots a full scan walks: MEMORY.md, the memory folder and each extra path. */
export function memoryRoots(locations: MemoryLocations): string[] {
  return [
    join(locations.workspaceDir, memoryFileName),
    join(locations.workspaceDir, memoryDirectoryName),
    ...locations.extraPaths,
  ];
}

/**
 * Every Markdown file at or under `start` (a file or a folder; missing is empty). Symbolic
 * links are not followed, so a link cannot pull outside files into the index.
 */
export async function listMarkdownFiles(start: string): Promise<string[]> {
  const info = await stat(start).catch(() => undefined);
  if (info === undefined) return [];
  if (info.isFile()) return isMarkdown(start) ? [start] : [];
  if (!info.isDirectory()) return [];
  const found: string[] = [];
  const pending = [start];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      continue; // removed while walking
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() && isMarkdown(entry.name)) found.push(path);
    }
  }
  return found.sort();
}

const datedNotePattern = /^(\d{4})-(\d{2})-(\d{2})(?:[-_. ][^/]*)?\.md$/i;

/**
 * The day a dated note is about, as UTC midnight in milliseconds: a file under `memory/`
 * named `YYYY-MM-DD.md` or `YYYY-MM-DD-slug.md`. Undefined for `MEMORY.md` and every other
 * file, which are evergreen (no recency decay).
 */
export function noteDate(path: string): number | undefined {
  if (!path.startsWith(`${memoryDirectoryName}/`)) return undefined;
  const name = path.slice(path.lastIndexOf('/') + 1);
  const match = datedNotePattern.exec(name);
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const time = Date.UTC(year, month - 1, day);
  const date = new Date(time);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return undefined;
  return time;
}
