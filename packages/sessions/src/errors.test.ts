import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { SessionsError, sessionsErrorCodes } from './errors.ts';

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) files.push(path);
  }
  return files;
}

describe('sessions error codes', () => {
  it('documents every code the source uses, and uses every documented code', () => {
    const table: ErrorCodeTable = sessionsErrorCodes;
    const used = new Set<string>();
    for (const file of sourceFiles(import.meta.dirname)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/'(SESSIONS_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    for (const code of used) expect(table, `${code} is thrown but not documented`).toHaveProperty(code);
    for (const [code, sentence] of Object.entries(table)) {
      expect(used.has(code), `${code} is documented but never used`).toBe(true);
      expect(sentence.length, `${code} needs a sentence`).toBeGreaterThan(20);
      expect(code).toMatch(/^SESSIONS_[A-Z]+(_[A-Z]+)*$/);
    }
  });

  it('is a SwitchboardError with its code and details', () => {
    const error = new SessionsError('SESSIONS_NOT_FOUND', 'No session exists under the key "x".', {
      details: { key: 'x' },
    });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.name).toBe('SessionsError');
    expect(error.toJSON()).toMatchObject({
      code: 'SESSIONS_NOT_FOUND',
      details: { key: 'x' },
      retryable: false,
    });
  });
});
