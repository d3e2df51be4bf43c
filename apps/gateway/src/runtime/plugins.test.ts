import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, type PluginDefinition, z } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { checkChannelsAndPlugins, checkConfigFile } from './plugins.ts';

/** A guard plugin whose schema is a plain (non-strict) object: zod alone would drop a typo. */
const guard: PluginDefinition = definePlugin({
  name: 'guard',
  version: '1.0.0',
  specVersion: 1,
  configSchema: z.object({ blockTools: z.array(z.string()).default([]), reason: z.string().optional() }),
  setup() {},
});

describe('checkChannelsAndPlugins', () => {
  it('flags a typo inside channels.telegram (and its accounts) with a suggestion', async () => {
    const { problems } = await checkChannelsAndPlugins({
      channels: {
        telegram: {
          botTokn: '123:abc',
          accounts: {
            work: { botToken: '123:abc', linkPreveiw: false, webhook: { url: 'https://x.test', pth: '/tg' } },
          },
        },
      },
      plugins: undefined,
      configPath: undefined,
    });
    expect(problems).toContainEqual({
      path: 'channels.telegram.botTokn',
      message: 'unknown key, ignored (did you mean channels.telegram.botToken?)',
      severity: 'warning',
      suggestion: 'channels.telegram.botToken',
    });
    expect(problems).toContainEqual(
      expect.objectContaining({
        path: 'channels.telegram.accounts.work.linkPreveiw',
        suggestion: 'channels.telegram.accounts.work.linkPreview',
      }),
    );
    expect(problems).toContainEqual(
      expect.objectContaining({
        path: 'channels.telegram.accounts.work.webhook.pth',
        suggestion: 'channels.telegram.accounts.work.webhook.path',
      }),
    );
    // The only account (work) has its own token: the typos are warnings, nothing is an error.
    expect(problems.filter((problem) => problem.severity === 'error').map((problem) => problem.path)).toEqual(
      [],
    );
  });

  it('reports a missing bot token as an error and a misspelt channel id as a warning', async () => {
    const { problems } = await checkChannelsAndPlugins({
      channels: { telegram: { botTokn: '123:abc' }, telegarm: {} },
      plugins: undefined,
      configPath: undefined,
    });
    expect(problems).toContainEqual(
      expect.objectContaining({ path: 'channels.telegram.botToken', severity: 'error' }),
    );
    expect(problems).toContainEqual(
      expect.objectContaining({
        path: 'channels.telegarm',
        severity: 'warning',
        suggestion: 'channels.telegram',
      }),
    );
  });

  it("applies each plugin's own schema to its config: unknown keys are errors, with a suggestion", async () => {
    const { problems, found } = await checkChannelsAndPlugins({
      channels: {},
      plugins: { entries: { guard: { config: { blockTols: ['exec'], reason: 7 } } } },
      configPath: undefined,
      extra: [guard],
    });
    expect(problems).toEqual([
      {
        path: 'plugins.entries.guard.config.blockTols',
        message: 'unknown key (did you mean plugins.entries.guard.config.blockTools?)',
        severity: 'error',
        suggestion: 'plugins.entries.guard.config.blockTools',
      },
      {
        path: 'plugins.entries.guard.config.reason',
        message: 'expected string, got number',
        severity: 'error',
      },
    ]);
    expect(found?.candidates.map((candidate) => candidate.definition.name)).toEqual(['guard']);
  });

  it('reports a plugin that cannot be found or imported as an error, or a warning when optional', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'switchboard-plugin-check-'));
    writeFileSync(join(directory, 'throws.mjs'), "throw new Error('cannot load me');\n");
    const configPath = join(directory, 'switchboard.json');
    const { problems, skipped, found } = await checkChannelsAndPlugins({
      channels: {},
      plugins: {
        load: { paths: ['./throws.mjs'] },
        entries: {
          ghost: {},
          spare: { optional: true },
          guard: { optional: true, config: { blockTols: [] } },
        },
      },
      configPath,
      extra: [guard],
    });
    expect(problems.map((problem) => [problem.path, problem.severity])).toEqual([
      ['plugins.load.paths[0]', 'error'],
      ['plugins.entries.ghost', 'error'],
      ['plugins.entries.spare', 'warning'],
      ['plugins.entries.guard', 'warning'],
      ['plugins.entries.guard.config.blockTols', 'warning'],
    ]);
    expect(problems[0]?.message).toContain('cannot load me');
    expect(problems[1]?.message).toMatch(/^plugin cannot be loaded: Plugin package "ghost" is not installed/);
    expect(problems[2]?.message).toMatch(/^optional plugin not loaded, the gateway runs without it: /);
    // Optional plugins that cannot load are left out of what gets registered.
    expect(skipped.map((failure) => failure.plugin)).toEqual(['spare', 'guard']);
    expect(found?.candidates).toEqual([]);
  });
});

describe('checkConfigFile', () => {
  it('reports the gateway, channel and plugin problems of a file together, errors first', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'switchboard-config-file-'));
    writeFileSync(
      join(directory, 'switchboard.json'),
      `{ agents: { defualts: {} }, gateway: { port: 'x' },
         channels: { telegram: { botToken: '123:abc', linkPreveiw: false } },
         plugins: { entries: { ghost: {} } } }`,
    );
    const { problems } = await checkConfigFile({ stateDirectory: directory, environment: {} });
    expect(problems.map((problem) => [problem.severity, problem.path])).toEqual([
      ['error', 'gateway.port'],
      ['error', 'plugins.entries.ghost'],
      ['warning', 'agents.defualts'],
      ['warning', 'channels.telegram.linkPreveiw'],
    ]);
  });
});
