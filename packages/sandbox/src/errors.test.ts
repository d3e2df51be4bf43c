import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { SandboxError, sandboxErrorCodes } from './errors.ts';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => join(directory, name));
}

describe('sandbox error codes', () => {
  it('documents every code the source uses, and uses every documented code', () => {
    const table: ErrorCodeTable = sandboxErrorCodes;
    const used = new Set<string>();
    for (const file of sourceFiles(import.meta.dirname)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/'(SANDBOX_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    for (const code of used) expect(table, `${code} is used but not documented`).toHaveProperty(code);
    for (const [code, sentence] of Object.entries(table)) {
      expect(used.has(code), `${code} is documented but never used`).toBe(true);
      expect(sentence.length, `${code} needs a sentence`).toBeGreaterThan(20);
      expect(code).toMatch(/^SANDBOX_[A-Z]+(_[A-Z]+)*$/);
    }
  });

  it('is a SwitchboardError with its code and details', () => {
    const error = new SandboxError('SANDBOX_JOB_NOT_FOUND', 'No background job "x" in this session.', {
      details: { jobId: 'x' },
    });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.name).toBe('SandboxError');
    expect(error.toJSON()).toMatchObject({
      code: 'SANDBOX_JOB_NOT_FOUND',
      details: { jobId: 'x' },
      retryable: false,
    });
  });
});
