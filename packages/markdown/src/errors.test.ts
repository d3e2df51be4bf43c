import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { MarkdownError, markdownErrorCodes } from './errors.ts';

describe('markdown error codes', () => {
  it('documents every code the source uses, and uses every documented code', () => {
    const table: ErrorCodeTable = markdownErrorCodes;
    const used = new Set<string>();
    for (const name of readdirSync(import.meta.dirname)) {
      if (!name.endsWith('.ts') || name.includes('.test')) continue;
      const text = readFileSync(join(import.meta.dirname, name), 'utf8');
      for (const match of text.matchAll(/'(MARKDOWN_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    for (const code of used) expect(table, `${code} is used but not documented`).toHaveProperty(code);
    for (const [code, sentence] of Object.entries(table)) {
      expect(used.has(code), `${code} is documented but never used`).toBe(true);
      expect(sentence.length).toBeGreaterThan(20);
    }
  });

  it('is a SwitchboardError with its code and details', () => {
    const error = new MarkdownError('MARKDOWN_INVALID_LIMIT', 'bad limit', { details: { limit: 1 } });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.toJSON()).toMatchObject({ code: 'MARKDOWN_INVALID_LIMIT', details: { limit: 1 } });
  });
});
