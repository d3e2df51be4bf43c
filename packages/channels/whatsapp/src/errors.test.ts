import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { WhatsAppError, whatsappErrorCodes } from './errors.ts';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('WhatsAppError', () => {
  it('documents every code the package uses, and uses every documented code', () => {
    const used = new Set<string>();
    for (const file of sourceFiles(import.meta.dirname)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/'(WHATSAPP_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    expect([...used].sort()).toEqual(Object.keys(whatsappErrorCodes).sort());
    for (const sentence of Object.values(whatsappErrorCodes)) expect(sentence.length).toBeGreaterThan(30);
  });

  it('is a SwitchboardError that keeps its code and retryability', () => {
    const error = new WhatsAppError('WHATSAPP_RATE_LIMITED', 'slow down', { retryable: true });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.name).toBe('WhatsAppError');
    expect(error.toJSON()).toEqual({
      name: 'WhatsAppError',
      code: 'WHATSAPP_RATE_LIMITED',
      message: 'slow down',
      retryable: true,
    });
  });
});
