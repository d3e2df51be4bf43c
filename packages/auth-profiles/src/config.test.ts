import { SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  authConfigSchema,
  defaultCooldownSettings,
  parseAuthConfig,
  resolveCooldownSettings,
} from './config.ts';
import { AuthProfilesError, authProfilesErrorCodes } from './errors.ts';

describe('AuthProfilesError', () => {
  it('documents every code, and is a SwitchboardError', () => {
    const codes = Object.keys(authProfilesErrorCodes);
    expect(codes).toHaveLength(10);
    for (const [code, text] of Object.entries(authProfilesErrorCodes)) {
      expect(code).toMatch(/^AUTH_PROFILES_[A-Z_]+$/);
      expect(text.length).toBeGreaterThan(40);
    }
    const error = new AuthProfilesError('AUTH_PROFILES_EXHAUSTED', 'x', { retryAt: 5, retryAfterMs: 3 });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(true);
    expect(error.toJSON()).toMatchObject({
      code: 'AUTH_PROFILES_EXHAUSTED',
      details: { retryAt: 5, retryAfterMs: 3 },
    });
  });

  it('every code thrown by the package source is in the table', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const directory = new URL('.', import.meta.url);
    const used = new Set<string>();
    for (const file of await readdir(directory)) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      const text = await readFile(new URL(file, directory), 'utf8');
      for (const match of text.matchAll(/'(AUTH_PROFILES_[A-Z_]+)'/g)) used.add(match[1]!);
    }
    expect(used.size).toBeGreaterThan(5);
    for (const code of used) expect(Object.keys(authProfilesErrorCodes)).toContain(code);
  });
});

describe('parseAuthConfig', () => {
  it("reads OpenClaw's shape", () => {
    const config = parseAuthConfig({
      profiles: {
        'anthropic:work': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-work' },
        'anthropic:max': { provider: 'anthropic', mode: 'token', token: 'tok', email: 'me@example.com' },
        'anthropic:stored': { provider: 'anthropic', mode: 'api_key' },
      },
      order: { anthropic: ['anthropic:max', 'anthropic:work'] },
      cooldowns: { billingBackoffHours: 3, rateLimitedProfileRotations: 2 },
    });
    expect(config.profiles?.['anthropic:max']).toEqual({
      provider: 'anthropic',
      mode: 'token',
      token: 'tok',
      email: 'me@example.com',
    });
    expect(config.order?.anthropic).toEqual(['anthropic:max', 'anthropic:work']);
    expect(parseAuthConfig(undefined)).toEqual({});
  });

  it('names every bad key path at once', () => {
    let caught: unknown;
    try {
      parseAuthConfig({
        profiles: {
          a: { provider: 'anthropic', mode: 'oauth' },
          b: { provider: 'anthropic', mode: 'api_key', token: 'x' },
          c: { provider: '', mode: 'token', apiKey: 'k' },
        },
        order: { openai: ['b', 'b'] },
        cooldowns: { cooldownScheduleSeconds: [], overloadedProfileRotations: 1.5, extra: 1 },
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AuthProfilesError);
    const error = caught as AuthProfilesError;
    expect(error.code).toBe('AUTH_PROFILES_INVALID_CONFIG');
    const problems = Object.fromEntries(error.problems.map((problem) => [problem.path, problem.message]));
    expect(problems).toMatchObject({
      'auth.profiles.a.mode': 'expected one of "api_key", "token"',
      'auth.profiles.b.token': expect.stringContaining('mode "token"'),
      'auth.profiles.c.provider': expect.stringContaining('provider name'),
      'auth.profiles.c.apiKey': expect.stringContaining('mode "api_key"'),
      'auth.order.openai[0]': expect.stringContaining('belongs to provider "anthropic"'),
      'auth.order.openai[1]': expect.stringContaining('listed twice'),
      'auth.cooldowns.cooldownScheduleSeconds': 'expected at least one duration',
      'auth.cooldowns.overloadedProfileRotations': 'expected a whole number',
      'auth.cooldowns.extra': 'unknown key extra',
    });
    expect(error.message).toContain('auth.profiles.a.mode: expected one of "api_key", "token"');
  });

  it('composes into a larger schema with the key paths intact', () => {
    const gateway = z.strictObject({ auth: authConfigSchema.optional() });
    const result = gateway.safeParse({
      auth: { profiles: { x: { provider: 'p', mode: 'api_key', token: 't' } } },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['auth', 'profiles', 'x', 'token']);
  });
});

describe('resolveCooldownSettings', () => {
  it('applies the defaults and converts units', () => {
    expect(resolveCooldownSettings(undefined)).toBe(defaultCooldownSettings);
    const settings = resolveCooldownSettings({
      cooldownScheduleSeconds: [5, 50],
      billingBackoffHours: 2,
      authPermanentMaxMinutes: 120,
      failureWindowHours: 12,
      timeoutProfileRotations: 0,
    });
    expect(settings).toMatchObject({
      scheduleMs: [5000, 50_000],
      billingBaseMs: 2 * 3_600_000,
      billingMaxMs: 24 * 3_600_000,
      authPermanentMaxMs: 120 * 60_000,
      failureWindowMs: 12 * 3_600_000,
      timeoutProfileRotations: 0,
      rateLimitedProfileRotations: 1,
    });
  });
});
