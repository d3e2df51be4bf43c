import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { ToolError, toolErrorCodes } from './errors.ts';

describe('tool error codes', () => {
  it('documents every code used in the module, and uses every documented code', () => {
    const directory = import.meta.dirname;
    const used = new Set<string>();
    for (const file of readdirSync(directory)) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file === 'errors.ts') continue;
      const source = readFileSync(join(directory, file), 'utf8');
      for (const match of source.matchAll(/'(TOOL_[A-Z_]+)'/g)) used.add(match[1] as string);
      expect(source).not.toContain('GatewayError');
    }
    const documented = Object.keys(toolErrorCodes);
    for (const code of used) expect(documented).toContain(code);
    for (const code of documented) {
      expect(used).toContain(code);
      expect(toolErrorCodes[code as keyof typeof toolErrorCodes].length).toBeGreaterThan(20);
    }
  });

  it('is a Switchboard error with its code', () => {
    const error = new ToolError('TOOL_EXEC_REFUSED', 'command rm is not allowlisted');
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.code).toBe('TOOL_EXEC_REFUSED');
  });
});
