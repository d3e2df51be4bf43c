import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from './errors.ts';
import { parseConfigText, validateConfig } from './validate.ts';

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
      expect(problems).toContainEqual({ path: 'gateway.port', message: 'expected number, got string' });
      expect(problems).toContainEqual({
        path: 'gateway.auth.mode',
        message: 'expected one of "token", "none"',
      });
      expect(problems).toContainEqual({
        path: 'bindings[0].agentId',
        message: 'expected string, got number',
      });
    }
  });
});
