import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.ts';
import { loadConfig, parseGatewayConfig } from './load.ts';

const directory = () => mkdtempSync(join(tmpdir(), 'switchboard-config-'));

describe('gateway config', () => {
  it('runs on defaults when no file exists: loopback, token auth, port 18789', () => {
    const { config, path } = loadConfig({ stateDirectory: directory(), environment: {} });
    expect(path).toBeUndefined();
    expect(config.gateway).toEqual({ port: 18789, bind: 'loopback', auth: { mode: 'token' } });
    expect(config.agents.defaults.maxModelCalls).toBe(50);
  });

  it('reads switchboard.json from the state directory, with JSON5 and ${ENV}', () => {
    const state = directory();
    writeFileSync(
      join(state, 'switchboard.json'),
      `{
        // an OpenClaw-shaped config
        models: { providers: { anthropic: { apiKey: '\${ANTHROPIC_API_KEY}', models: [{ id: 'claude-sonnet-4-6' }] } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' }, list: [{ id: 'home', default: true }, { id: 'work' }] },
        bindings: [{ agentId: 'work', match: { channel: 'slack', teamId: 'T1' } }],
        session: { dmScope: 'per-channel-peer', reset: { mode: 'idle', idleMinutes: 90 } },
      }`,
    );
    const { config, path } = loadConfig({
      stateDirectory: state,
      environment: { ANTHROPIC_API_KEY: 'sk-test' },
    });
    expect(path).toBe(join(state, 'switchboard.json'));
    expect(config.models.providers.anthropic?.apiKey).toBe('sk-test');
    expect(config.models.providers.anthropic?.models[0]).toMatchObject({
      id: 'claude-sonnet-4-6',
      contextWindow: 200000,
    });
    expect(config.agents.defaults.model).toEqual({ primary: 'anthropic/claude-sonnet-4-6', fallbacks: [] });
    expect(config.session.dmScope).toBe('per-channel-peer');
  });

  it('names the key path of every problem', () => {
    try {
      parseGatewayConfig(
        `{ gateway: { port: 'x' }, agents: { defaults: { model: 'sonnet' } }, bindings: [{ agentId: 'a', match: {} }], session: { durability: 'fsync' } }`,
        'test.json',
        {},
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const paths = (error as ConfigError).problems.map((problem) => problem.path);
      expect(paths).toContain('gateway.port');
      expect(paths).toContain('agents.defaults.model');
      expect(paths.some((path) => path.startsWith('bindings[0].match'))).toBe(true);
      expect((error as ConfigError).problems).toContainEqual({
        path: 'session.durability',
        message: 'expected one of "normal", "full"',
        severity: 'error',
      });
    }
  });

  it('reports a binding to an agent missing from agents.list with its index', () => {
    expect(() =>
      parseGatewayConfig(
        `{ agents: { list: [{ id: 'home' }] }, bindings: [{ agentId: 'home', match: { channel: 'a' } }, { agentId: 'ghost', match: { channel: 'b' } }] }`,
        't',
        {},
      ),
    ).toThrow(/bindings\[1\]\.agentId/);
  });

  it('reports a typo next to a type error: the error and the typo, with its suggestion', () => {
    try {
      parseGatewayConfig(
        `{ gateway: { port: 'x' }, agents: { defualts: { model: 'anthropic/claude-sonnet-4-6' } } }`,
        't',
        {},
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        { path: 'gateway.port', message: 'expected number, got string', severity: 'error' },
        {
          path: 'agents.defualts',
          message: 'unknown key, ignored (did you mean agents.defaults?)',
          severity: 'warning',
          suggestion: 'agents.defaults',
        },
      ]);
      expect((error as ConfigError).message).toContain('agents.defualts');
    }
  });

  it('reports typos alone as warnings with suggestions, at any depth', () => {
    const { warnings } = parseGatewayConfig(
      `{ agents: { defualts: {}, list: [{ id: 'a', worksapce: '/w' }] }, tools: { webFetch: { allowHost: [] } } }`,
      't',
      {},
    );
    expect(warnings.map((warning) => [warning.path, warning.severity, warning.suggestion])).toEqual([
      ['agents.defualts', 'warning', 'agents.defaults'],
      ['agents.list[0].worksapce', 'warning', 'agents.list[0].workspace'],
      ['tools.webFetch.allowHost', 'warning', 'tools.webFetch.allowHosts'],
    ]);
  });

  it('makes an unknown key inside a plugin entry an error (a misspelt config would be silently dropped)', () => {
    try {
      parseGatewayConfig(`{ plugins: { entries: { guard: { confg: { blockTools: ['exec'] } } } } }`, 't', {});
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        {
          path: 'plugins.entries.guard.confg',
          message: 'unknown key (did you mean plugins.entries.guard.config?)',
          severity: 'error',
          suggestion: 'plugins.entries.guard.config',
        },
      ]);
    }
    const { config } = parseGatewayConfig(`{ plugins: { entries: { guard: { optional: true } } } }`, 't', {});
    expect(config.plugins?.entries.guard).toMatchObject({ enabled: true, optional: true });
  });

  it('warns about unknown keys instead of failing', () => {
    const { warnings } = parseGatewayConfig(`{ gateway: { port: 1, colour: 'red' }, wizard: {} }`, 't', {});
    expect(warnings.map((warning) => warning.path)).toEqual(
      expect.arrayContaining(['gateway.colour', 'wizard']),
    );
  });

  it('refuses a missing --config file and bad reset settings', () => {
    expect(() => loadConfig({ path: '/nonexistent/switchboard.json', stateDirectory: directory() })).toThrow(
      /does not exist/,
    );
    expect(() => parseGatewayConfig(`{ session: { reset: { atHour: 30 } } }`, 't', {})).toThrow(ConfigError);
  });
});
