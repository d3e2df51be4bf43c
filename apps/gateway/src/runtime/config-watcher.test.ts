import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { type ConfigWatcherOptions, watchConfigFile } from './config-watcher.ts';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A watcher with a fake directory watch and manual timers. */
function fakeWatcher(overrides: Partial<ConfigWatcherOptions> = {}) {
  let emit: ((event: string, filename: string | null) => void) | undefined;
  const timers: Array<{ callback: () => void; milliseconds: number; cancelled: boolean }> = [];
  let changes = 0;
  let watchedDirectory: string | undefined;
  const watcher = watchConfigFile({
    path: '/state/switchboard.json',
    debounceMs: () => 300,
    onChange: () => {
      changes += 1;
    },
    logger: silent,
    schedule: (callback, milliseconds) => {
      const timer = { callback, milliseconds, cancelled: false };
      timers.push(timer);
      return () => {
        timer.cancelled = true;
      };
    },
    watchDirectory: (directory, listener) => {
      watchedDirectory = directory;
      emit = listener;
      return { close() {}, on: () => undefined as never };
    },
    ...overrides,
  });
  return {
    watcher,
    emit: (event: string, filename: string | null) => emit?.(event, filename),
    /** Fires every timer still pending. */
    elapse: () => {
      for (const timer of timers.splice(0)) if (!timer.cancelled) timer.callback();
    },
    pending: () => timers.filter((timer) => !timer.cancelled),
    changes: () => changes,
    watchedDirectory: () => watchedDirectory,
  };
}

describe('config watcher', () => {
  it("watches the file's directory and makes one reload of a burst of events (an editor's save)", () => {
    const run = fakeWatcher();
    expect(run.watchedDirectory()).toBe('/state');
    run.emit('rename', 'switchboard.json.tmp');
    run.emit('change', 'switchboard.json');
    run.emit('rename', 'switchboard.json');
    run.emit('change', 'switchboard.json');
    expect(run.pending()).toHaveLength(1);
    expect(run.pending()[0]?.milliseconds).toBe(300);
    expect(run.changes()).toBe(0);
    run.elapse();
    expect(run.changes()).toBe(1);
  });

  it('ignores other files, events while reload on change is off, and everything once closed', () => {
    let enabled = false;
    const run = fakeWatcher({ enabled: () => enabled });
    run.emit('change', 'switchboard.json');
    run.emit('change', 'other.json');
    expect(run.pending()).toHaveLength(0);
    enabled = true;
    run.emit('change', null);
    expect(run.pending()).toHaveLength(1);
    run.watcher.close();
    run.elapse();
    run.emit('change', 'switchboard.json');
    expect(run.changes()).toBe(0);
  });

  it('sees a file replaced by rename (how many editors save), on the real file system', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'switchboard-watch-'));
    const path = join(directory, 'switchboard.json');
    writeFileSync(path, '{}');
    let watcher: ReturnType<typeof watchConfigFile> | undefined;
    const changed = new Promise<void>((resolve) => {
      watcher = watchConfigFile({ path, debounceMs: () => 20, onChange: resolve, logger: silent });
    });
    writeFileSync(join(directory, '.switchboard.json.swp'), '{ agents: {} }');
    renameSync(join(directory, '.switchboard.json.swp'), path);
    await changed;
    watcher?.close();
  });
});
