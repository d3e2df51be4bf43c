import { describe, expect, it } from 'vitest';
import { substituteEnvironment } from './env.ts';
import { ConfigError } from './errors.ts';

describe('substituteEnvironment', () => {
  it('replaces references in nested strings and leaves other values alone', () => {
    const result = substituteEnvironment(
      {
        models: { providers: { anthropic: { apiKey: '${KEY}', headers: { x: 'a-${REGION}-b' } } } },
        port: 1,
        list: ['${KEY}'],
      },
      { KEY: 'sk-test', REGION: 'eu' },
    );
    expect(result).toEqual({
      models: { providers: { anthropic: { apiKey: 'sk-test', headers: { x: 'a-eu-b' } } } },
      port: 1,
      list: ['sk-test'],
    });
  });

  it('keeps $${VAR} as literal text and ignores lower-case or dollar-only text', () => {
    expect(substituteEnvironment({ a: 'cost $5', b: '$${HOME}', c: '${lower}' }, { HOME: '/root' })).toEqual({
      a: 'cost $5',
      b: '${HOME}',
      c: '${lower}',
    });
  });

  it('reports every missing variable with its key path', () => {
    try {
      substituteEnvironment(
        { channels: { telegram: { botToken: '${TG_TOKEN}' } }, bindings: [{ agentId: '${AGENT}' }] },
        {},
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems).toEqual([
        {
          path: 'channels.telegram.botToken',
          message: '${TG_TOKEN} is not set in the environment',
          severity: 'error',
        },
        { path: 'bindings[0].agentId', message: '${AGENT} is not set in the environment', severity: 'error' },
      ]);
      expect((error as ConfigError).code).toBe('CONFIG_ENV_MISSING');
    }
  });
});
