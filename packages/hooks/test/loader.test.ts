import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChannelAccount,
  type ChannelAccountStatus,
  createPluginRegistry,
  definePlugin,
  findPlugins,
  type InboundMessage,
  loadPlugins,
  type PluginLoadReport,
  type PluginTool,
  type ReceiveOutcome,
  registerPlugins,
  resolveChannelAccounts,
} from '../src/index.ts';
import { createRecordingLogger } from './recording-logger.ts';

const packageRoot = join(import.meta.dirname, '..');
const fixtures = join(import.meta.dirname, 'fixtures');
let base: string;

/**
 * A gateway-like install folder: node_modules holds @switchboard/hooks (this package) and
 * the fixture plugin as an installed package; `plugins/` holds local plugins.
 */
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'switchboard-hooks-loader-'));
  mkdirSync(join(base, 'node_modules/@switchboard'), { recursive: true });
  symlinkSync(packageRoot, join(base, 'node_modules/@switchboard/hooks'), 'dir');
  // Copied, not linked, so the plugin resolves @switchboard/hooks from this install like a real one.
  cpSync(join(fixtures, 'echo-plugin'), join(base, 'node_modules/@example/switchboard-plugin-echo'), {
    recursive: true,
  });
  cpSync(join(fixtures, 'echo-plugin'), join(base, 'plugins/echo-folder'), { recursive: true });
  cpSync(join(fixtures, 'broken-plugin'), join(base, 'plugins/broken'), { recursive: true });
  const write = (file: string, text: string) => {
    mkdirSync(join(base, file, '..'), { recursive: true });
    writeFileSync(join(base, file), text);
  };
  const pluginFile = (name: string, dependencies: string[] = []) => `
    import { definePlugin } from '@switchboard/hooks';
    export default definePlugin({
      name: ${JSON.stringify(name)}, version: '1.0.0', specVersion: 1,
      dependencies: ${JSON.stringify(dependencies)},
      setup(api) { api.registerGatewayMethod(${JSON.stringify(`${name}.ping`)}, () => 'pong'); },
    });`;
  write('plugins/greeter.mjs', pluginFile('greeter'));
  write('plugins/needs-base.mjs', pluginFile('needs-base', ['base-lib']));
  write('plugins/base-lib.mjs', pluginFile('base-lib'));
  write('plugins/cycle-a.mjs', pluginFile('cycle-a', ['cycle-b']));
  write('plugins/cycle-b.mjs', pluginFile('cycle-b', ['cycle-a']));
  write('plugins/orphan.mjs', pluginFile('orphan', ['not-installed']));
  write('plugins/no-export.mjs', 'export const nothing = 1;');
  write('plugins/syntax-error.mjs', 'export default {');
  write('plugins/named-export.mjs', pluginFile('named').replace('export default', 'export const plugin ='));
  write(
    'node_modules/misnamed/package.json',
    JSON.stringify({ name: 'misnamed', version: '1.0.0', type: 'module', main: 'main.js' }),
  );
  write('node_modules/misnamed/main.js', pluginFile('something-else'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

function failureCodes(report: PluginLoadReport): Record<string, string> {
  return Object.fromEntries(
    report.failed.map((failure) => [failure.plugin ?? failure.source, failure.error.code]),
  );
}

describe('loadPlugins', () => {
  it('loads a third-party channel plugin by package name and runs it end to end', async () => {
    const logger = createRecordingLogger();
    const registry = createPluginRegistry({ logger });
    const report = await loadPlugins(registry, {
      baseDirectory: base,
      logger,
      config: {
        entries: { echo: { package: '@example/switchboard-plugin-echo', config: { shout: true } } },
      },
    });
    expect(report.failed).toEqual([]);
    expect(report.loaded.map((plugin) => [plugin.name, plugin.version, plugin.source])).toEqual([
      ['echo', '1.2.0', '@example/switchboard-plugin-echo'],
    ]);
    expect(report.loaded[0]).toMatchObject({ channels: ['echo'], tools: ['reverse'] });
    expect(logger.lines).toContainEqual({
      level: 'info',
      message: 'echo plugin ready',
      fields: { plugin: 'echo', shout: true },
    });

    // The gateway's part: validate channels.echo, start the account, pass messages through hooks.
    const registration = registry.channel('echo');
    if (registration === undefined) throw new Error('echo channel missing');
    const { accounts } = resolveChannelAccounts(registration.channel, { prefix: '> ', allowFrom: ['u1'] });
    const received: InboundMessage[] = [];
    const statuses: ChannelAccountStatus[] = [];
    const controller = new AbortController();
    const account = accounts[0];
    if (account === undefined) throw new Error('no account');
    const running: ChannelAccount = await registration.channel.start({
      channelId: 'echo',
      accountId: account.accountId,
      account: account.config,
      signal: controller.signal,
      logger,
      async receive(message): Promise<ReceiveOutcome> {
        received.push(message);
        return { status: 'journaled' };
      },
      setStatus: (status) => statuses.push(status),
      dataDirectory: tmpdir(),
      registerHttpRoute: () => {},
      reportIgnored: () => {},
    });
    expect(statuses.at(-1)).toMatchObject({ state: 'connected' });

    const { echo } = (await import(join(base, 'node_modules/@example/switchboard-plugin-echo/index.js'))) as {
      echo: {
        inject: (accountId: string, message: InboundMessage) => Promise<ReceiveOutcome>;
        sent: unknown[];
      };
    };
    const inbound: InboundMessage = {
      chatType: 'direct',
      channel: 'echo',
      accountId: 'default',
      messageId: 'in-1',
      peer: { kind: 'direct', id: 'u1' },
      sender: { id: 'u1' },
      text: 'ping',
      timestamp: 1,
    };
    await expect(echo.inject('default', inbound)).resolves.toEqual({ status: 'journaled' });
    expect(received).toEqual([inbound]);

    const outcome = await registry.hooks.run('message_sending', {
      message: { kind: 'text', channel: 'echo', accountId: 'default', peer: inbound.peer, text: 'pong' },
    });
    if (outcome.cancel) throw new Error('unexpected cancel');
    await expect(running.send(outcome.message)).resolves.toEqual({ messageIds: ['m1'] });
    await running.edit?.({ peer: inbound.peer, messageId: 'm1', text: 'edited' });
    expect(echo.sent).toEqual([{ id: 'm1', accountId: 'default', peer: 'u1', text: '> edited' }]);

    const tool = registry.tool('reverse')?.tool as PluginTool;
    await expect(
      tool.execute('call-1', { text: 'abc' }, new AbortController().signal, () => {}),
    ).resolves.toEqual({
      content: [{ type: 'text', text: 'cba' }],
    });
    await running.stop();
    expect(statuses.at(-1)).toEqual({ state: 'stopped' });
  });

  it('loads plugins from a folder and from a file on plugins.load.paths', async () => {
    const registry = createPluginRegistry({ logger: createRecordingLogger() });
    const report = await loadPlugins(registry, {
      baseDirectory: base,
      logger: createRecordingLogger(),
      config: {
        load: {
          paths: ['./plugins/echo-folder', join(base, 'plugins/greeter.mjs'), 'plugins/named-export.mjs'],
        },
      },
    });
    expect(report.failed).toEqual([]);
    expect(report.loaded.map((plugin) => [plugin.name, plugin.source])).toEqual([
      ['echo', './plugins/echo-folder'],
      ['greeter', join(base, 'plugins/greeter.mjs')],
      ['named', 'plugins/named-export.mjs'],
    ]);
    expect(
      registry
        .gatewayMethod('greeter.ping')
        ?.handler(undefined, { method: 'greeter.ping', signal: AbortSignal.abort() }),
    ).toBe('pong');
  });

  it('skips a plugin that throws in setup, reports and logs every failure, and loads the rest', async () => {
    const logger = createRecordingLogger();
    const registry = createPluginRegistry({ logger });
    const report = await loadPlugins(registry, {
      baseDirectory: base,
      logger,
      config: {
        load: {
          paths: [
            'plugins/broken',
            'plugins/greeter.mjs',
            'plugins/no-export.mjs',
            'plugins/syntax-error.mjs',
            'plugins/missing-folder',
          ],
        },
        entries: {
          greeter: { config: { unexpected: true } },
          'not-installed': {},
          misnamed: {},
          echo: { package: '@example/switchboard-plugin-echo' },
        },
      },
    });
    expect(report.loaded.map((plugin) => plugin.name)).toEqual(['echo']);
    expect(failureCodes(report)).toEqual({
      broken: 'PLUGIN_SETUP_FAILED',
      greeter: 'PLUGIN_INVALID_CONFIG',
      'plugins/no-export.mjs': 'PLUGIN_LOAD_FAILED',
      'plugins/syntax-error.mjs': 'PLUGIN_LOAD_FAILED',
      'plugins/missing-folder': 'PLUGIN_NOT_FOUND',
      'not-installed': 'PLUGIN_NOT_FOUND',
      misnamed: 'PLUGIN_LOAD_FAILED',
    });
    const broken = report.failed.find((failure) => failure.plugin === 'broken');
    expect(broken?.error.message).toContain('database is not reachable');
    expect(report.failed.find((failure) => failure.plugin === 'greeter')?.error.message).toContain(
      'plugins.entries.greeter.config: Unrecognized key: "unexpected"',
    );
    expect(report.failed.find((failure) => failure.plugin === 'misnamed')?.error.message).toContain(
      'exports plugin "something-else", not "misnamed"',
    );
    // Nothing the broken plugin registered before throwing survives.
    expect(registry.hooks.has('message_received')).toBe(false);
    expect(registry.has('broken')).toBe(false);
    const logged = logger.at('error').map((line) => line.fields.plugin ?? line.fields.source);
    expect(logged).toEqual(report.failed.map((failure) => failure.plugin ?? failure.source));
  });

  it('orders plugins by their dependencies and reports cycles and missing dependencies', async () => {
    const registry = createPluginRegistry({ logger: createRecordingLogger() });
    const report = await loadPlugins(registry, {
      baseDirectory: base,
      logger: createRecordingLogger(),
      config: {
        load: {
          paths: [
            'plugins/needs-base.mjs',
            'plugins/cycle-a.mjs',
            'plugins/base-lib.mjs',
            'plugins/cycle-b.mjs',
            'plugins/orphan.mjs',
          ],
        },
      },
    });
    expect(report.loaded.map((plugin) => plugin.name)).toEqual(['base-lib', 'needs-base']);
    expect(failureCodes(report)).toEqual({
      'cycle-a': 'PLUGIN_DEPENDENCY_CYCLE',
      'cycle-b': 'PLUGIN_DEPENDENCY_CYCLE',
      orphan: 'PLUGIN_MISSING_DEPENDENCY',
    });
  });

  it('loads bundled plugins, honours enabled flags, and skips third-party plugins when plugins are off', async () => {
    const bundled = (name: string) => definePlugin({ name, version: '1.0.0', specVersion: 1, setup() {} });
    const registry = createPluginRegistry({ logger: createRecordingLogger() });
    const report = await loadPlugins(registry, {
      baseDirectory: base,
      logger: createRecordingLogger(),
      bundled: [bundled('telegram'), bundled('discord')],
      config: {
        enabled: false,
        load: { paths: ['plugins/greeter.mjs'] },
        entries: { discord: { enabled: false }, echo: { package: '@example/switchboard-plugin-echo' } },
      },
    });
    expect(report.loaded.map((plugin) => [plugin.name, plugin.source])).toEqual([['telegram', 'bundled']]);
    expect(report.disabled).toEqual(['discord', 'plugins/greeter.mjs', 'echo']);
    expect(report.failed).toEqual([]);
  });

  it('finds plugins without setting them up, registers them as a second step, and marks optional failures', async () => {
    const found = await findPlugins({
      baseDirectory: base,
      config: {
        load: { paths: ['plugins/broken', 'plugins/greeter.mjs'] },
        entries: { 'not-installed': { optional: true }, 'also-missing': {} },
      },
    });
    expect(found.candidates.map((candidate) => [candidate.definition.name, candidate.source])).toEqual([
      ['broken', 'plugins/broken'],
      ['greeter', 'plugins/greeter.mjs'],
    ]);
    expect(found.failed.map((failure) => [failure.plugin, failure.error.code, failure.optional])).toEqual([
      ['not-installed', 'PLUGIN_NOT_FOUND', true],
      ['also-missing', 'PLUGIN_NOT_FOUND', undefined],
    ]);
    const registry = createPluginRegistry({ logger: createRecordingLogger() });
    // Finding ran no setup: the broken plugin's hook is not there yet.
    expect(registry.hooks.has('message_received')).toBe(false);
    const report = await registerPlugins(registry, found);
    expect(report.loaded.map((plugin) => plugin.name)).toEqual(['greeter']);
    expect(failureCodes(report)).toEqual({
      'not-installed': 'PLUGIN_NOT_FOUND',
      'also-missing': 'PLUGIN_NOT_FOUND',
      broken: 'PLUGIN_SETUP_FAILED',
    });
  });

  it('throws on a malformed plugins section, naming the key path', async () => {
    const registry = createPluginRegistry({ logger: createRecordingLogger() });
    await expect(
      loadPlugins(registry, {
        baseDirectory: base,
        config: { load: { paths: 'plugins' }, entries: { x: 5 } },
      }),
    ).rejects.toMatchObject({
      code: 'PLUGIN_INVALID_PLUGINS_CONFIG',
      message: expect.stringMatching(/plugins\.load\.paths: .*\n.*plugins\.entries\.x: /),
    });
  });
});
