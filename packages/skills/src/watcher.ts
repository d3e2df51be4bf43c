// Watching the skill roots so an edit shows in the next snapshot without rescanning per turn.
import { type FSWatcher as DirectoryWatcher, existsSync, watch as watchDirectory } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import type { FSWatcher } from 'chokidar';

/**
 * Watches directories and reports changes, debounced. Contract: `watch` replaces the set of
 * watched roots (idempotent for the same set); `onChange` runs at most once per debounce window
 * after any add, change or unlink below a root, or the creation of a root that did not exist;
 * `ready` resolves once the operating system watches are in place (so an edit made after it
 * is seen); `close` stops everything and is safe to call twice.
 */
export interface SkillsWatcher {
  watch(roots: readonly string[]): Promise<void>;
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface SkillsWatcherOptions {
  readonly onChange: (paths: readonly string[]) => void;
  readonly debounceMs?: number;
  /** Levels below a root to watch (the discovery depth, plus one for the SKILL.md itself). */
  readonly depth?: number;
  readonly onError?: (error: Error) => void;
}

export const defaultWatchDebounceMs = 250;

export function createSkillsWatcher(options: SkillsWatcherOptions): SkillsWatcher {
  const debounceMs = options.debounceMs ?? defaultWatchDebounceMs;
  let rootsKey = '';
  let roots: string[] = [];
  let watchers: FSWatcher[] = [];
  let ancestorWatchers: DirectoryWatcher[] = [];
  // Rebuilds run one after another, so two quick changes never leave a watcher open.
  let chain: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let pending: string[] = [];
  let closed = false;

  const flush = () => {
    timer = undefined;
    const paths = pending;
    pending = [];
    options.onChange(paths);
    // A root may have appeared: watch it (and stop watching its ancestor).
    if (paths.some((path) => roots.some((root) => root === path || root.startsWith(path + sep)))) {
      void rebuild();
    }
  };
  const record = (path: string) => {
    if (closed) return;
    pending.push(path);
    if (timer === undefined) timer = setTimeout(flush, debounceMs);
  };

  async function start(): Promise<void> {
    const { watch } = await import('chokidar');
    const existing = roots.filter((root) => existsSync(root));
    // Missing roots: watch the nearest existing ancestor, one level, to see the root appear.
    const ancestors = [...new Set(roots.filter((root) => !existsSync(root)).map(nearestExisting))];
    const created: FSWatcher[] = [];
    const readies: Promise<void>[] = [];
    if (existing.length > 0) {
      const watcher = watch(existing, {
        ignoreInitial: true,
        depth: options.depth ?? 7,
        followSymlinks: true,
      });
      watcher.on('all', (_event, path) => record(resolve(path)));
      watcher.on('error', (error) => options.onError?.(error as Error));
      readies.push(new Promise((done) => watcher.once('ready', () => done())));
      created.push(watcher);
    }
    watchers = created;
    // An ancestor (a workspace, the state directory) only matters when the folder on the way to
    // a root appears in it. A plain directory watch reports the changed entry's name, so the
    // database and the agent's notes written there cost a name comparison, not a rescan of the
    // directory (chokidar re-reads a directory on every change in it).
    ancestorWatchers = ancestors.flatMap((ancestor) => {
      const wanted = new Set(
        roots
          .filter((root) => root.startsWith(ancestor + sep))
          .map((root) => root.slice(ancestor.length + 1).split(sep)[0] ?? ''),
      );
      try {
        const watcher = watchDirectory(ancestor, { persistent: false }, (_event, name) => {
          const entry = name?.toString();
          if (entry === undefined || wanted.has(entry))
            record(entry === undefined ? ancestor : join(ancestor, entry));
        });
        watcher.on('error', (error) => options.onError?.(error));
        return [watcher];
      } catch (error) {
        options.onError?.(error as Error);
        return [];
      }
    });
    await Promise.all(readies);
  }

  async function replaceWatchers(): Promise<void> {
    const previous = watchers;
    watchers = [];
    for (const watcher of ancestorWatchers) watcher.close();
    ancestorWatchers = [];
    await Promise.all(previous.map((watcher) => watcher.close()));
    if (closed || roots.length === 0) return;
    await start();
  }

  function rebuild(): Promise<void> {
    chain = chain.then(replaceWatchers).catch((error: unknown) => options.onError?.(error as Error));
    return chain;
  }

  return {
    async watch(next) {
      const sorted = [...new Set(next.map((root) => resolve(root)))].sort();
      const key = sorted.join('\0');
      if (key === rootsKey || closed) return chain;
      rootsKey = key;
      roots = sorted;
      return rebuild();
    },
    ready: () => chain,
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await chain;
      for (const watcher of ancestorWatchers) watcher.close();
      ancestorWatchers = [];
      await Promise.all(watchers.map((watcher) => watcher.close()));
      watchers = [];
    },
  };
}

function nearestExisting(path: string): string {
  let current = dirname(path);
  while (!existsSync(current)) {
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}
