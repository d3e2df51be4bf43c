// `switchboard logs [--follow] [--json]`: the gateway's log file (logging.file in the config),
// as written or one JSON object a line.
import { existsSync, readFileSync, statSync, watch } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { CommandValues } from '../arguments.ts';
import { type CliIo, exitCodes } from '../io.ts';

/** One log line as data: `time LEVEL message key=value…`. */
function parseLogLine(line: string): Record<string, string> {
  const match = /^(\S+) (DEBUG|INFO|WARN|ERROR)\s+(.*)$/.exec(line);
  return match === null
    ? { text: line }
    : { time: match[1] ?? '', level: (match[2] ?? '').toLowerCase(), text: match[3] ?? '' };
}

/** Prints the gateway's log file (`logging.file`); `--follow` keeps printing what is appended. */
export async function logsCommand(
  _words: readonly string[],
  values: CommandValues,
  io: CliIo,
): Promise<number> {
  const { loadConfig } = await import('../../config/load.ts');
  const { resolveStateDirectory } = await import('../../state/state-directory.ts');
  const state =
    typeof values['state-dir'] === 'string' ? values['state-dir'] : resolveStateDirectory(io.environment);
  const loaded = loadConfig({
    stateDirectory: state,
    environment: io.environment,
    ...(typeof values.config === 'string' ? { path: values.config } : {}),
  });
  const configured = loaded.config.logging.file;
  if (configured === undefined) {
    io.error(
      'the gateway logs to stderr only; set logging.file in the config to keep a log file (then: switchboard logs --follow)\n',
    );
    return exitCodes.failed;
  }
  // The gateway opens the path as written, relative to where it runs; try that, then beside the config.
  const candidates = [resolve(configured)];
  if (!isAbsolute(configured) && loaded.path !== undefined)
    candidates.push(resolve(loaded.path, '..', configured));
  const file = candidates.find((candidate) => existsSync(candidate));
  if (file === undefined && values.follow !== true) {
    io.error(`the log file ${candidates[0]} does not exist yet (the gateway creates it when it logs)\n`);
    return exitCodes.notFound;
  }
  const path = file ?? candidates[0] ?? configured;
  let offset = 0;
  let partial = '';
  const emit = (text: string) => {
    if (values.json !== true) {
      io.out(text);
      return;
    }
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line !== '') io.out(`${JSON.stringify(parseLogLine(line))}\n`);
  };
  const dump = () => {
    if (!existsSync(path)) return;
    const size = statSync(path).size;
    if (size < offset) offset = 0;
    if (size === offset) return;
    emit(readFileSync(path).subarray(offset, size).toString('utf8'));
    offset = size;
  };
  dump();
  if (values.follow !== true) return exitCodes.ok;
  await new Promise<void>((resolveFollow) => {
    // fs.watch misses appends on some file systems; a short poll backs it up.
    const watcher = existsSync(path) ? watch(path, () => dump()) : undefined;
    const poll = setInterval(dump, 250);
    const stop = () => {
      watcher?.close();
      clearInterval(poll);
      dump();
      resolveFollow();
    };
    if (io.signal !== undefined) {
      if (io.signal.aborted) stop();
      io.signal.addEventListener('abort', stop, { once: true });
    } else {
      // Ctrl-C ends following quietly, with exit 0.
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }
  });
  return exitCodes.ok;
}
