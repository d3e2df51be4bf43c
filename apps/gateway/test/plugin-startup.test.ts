// Start-up with plugins that cannot load (issue 17, item 8): a configured plugin that is
// missing, throws while starting, or has an invalid config stops the gateway with the key
// path, unless its entry says `optional: true`; then the gateway starts without it, warns,
// and `status` lists it. In-process gateways on 127.0.0.1:0 with the fake Anthropic API.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, type PluginDefinition, z } from '@switchboard/hooks';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/errors.ts';
import { startTestGateway, type TestGateway } from './harness.ts';
import { createTestChannel } from './test-channel.ts';

let model: FakeAnthropic;
const running: TestGateway[] = [];
beforeAll(async () => {
  model = await createFakeAnthropic().start();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});
afterAll(async () => {
  await model.close();
});

let setups = 0;
/** A guard whose schema is a plain object, so zod alone would drop a misspelt key silently. */
const guard: PluginDefinition = definePlugin({
  name: 'guard',
  version: '1.0.0',
  specVersion: 1,
  configSchema: z.object({ blockTools: z.array(z.string()).default([]) }),
  setup(api) {
    setups += 1;
    api.on('before_tool_call', (event) =>
      api.config.blockTools.includes(event.toolName) ? { block: true, blockReason: 'blocked' } : undefined,
    );
  },
});

async function start(
  config: Record<string, unknown>,
  plugins: PluginDefinition[] = [],
  stateDirectory?: string,
) {
  const gateway = await startTestGateway({
    sharedModel: model,
    config,
    plugins,
    stateDirectory,
  });
  running.push(gateway);
  return gateway;
}

async function startFailure(
  config: Record<string, unknown>,
  plugins: PluginDefinition[] = [],
  stateDirectory?: string,
): Promise<ConfigError> {
  try {
    await start(config, plugins, stateDirectory);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('the gateway started');
}

describe('start-up with plugins that cannot load', () => {
  it("stops on a typo in a plugin's config, naming the key path and the key it probably meant", async () => {
    setups = 0;
    const state = mkdtempSync(join(tmpdir(), 'switchboard-plugin-start-'));
    const error = await startFailure(
      { plugins: { entries: { guard: { config: { blockTols: ['exec'] } } } } },
      [guard],
      state,
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(
      'plugins.entries.guard.config.blockTols: unknown key (did you mean plugins.entries.guard.config.blockTools?)',
    );
    expect(setups).toBe(0);
    // Nothing was left open: the same state directory starts cleanly once the typo is fixed.
    const fixed = await start(
      { plugins: { entries: { guard: { config: { blockTools: ['exec'] } } } } },
      [guard],
      state,
    );
    expect(setups).toBe(1);
    const client = await fixed.connect();
    const status = await client.request('status', {});
    expect(status.payload?.plugins).toMatchObject({ loaded: ['guard'], failed: [] });
  });

  it('stops when a configured plugin package is not installed', async () => {
    const error = await startFailure({ plugins: { entries: { ghost: {} } } });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(
      /plugins\.entries\.ghost: plugin cannot be loaded: Plugin package "ghost" is not installed/,
    );
  });

  it('stops when a plugin throws while starting, and unregisters what already started', async () => {
    setups = 0;
    const state = mkdtempSync(join(tmpdir(), 'switchboard-plugin-start-'));
    writeFileSync(
      join(state, 'boom.mjs'),
      `export default { name: 'boom', version: '1.0.0', specVersion: 1,
         setup() { throw new Error('database is not reachable'); } };\n`,
    );
    const error = await startFailure({ plugins: { load: { paths: ['./boom.mjs'] } } }, [guard], state);
    expect(error.code).toBe('CONFIG_PLUGIN_FAILED');
    expect(error.message).toMatch(
      /plugins\.load\.paths\[0\]: plugin cannot be loaded: .*database is not reachable/,
    );
    expect(setups).toBe(1);
  });

  it('starts without an optional plugin that cannot load, warns, and lists it in status', async () => {
    setups = 0;
    const gateway = await start(
      {
        plugins: {
          entries: {
            ghost: { optional: true },
            guard: { optional: true, config: { blockTols: ['exec'] } },
          },
        },
      },
      [guard],
    );
    expect(setups).toBe(0);
    const warnings = gateway.logs.filter((line) => / WARN /.test(line)).join('\n');
    expect(warnings).toContain(
      'plugins.entries.ghost: optional plugin not loaded, the gateway runs without it',
    );
    expect(warnings).toContain(
      'plugins.entries.guard: optional plugin not loaded, the gateway runs without it',
    );
    expect(warnings).toContain('plugins.entries.guard.config.blockTols');
    const client = await gateway.connect();
    const status = await client.request('status', {});
    const plugins = status.payload?.plugins as {
      loaded: string[];
      failed: Array<{ plugin?: string; error: string }>;
    };
    expect(plugins.loaded).toEqual([]);
    expect(plugins.failed.map((failure) => failure.plugin)).toEqual(['ghost', 'guard']);
    expect(plugins.failed[0]?.error).toMatch(/^optional, the gateway runs without it: /);
  });

  it("warns about a typo in a plugin channel's config, with a suggestion", async () => {
    const channel = createTestChannel();
    const gateway = await start({ channels: { testchat: { lable: 'x' } } }, [channel.plugin]);
    expect(gateway.logs.join('\n')).toContain(
      'config: channels.testchat.lable: unknown key, ignored (did you mean channels.testchat.label?)',
    );
  });
});
