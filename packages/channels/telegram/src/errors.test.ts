import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { TelegramChannelError, telegramChannelErrorCodes } from './errors.ts';

describe('Telegram channel error codes', () => {
  it('documents every code the package uses, and uses every documented code', () => {
    const used = new Set<string>();
    for (const entry of readdirSync(import.meta.dirname)) {
      if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
      for (const match of readFileSync(join(import.meta.dirname, entry), 'utf8').matchAll(
        /'(TELEGRAM_[A-Z_]+)'/g,
      )) {
        used.add(match[1]!);
      }
    }
    expect([...used].sort()).toEqual(Object.keys(telegramChannelErrorCodes).sort());
    for (const sentence of Object.values(telegramChannelErrorCodes))
      expect(sentence.length).toBeGreaterThan(30);
  });

  it('is a SwitchboardError that keeps retryable and details', () => {
    const error = new TelegramChannelError('TELEGRAM_RATE_LIMITED', 'slow down', {
      retryable: true,
      details: { retryAfterSeconds: 3 },
    });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.toJSON()).toEqual({
      name: 'TelegramChannelError',
      code: 'TELEGRAM_RATE_LIMITED',
      message: 'slow down',
      retryable: true,
      details: { retryAfterSeconds: 3 },
    });
  });
});
