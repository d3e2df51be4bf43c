import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SwitchboardError } from './errors.ts';
import { PluginError, type PluginErrorCode, pluginErrorCodes } from './plugin-error.ts';

/** The package's source files other than the table itself. */
function sourceFiles(): string[] {
  return readdirSync(import.meta.dirname)
    .filter((file) => file.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(file) && file !== 'plugin-error.ts')
    .map((file) => readFileSync(join(import.meta.dirname, file), 'utf8'));
}

describe('PluginError', () => {
  it('documents every code with a sentence', () => {
    for (const [code, documentation] of Object.entries(pluginErrorCodes)) {
      expect(code).toMatch(/^PLUGIN_[A-Z_]+$/);
      expect(documentation.length, code).toBeGreaterThan(20);
      expect(documentation.endsWith('.'), code).toBe(true);
    }
  });

  it('documents every code the source uses, and uses every documented code', () => {
    const used = new Set(sourceFiles().flatMap((text) => text.match(/'PLUGIN_[A-Z_]+'/g) ?? []));
    const usedCodes = [...used].map((literal) => literal.slice(1, -1));
    const documented = Object.keys(pluginErrorCodes);
    expect(usedCodes.filter((code) => !documented.includes(code))).toEqual([]);
    expect(documented.filter((code) => !usedCodes.includes(code))).toEqual([]);
  });

  it('is a SwitchboardError with its code', () => {
    const error = new PluginError('PLUGIN_NOT_FOUND', 'Plugin package "x" is not installed', {
      details: { source: 'x' },
    });
    const code: PluginErrorCode = error.code;
    expect(code).toBe('PLUGIN_NOT_FOUND');
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.name).toBe('PluginError');
    expect(error.toJSON()).toMatchObject({ code: 'PLUGIN_NOT_FOUND', details: { source: 'x' } });
  });
});
