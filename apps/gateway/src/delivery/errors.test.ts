import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { DeliveryError, deliveryErrorCodes } from './errors.ts';

describe('delivery error codes', () => {
  it('documents every code used in the module, and uses every documented code', () => {
    const directory = import.meta.dirname;
    const used = new Set<string>();
    for (const file of readdirSync(directory)) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file === 'errors.ts') continue;
      for (const match of readFileSync(join(directory, file), 'utf8').matchAll(/'(DELIVERY_[A-Z_]+)'/g)) {
        used.add(match[1] as string);
      }
    }
    const documented = Object.keys(deliveryErrorCodes);
    for (const code of used) expect(documented).toContain(code);
    for (const code of documented) {
      expect(used).toContain(code);
      expect(code).toMatch(/^DELIVERY_[A-Z_]+$/);
      expect(deliveryErrorCodes[code as keyof typeof deliveryErrorCodes].length).toBeGreaterThan(20);
    }
  });

  it('is a Switchboard error with its code and details', () => {
    const error = new DeliveryError('DELIVERY_INVALID_OPTIONS', 'chunker.minChars must be an integer >= 1', {
      details: { path: 'chunker.minChars' },
    });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.name).toBe('DeliveryError');
    expect(error.toJSON()).toMatchObject({
      code: 'DELIVERY_INVALID_OPTIONS',
      details: { path: 'chunker.minChars' },
    });
  });
});
