import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { TestkitError, testkitErrorCodes } from './errors.ts';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('testkit error codes', () => {
  it('documents every code the package uses, and uses every documented code', () => {
    const used = new Set<string>();
    for (const file of sourceFiles(join(import.meta.dirname, '..'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/'(TESTKIT_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    const documented = Object.keys(testkitErrorCodes);
    expect([...used].sort()).toEqual([...documented].sort());
    for (const sentence of Object.values(testkitErrorCodes)) expect(sentence.length).toBeGreaterThan(20);
  });

  it('is a SwitchboardError with its code, and serialises', () => {
    const error = new TestkitError('TESTKIT_WAIT_TIMEOUT', 'no request', { details: { seen: 0 } });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.name).toBe('TestkitError');
    expect(error.toJSON()).toEqual({
      name: 'TestkitError',
      code: 'TESTKIT_WAIT_TIMEOUT',
      message: 'no request',
      retryable: false,
      details: { seen: 0 },
    });
  });
});
