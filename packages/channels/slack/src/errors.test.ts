import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { SlackChannelError, slackChannelErrorCodes } from './errors.ts';

describe('SlackChannelError', () => {
  it('documents every code the package uses', () => {
    const sources = readdirSync(import.meta.dirname)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => readFileSync(join(import.meta.dirname, file), 'utf8'))
      .join('\n');
    const used = new Set(sources.match(/'SLACK_[A-Z_]+'/g)?.map((literal) => literal.slice(1, -1)));
    expect(used.size).toBeGreaterThan(5);
    for (const code of used) expect(slackChannelErrorCodes, code).toHaveProperty(code);
    for (const [code, sentence] of Object.entries(slackChannelErrorCodes)) {
      expect(sentence.length, code).toBeGreaterThan(20);
      expect(used.has(code), `${code} is documented but never used`).toBe(true);
    }
  });

  it('is a SwitchboardError with its code and retryable flag', () => {
    const error = new SlackChannelError('SLACK_RATE_LIMITED', 'slow down', { retryable: true });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ name: 'SlackChannelError', code: 'SLACK_RATE_LIMITED', retryable: true });
  });
});
