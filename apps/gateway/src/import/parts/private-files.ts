// The files an import writes, written carefully: atomically, mode 0600 (the config and the
// WhatsApp credentials hold secrets), compared with what is there before anything is written.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the import keeps its manifest (which config it wrote). */
export const manifestDirectory = (stateDirectory: string): string =>
  join(stateDirectory, 'imports', 'openclaw');

/** The hex SHA-256 of a text. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Writes a file atomically with mode 0600 (the config holds tokens). */
export function writePrivateFile(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** A file's text, or undefined when it does not exist. */
export function readTextIfPresent(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** Whether two JSON values serialise the same. */
export function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}
