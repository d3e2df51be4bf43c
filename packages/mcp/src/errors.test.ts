import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { McpError, mcpErrorCodes } from './errors.ts';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'errors.ts')
    .map((name) => join(directory, name));
}

describe('mcp error codes', () => {
  it('documents every code the source uses, and uses every documented code', () => {
    const table: ErrorCodeTable = mcpErrorCodes;
    const used = new Set<string>();
    for (const file of sourceFiles(import.meta.dirname)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/'(MCP_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    for (const code of used) expect(table, `${code} is used but not documented`).toHaveProperty(code);
    for (const [code, sentence] of Object.entries(table)) {
      expect(used.has(code), `${code} is documented but never used`).toBe(true);
      expect(sentence.length, `${code} needs a sentence`).toBeGreaterThan(20);
      expect(code).toMatch(/^MCP_[A-Z]+(_[A-Z]+)*$/);
    }
  });

  it('is a SwitchboardError with its code and details', () => {
    const error = new McpError('MCP_TOOL_TIMEOUT', 'too slow', { details: { server: 'github' } });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.name).toBe('McpError');
    expect(error.toJSON()).toMatchObject({ code: 'MCP_TOOL_TIMEOUT', details: { server: 'github' } });
  });
});
