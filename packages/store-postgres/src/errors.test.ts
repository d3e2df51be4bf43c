import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { redactUrl, StorePostgresError, storePostgresErrorCodes } from './errors.ts';

describe('store-postgres error codes', () => {
  it('documents every code the source uses, and uses every documented code', () => {
    const table: ErrorCodeTable = storePostgresErrorCodes;
    const used = new Set<string>();
    for (const entry of readdirSync(import.meta.dirname)) {
      if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
      const text = readFileSync(join(import.meta.dirname, entry), 'utf8');
      for (const match of text.matchAll(/'(STORE_POSTGRES_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    for (const code of used) expect(table, `${code} is thrown but not documented`).toHaveProperty(code);
    for (const [code, sentence] of Object.entries(table)) {
      expect(used.has(code), `${code} is documented but never used`).toBe(true);
      expect(sentence.length).toBeGreaterThan(20);
    }
  });

  it('is a SwitchboardError; URLs in messages hide the password', () => {
    const error = new StorePostgresError('STORE_POSTGRES_INVALID_URL', 'bad');
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(redactUrl('postgres://bot:secret@db.internal:5432/switchboard')).toBe(
      'postgres://bot:***@db.internal:5432/switchboard',
    );
  });
});
