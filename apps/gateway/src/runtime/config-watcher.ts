// Watches the config file for the reload (docs/decisions/0011-config-reload.md). It watches
// the file's directory, not the file: editors that save by writing a temporary file and
// renaming it over the original replace the inode, and a watch on the old inode goes silent.
// Events are debounced, so the burst one save makes (truncate, write, rename, chmod) is one
// reload of the final file.
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '@switchboard/hooks';

/** Runs `callback` after `milliseconds`; returns the function that cancels it. */
type ScheduleTimer = (callback: () => void, milliseconds: number) => () => void;

export interface ConfigWatcherOptions {
  /** The config file; it need not exist yet (its directory must). */
  readonly path: string;
  /** Quiet time after the last event before `onChange` runs, read at each event. */
  readonly debounceMs: () => number;
  /** False while reload on change is off (`gateway.reload.mode: "off"`): events are ignored. */
  readonly enabled?: () => boolean;
  readonly onChange: () => void;
  readonly logger: Logger;
  /** Default `setTimeout` (unref'd). */
  readonly schedule?: ScheduleTimer;
  /** Default `fs.watch`. */
  readonly watchDirectory?: (
    directory: string,
    listener: (event: string, filename: string | null) => void,
  ) => Pick<FSWatcher, 'close' | 'on'>;
}

export interface ConfigWatcher {
  close(): void;
}

const defaultSchedule: ScheduleTimer = (callback, milliseconds) => {
  const timer = setTimeout(callback, milliseconds);
  timer.unref();
  return () => clearTimeout(timer);
};

const defaultWatch: NonNullable<ConfigWatcherOptions['watchDirectory']> = (directory, listener) =>
  watch(directory, { persistent: false }, (event, filename) => listener(event, filename));

export function watchConfigFile(options: ConfigWatcherOptions): ConfigWatcher {
  const name = basename(options.path);
  const schedule = options.schedule ?? defaultSchedule;
  let cancel: (() => void) | undefined;
  let closed = false;
  let watcher: Pick<FSWatcher, 'close' | 'on'> | undefined;
  try {
    watcher = (options.watchDirectory ?? defaultWatch)(dirname(options.path), (_event, filename) => {
      // Some platforms do not say which file changed: treat it as ours.
      if (closed || (filename !== null && filename !== name)) return;
      if (options.enabled?.() === false) return;
      cancel?.();
      cancel = schedule(() => {
        cancel = undefined;
        if (!closed) options.onChange();
      }, options.debounceMs());
    });
    watcher.on('error', (error: unknown) => {
      options.logger.warn(
        'stopped watching the config file; SIGHUP or `switchboard config reload` still reload',
        {
          file: options.path,
          error: String(error),
        },
      );
      watcher?.close();
    });
  } catch (error) {
    options.logger.warn('cannot watch the config file; SIGHUP or `switchboard config reload` still reload', {
      file: options.path,
      error: String(error),
    });
  }
  return {
    close() {
      closed = true;
      cancel?.();
      watcher?.close();
    },
  };
}
