import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { DiscordChannelError, discordChannelErrorCodes } from './errors.ts';

describe('DiscordChannelError', () => {
  it('is a SwitchboardError with its code and retryable flag', () => {
    const error = new DiscordChannelError('DISCORD_RATE_LIMITED', 'slow down', { retryable: true });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      name: 'DiscordChannelError',
      code: 'DISCORD_RATE_LIMITED',
      retryable: true,
    });
  });

  it('documents every code the source uses, and uses every documented code', () => {
    const directory = import.meta.dirname;
    const used = new Set<string>();
    for (const name of readdirSync(directory)) {
      if (!name.endsWith('.ts') || name.endsWith('.test.ts') || name === 'errors.ts') continue;
      const source = readFileSync(join(directory, name), 'utf8');
      for (const match of source.matchAll(/'(DISCORD_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    const documented = Object.keys(discordChannelErrorCodes);
    expect([...used].filter((code) => !documented.includes(code))).toEqual([]);
    expect(documented.filter((code) => !used.has(code))).toEqual([]);
    for (const sentence of Object.values(discordChannelErrorCodes))
      expect(sentence.length).toBeGreaterThan(30);
  });
});
