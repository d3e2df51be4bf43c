import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { SkillsError, skillsErrorCodes } from './errors.ts';

describe('skills error codes', () => {
  it('documents every code the source uses, and uses every documented code', () => {
    const table: ErrorCodeTable = skillsErrorCodes;
    const used = new Set<string>();
    for (const name of readdirSync(import.meta.dirname)) {
      if (!name.endsWith('.ts') || name.endsWith('.test.ts') || name === 'errors.ts') continue;
      for (const match of readFileSync(join(import.meta.dirname, name), 'utf8').matchAll(
        /'(SKILLS_[A-Z_]+)'/g,
      )) {
        used.add(match[1]!);
      }
    }
    for (const code of used) expect(table, `${code} is used but not documented`).toHaveProperty(code);
    for (const [code, sentence] of Object.entries(table)) {
      expect(used.has(code), `${code} is documented but never used`).toBe(true);
      expect(sentence.length).toBeGreaterThan(20);
    }
  });

  it('is a SwitchboardError', () => {
    const error = new SkillsError('SKILLS_UNKNOWN_SKILL', 'no skill "x"');
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.toJSON()).toMatchObject({ name: 'SkillsError', code: 'SKILLS_UNKNOWN_SKILL' });
  });
});
