import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closestKey, editDistance } from './did-you-mean.ts';
import { ConfigError } from './errors.ts';
import { checkConfig, parseConfigText, validateConfig } from './validate.ts';

const schema = z.strictObject({
  gateway: z
    .strictObject({
      port: z.number().int().default(18789),
      bind: z.string().default('loopback'),
      auth: z.strictObject({ mode: z.enum(['token', 'none']).default('token') }).default({ mode: 'token' }),
    })
    .default({ port: 18789, bind: 'loopback', auth: { mode: 'token' } }),
  bindings: z.array(z.strictObject({ agentId: z.string() })).default([]),
});

describe('config validation', () => {
  it('parses JSON5 and reports syntax errors with line and column', () => {
    expect(parseConfigText('{ gateway: { port: 1 }, // comment\n}', 'a.json')).toEqual({
      gateway: { port: 1 },
    });
    expect(() => parseConfigText('{\n  gateway: { port: }\n}', '/etc/switchboard.json')).toThrow(
      /^\/etc\/switchboard\.json:2:\d+: /,
    );
  });

  it('applies defaults', () => {
    expect(validateConfig(schema, {}).value).toEqual({
      gateway: { port: 18789, bind: 'loopback', auth: { mode: 'token' } },
      bindings: [],
    });
  });

  it('turns unknown keys into warnings with their path, and keeps going', () => {
    const { value, warnings } = validateConfig(schema, {
      gateway: { port: 1234, colour: 'blue', auth: { mode: 'none', extra: 1 } },
      telemetry: true,
    });
    expect(value.gateway).toEqual({ port: 1234, bind: 'loopback', auth: { mode: 'none' } });
    expect(warnings.map((warning) => warning.path).sort()).toEqual([
      'gateway.auth.extra',
      'gateway.colour',
      'telemetry',
    ]);
  });

  it('reports every real problem with its key path and what was expected', () => {
    try {
      validateConfig(schema, {
        gateway: { port: 'high', auth: { mode: 'open' } },
        bindings: [{ agentId: 3 }],
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems).toContainEqual({
        path: 'gateway.port',
        message: 'expected number, got string',
        severity: 'error',
      });
      expect(problems).toContainEqual({
        path: 'gateway.auth.mode',
        message: 'expected one of "token", "none"',
        severity: 'error',
      });
      expect(problems).toContainEqual({
        path: 'bindings[0].agentId',
        message: 'expected string, got number',
        severity: 'error',
      });
    }
  });
});

describe('unknown keys', () => {
  it('reports a typo next to a type error: both, in one error, the typo with a suggestion', () => {
    try {
      validateConfig(schema, { gateway: { port: 'high', biind: 'lan' } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        { path: 'gateway.port', message: 'expected number, got string', severity: 'error' },
        {
          path: 'gateway.biind',
          message: 'unknown key, ignored (did you mean gateway.bind?)',
          severity: 'warning',
          suggestion: 'gateway.bind',
        },
      ]);
      expect((error as ConfigError).message).toMatch(/error +gateway\.port: .*\n.*warning +gateway\.biind: /);
    }
  });

  it('finds unknown keys at every depth, in plain objects (which zod strips) as in strict ones', () => {
    const nested = z.object({
      outer: z
        .object({
          list: z.array(z.object({ name: z.string(), retries: z.number().default(1) })),
          byId: z.record(z.string(), z.object({ enabled: z.boolean() })).optional(),
          choice: z.union([z.string(), z.object({ primary: z.string() })]).optional(),
        })
        .transform((value) => value),
      open: z.looseObject({ known: z.string().optional() }).optional(),
    });
    const { value, problems } = checkConfig(nested, {
      outer: {
        list: [{ name: 'a', retires: 3 }],
        byId: { x: { enabeld: true, enabled: true } },
        choice: { primray: 'p', primary: 'q' },
      },
      open: { anything: 1 },
    });
    expect(value).toBeDefined();
    expect(problems.map((problem) => [problem.path, problem.suggestion])).toEqual([
      ['outer.list[0].retires', 'outer.list[0].retries'],
      ['outer.byId.x.enabeld', 'outer.byId.x.enabled'],
      ['outer.choice.primray', 'outer.choice.primary'],
    ]);
  });

  it('lets the caller choose the severity per path, and reports paths under a base', () => {
    const plugin = z.object({ blockTools: z.array(z.string()).default([]) });
    const { value, problems } = checkConfig(
      plugin,
      { blockTols: ['exec'] },
      { base: 'plugins.entries.guard.config', unknownKeySeverity: () => 'error' },
    );
    expect(problems).toEqual([
      {
        path: 'plugins.entries.guard.config.blockTols',
        message: 'unknown key (did you mean plugins.entries.guard.config.blockTools?)',
        severity: 'error',
        suggestion: 'plugins.entries.guard.config.blockTools',
      },
    ]);
    // The value still parses; whether an unknown key is fatal is the caller's policy.
    expect(value).toEqual({ blockTools: [] });
  });

  it('suggests only keys within a typo of the unknown one', () => {
    expect(editDistance('defualts', 'defaults')).toBe(1);
    expect(editDistance('timezone', 'timeZone')).toBe(0);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closestKey('defualts', ['defaults', 'list'])).toBe('defaults');
    expect(closestKey('botTokn', ['botToken', 'apiRoot'])).toBe('botToken');
    expect(closestKey('wizard', ['gateway', 'models', 'agents'])).toBeUndefined();
    expect(closestKey('x', ['id'])).toBeUndefined();
  });
});
