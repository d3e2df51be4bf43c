// Reading an OpenClaw state directory, never writing it: JSON and JSON5 files, JSONL
// transcripts and the SQLite databases of 2026.9 (opened read-only).
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import JSON5 from 'json5';
import { ImportError } from './errors.ts';

/** Where the parts of an OpenClaw state directory live (2026.6 files and 2026.9 databases). */
export interface OpenClawLayout {
  readonly root: string;
  readonly configPath: string;
  readonly credentialsDirectory: string;
  readonly agentsDirectory: string;
  /** The shared 2026.9 database: pairing, cron jobs. */
  readonly stateDatabasePath: string;
  readonly cronJobsPath: string;
}

/** `~/.openclaw`, or `OPENCLAW_STATE_DIR`, as OpenClaw itself resolves it. */
export function defaultOpenClawDirectory(environment: NodeJS.ProcessEnv): string {
  const fromEnvironment = environment.OPENCLAW_STATE_DIR?.trim();
  if (fromEnvironment !== undefined && fromEnvironment !== '') return expandHome(fromEnvironment);
  return join(environment.HOME ?? homedir(), '.openclaw');
}

function expandHome(path: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return path;
}

export function locateOpenClaw(from: string): OpenClawLayout {
  const root = resolve(expandHome(from));
  const layout: OpenClawLayout = {
    root,
    configPath: join(root, 'openclaw.json'),
    credentialsDirectory: join(root, 'credentials'),
    agentsDirectory: join(root, 'agents'),
    stateDatabasePath: join(root, 'state', 'openclaw.sqlite'),
    cronJobsPath: join(root, 'cron', 'jobs.json'),
  };
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new ImportError('IMPORT_SOURCE_NOT_FOUND', `OpenClaw state directory ${root} does not exist`);
  if (!existsSync(layout.configPath) && !existsSync(layout.agentsDirectory))
    throw new ImportError(
      'IMPORT_SOURCE_NOT_FOUND',
      `${root} is not an OpenClaw state directory: it has neither openclaw.json nor agents/ (use --from to name the right one)`,
    );
  return layout;
}

export function readJsonFile(path: string, format: 'json' | 'json5' = 'json'): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ImportError('IMPORT_SOURCE_UNREADABLE', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    return format === 'json5' ? JSON5.parse(text) : JSON.parse(text);
  } catch (error) {
    throw new ImportError(
      'IMPORT_SOURCE_UNREADABLE',
      `${path} is not valid ${format === 'json5' ? 'JSON5' : 'JSON'}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

export function readJsonFileIfPresent(path: string): unknown {
  return existsSync(path) ? readJsonFile(path) : undefined;
}

/** The lines of a JSONL file that parse; `invalid` counts the others (reported, not fatal). */
export function readJsonLines(path: string): { values: unknown[]; invalid: number } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ImportError('IMPORT_SOURCE_UNREADABLE', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const values: unknown[] = [];
  let invalid = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      invalid += 1;
    }
  }
  return { values, invalid };
}

export function listDirectories(path: string): string[] {
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

export function listFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
}

/** A path from OpenClaw's config: `~` expanded, relative paths taken from the state directory. */
export function resolveOpenClawPath(root: string, path: string): string {
  const expanded = expandHome(path);
  return isAbsolute(expanded) ? expanded : resolve(root, expanded);
}

/** A copy of an OpenClaw database, opened for reading; `close` removes the copy. */
export interface OpenClawDatabase {
  readonly database: DatabaseSync;
  close(): void;
}

/**
 * Opens a snapshot of an OpenClaw database. SQLite writes `-wal` and `-shm` files beside a
 * WAL database even when it is opened read-only, so the database (with its WAL, which may
 * hold committed rows not yet checkpointed) is copied to a temporary folder and read there:
 * OpenClaw's directory is never written.
 */
export async function openReadOnlyDatabase(path: string): Promise<OpenClawDatabase> {
  const { DatabaseSync } = await import('node:sqlite');
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-openclaw-import-'));
  const copy = join(folder, basename(path));
  try {
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    const database = new DatabaseSync(copy, { enableForeignKeyConstraints: false });
    return {
      database,
      close() {
        database.close();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw new ImportError(
      'IMPORT_SOURCE_UNREADABLE',
      `cannot open the OpenClaw database ${path}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

export function tableExists(database: DatabaseSync, table: string): boolean {
  return (
    database.prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !==
    undefined
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
