import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createRecordingLogger, type RecordingLogger } from '../test/recording-logger.ts';
import type { ChannelPlugin } from './channel.ts';
import { defineChannelConfig } from './channel-config.ts';
import { definePlugin, type PluginApi, type PluginDefinition } from './plugin.ts';
import { PluginError, type PluginErrorCode } from './plugin-error.ts';
import { createPluginRegistry, type PluginRegistry } from './registry.ts';

function plugin(
  name: string,
  setup: (api: PluginApi) => unknown = () => {},
  extra: object = {},
): PluginDefinition {
  return {
    ...definePlugin({ name, version: '1.0.0', specVersion: 1, setup: setup as () => void }),
    ...extra,
  };
}

function channel(id: string, overrides: Partial<ChannelPlugin['capabilities']> = {}): ChannelPlugin {
  return {
    id,
    label: id,
    capabilities: {
      chatTypes: ['direct'],
      threads: false,
      media: false,
      edits: false,
      typing: false,
      reactions: false,
      textLimit: 4000,
      markup: 'markdown',
      ...overrides,
    },
    config: defineChannelConfig(z.object({ token: z.string() })) as ChannelPlugin['config'],
    start: async () => ({ send: async () => ({ messageIds: [] }), stop: async () => {} }),
  };
}

const tool = (name: string) => ({
  name,
  description: 'a tool',
  parameters: z.object({}),
  execute: async () => ({ content: [] }),
});

async function rejection(promise: Promise<unknown>): Promise<PluginError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(PluginError);
    return error as PluginError;
  }
  throw new Error('expected a rejection');
}

async function expectCode(
  promise: Promise<unknown>,
  code: PluginErrorCode,
  message?: RegExp,
): Promise<PluginError> {
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  if (message !== undefined) expect(error.message).toMatch(message);
  return error;
}

describe('createPluginRegistry', () => {
  let logger: RecordingLogger;
  let registry: PluginRegistry;

  beforeEach(() => {
    logger = createRecordingLogger();
    registry = createPluginRegistry({ logger });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  describe('validation at registration', () => {
    it('registers a plugin with its parsed config and lists what it added', async () => {
      let seenConfig: unknown;
      const weather = definePlugin({
        name: 'weather',
        version: '2.1.0',
        specVersion: 1,
        description: 'Forecasts',
        configSchema: z.object({ units: z.enum(['metric', 'imperial']).default('metric'), days: z.number() }),
        setup(api) {
          seenConfig = api.config;
          api.on('message_sending', () => undefined);
          api.registerTool(tool('forecast'));
          api.registerCommand({
            name: 'weather',
            description: 'Weather now',
            handler: () => ({ text: 'sunny' }),
          });
          api.registerHttpRoute({ path: '/weather/hook', auth: 'plugin', handler: () => {} });
          api.registerGatewayMethod('weather.forecast', () => ({ ok: true }));
          api.registerChannel(channel('weatherchat'));
        },
      });
      const info = await registry.register(weather, {
        entry: { config: { days: 3 } },
        source: '@acme/weather',
      });
      expect(seenConfig).toEqual({ units: 'metric', days: 3 });
      expect(info).toMatchObject({
        name: 'weather',
        version: '2.1.0',
        description: 'Forecasts',
        source: '@acme/weather',
        channels: ['weatherchat'],
        tools: ['forecast'],
        commands: ['weather'],
        httpRoutes: ['/weather/hook'],
        gatewayMethods: ['weather.forecast'],
        hookFailures: { errors: 0, timeouts: 0, promisesInSyncHooks: 0 },
      });
      expect(info.hooks).toEqual([
        { hook: 'message_sending', plugin: 'weather', priority: 0, timeoutMs: 15_000 },
      ]);
      expect(registry.hooks.has('message_sending')).toBe(true);
      expect(registry.channel('weatherchat')?.plugin).toBe('weather');
      expect(registry.tool('forecast')?.plugin).toBe('weather');
      expect(registry.command('weather')?.command.description).toBe('Weather now');
      expect(registry.gatewayMethod('weather.forecast')?.plugin).toBe('weather');
      expect(registry.list().map((entry) => entry.name)).toEqual(['weather']);
    });

    it('rejects malformed definitions, naming what is wrong', async () => {
      await expectCode(registry.register(null as unknown as PluginDefinition), 'PLUGIN_INVALID_DEFINITION');
      await expectCode(registry.register(plugin('Bad Name')), 'PLUGIN_INVALID_DEFINITION', /"Bad Name"/);
      const error = await expectCode(
        registry.register({ name: 'half', version: 'one', specVersion: 1 } as unknown as PluginDefinition),
        'PLUGIN_INVALID_DEFINITION',
        /Plugin "half".*version.*setup must be a function/,
      );
      expect(error.details?.plugin).toBe('half');
    });

    it('rejects a second plugin with the same name', async () => {
      await registry.register(plugin('dup'));
      await expectCode(registry.register(plugin('dup')), 'PLUGIN_DUPLICATE_NAME', /"dup"/);
    });

    it('rejects an unsupported spec version', async () => {
      await expectCode(
        registry.register(plugin('future', () => {}, { specVersion: 2 })),
        'PLUGIN_UNSUPPORTED_SPEC_VERSION',
        /Plugin "future" targets plugin spec version 2; this gateway supports 1/,
      );
    });

    it('rejects a plugin whose dependency is not registered, naming its config path', async () => {
      const dependent = plugin('memory-ui', () => {}, { dependencies: ['memory'] });
      const error = await expectCode(
        registry.register(dependent),
        'PLUGIN_MISSING_DEPENDENCY',
        /"memory-ui" depends on plugin "memory".*plugins\.entries\.memory/,
      );
      expect(error.details).toMatchObject({ plugin: 'memory-ui', dependency: 'memory' });
      await registry.register(plugin('memory'));
      await expect(registry.register(dependent)).resolves.toMatchObject({ dependencies: ['memory'] });
    });

    it('rejects invalid plugin config with the full key path of every problem', async () => {
      const setup = vi.fn();
      const weather = definePlugin({
        name: 'weather',
        version: '1.0.0',
        specVersion: 1,
        configSchema: z.object({
          units: z.enum(['metric', 'imperial']),
          cities: z.array(z.object({ name: z.string() })),
        }),
        setup,
      });
      const error = await expectCode(
        registry.register(weather, { entry: { config: { units: 'kelvin', cities: [{ name: 3 }] } } }),
        'PLUGIN_INVALID_CONFIG',
      );
      expect(error.message).toContain('plugin "weather"');
      expect(error.message).toContain('plugins.entries.weather.config.units: Invalid option');
      expect(error.message).toContain('plugins.entries.weather.config.cities[0].name:');
      expect(error.details?.path).toBe('plugins.entries.weather.config.units');
      expect(setup).not.toHaveBeenCalled();
      expect(registry.has('weather')).toBe(false);
    });

    it('rejects config for a plugin that declares no config', async () => {
      await expectCode(
        registry.register(plugin('bare'), { entry: { config: { colour: 'red' } } }),
        'PLUGIN_INVALID_CONFIG',
        /plugins\.entries\.bare\.config: Unrecognized key: "colour"/,
      );
    });

    it('rejects bad hook timeout settings in the entry', async () => {
      await expectCode(
        registry.register(plugin('timed'), { entry: { hooks: { timeouts: { before_tool_cal: 100 } } } }),
        'PLUGIN_INVALID_CONFIG',
        /plugins\.entries\.timed\.hooks\.timeouts\.before_tool_cal: unknown hook/,
      );
      await expectCode(
        registry.register(plugin('timed'), { entry: { hooks: { timeoutMs: 700_000 } } }),
        'PLUGIN_INVALID_CONFIG',
        /plugins\.entries\.timed\.hooks\.timeoutMs: at most 600000 ms/,
      );
    });
  });

  describe('setup', () => {
    it('keeps nothing a plugin registered when its setup throws', async () => {
      const error = await expectCode(
        registry.register(
          plugin('flaky', (api) => {
            api.on('message_received', () => {});
            api.registerChannel(channel('flakychat'));
            api.registerTool(tool('flaky_tool'));
            throw new Error('database unreachable');
          }),
        ),
        'PLUGIN_SETUP_FAILED',
        /Plugin "flaky" failed in setup: database unreachable/,
      );
      expect((error.cause as Error).message).toBe('database unreachable');
      expect(registry.has('flaky')).toBe(false);
      expect(registry.hooks.has('message_received')).toBe(false);
      expect(registry.channels()).toEqual([]);
      expect(registry.tools()).toEqual([]);
      await expect(registry.register(plugin('flaky'))).resolves.toMatchObject({ name: 'flaky' });
    });

    it('fails setup with the registration error when a registration is refused', async () => {
      await expectCode(
        registry.register(
          plugin('typo', (api) => {
            api.on('message_recieved' as 'message_received', () => {});
          }),
        ),
        'PLUGIN_UNKNOWN_HOOK',
        /Plugin "typo" listens to unknown hook "message_recieved"/,
      );
    });

    it('gives up on a setup that never finishes and tears down what it returns later', async () => {
      vi.useFakeTimers();
      const slowRegistry = createPluginRegistry({ logger, setupTimeoutMs: 1_000 });
      const finish = Promise.withResolvers<() => void>();
      const teardown = vi.fn();
      const pending = slowRegistry.register(
        plugin('slow', async (api) => {
          api.on('agent_end', () => {});
          return finish.promise;
        }),
      );
      const outcome = expectCode(
        pending,
        'PLUGIN_SETUP_TIMEOUT',
        /"slow" did not finish setup within 1000 ms/,
      );
      await vi.advanceTimersByTimeAsync(1_000);
      await outcome;
      expect(slowRegistry.hooks.has('agent_end')).toBe(false);
      finish.resolve(teardown);
      await vi.advanceTimersByTimeAsync(0);
      expect(teardown).toHaveBeenCalledOnce();
    });

    it('refuses registrations after setup finished', async () => {
      let saved: PluginApi | undefined;
      await registry.register(
        plugin('late', (api) => {
          saved = api;
        }),
      );
      expect(() => saved?.on('agent_end', () => {})).toThrow(
        expect.objectContaining({ code: 'PLUGIN_REGISTRATION_CLOSED' }),
      );
      expect(() => saved?.registerTool(tool('late_tool'))).toThrow(
        /"late" tried to register a tool after its setup/,
      );
      expect(registry.tools()).toEqual([]);
    });

    it('gives the plugin a logger that names it', async () => {
      await registry.register(plugin('chatty', (api) => api.logger.info('hello', { extra: 1 })));
      expect(logger.at('info')).toContainEqual({
        level: 'info',
        message: 'hello',
        fields: { plugin: 'chatty', extra: 1 },
      });
    });
  });

  describe('registrations', () => {
    it('refuses clashes with another plugin, naming both', async () => {
      await registry.register(
        plugin('first', (api) => {
          api.registerChannel(channel('chat'));
          api.registerTool(tool('search'));
          api.registerCommand({ name: 'deploy', description: 'd', handler: () => undefined });
          api.registerHttpRoute({ path: '/hooks/x', auth: 'plugin', handler: () => {} });
        }),
      );
      const attempts: Array<[(api: PluginApi) => void, RegExp]> = [
        [
          (api) => api.registerChannel(channel('chat')),
          /"second" registers channel "chat", which plugin "first"/,
        ],
        [(api) => api.registerTool(tool('search')), /tool "search", which plugin "first"/],
        [
          (api) => api.registerCommand({ name: 'deploy', description: 'd', handler: () => undefined }),
          /command "\/deploy"/,
        ],
        [
          (api) => api.registerHttpRoute({ path: '/hooks/x', auth: 'gateway', handler: () => {} }),
          /"\/hooks\/x"/,
        ],
      ];
      for (const [attempt, message] of attempts) {
        await expectCode(
          registry.register(plugin('second', attempt)),
          'PLUGIN_DUPLICATE_REGISTRATION',
          message,
        );
      }
      // The same path as a prefix route is a different route.
      await registry.register(
        plugin('second', (api) =>
          api.registerHttpRoute({ path: '/hooks/x', match: 'prefix', auth: 'plugin', handler: () => {} }),
        ),
      );
      expect(registry.httpRoutes().map((route) => route.plugin)).toEqual(['first', 'second']);
    });

    it('refuses names the gateway reserves', async () => {
      await expectCode(
        registry.register(
          plugin('x', (api) =>
            api.registerCommand({ name: 'reset', description: 'r', handler: () => undefined }),
          ),
        ),
        'PLUGIN_RESERVED_NAME',
        /command "\/reset"/,
      );
      await expectCode(
        registry.register(
          plugin('x', (api) => api.registerHttpRoute({ path: '/healthz', auth: 'plugin', handler() {} })),
        ),
        'PLUGIN_RESERVED_NAME',
      );
      await expectCode(
        registry.register(
          plugin('x', (api) =>
            api.registerHttpRoute({ path: '/', match: 'prefix', auth: 'plugin', handler() {} }),
          ),
        ),
        'PLUGIN_RESERVED_NAME',
      );
    });

    it('requires gateway methods to live in the plugin namespace', async () => {
      await expectCode(
        registry.register(
          plugin('weather', (api) => api.registerGatewayMethod('sessions.delete', () => null)),
        ),
        'PLUGIN_INVALID_REGISTRATION',
        /gateway method names must be "weather\.<method>"; got "sessions\.delete"/,
      );
    });

    it('refuses malformed channels, tools, commands and routes with a reason', async () => {
      const cases: Array<[(api: PluginApi) => void, RegExp]> = [
        [(api) => api.registerChannel(channel('Bad Id')), /channel id must match/],
        [(api) => api.registerChannel(channel('c', { textLimit: 0 })), /"c" capabilities\.textLimit/],
        [(api) => api.registerChannel(channel('c', { chatTypes: [] })), /capabilities\.chatTypes/],
        [
          (api) =>
            api.registerChannel({
              ...channel('c'),
              config: { schema: z.object({}) },
            } as unknown as ChannelPlugin),
          /defineChannelConfig/,
        ],
        [(api) => api.registerTool({ ...tool('has space') }), /tool name must match/],
        [(api) => api.registerTool({ ...tool('t'), parameters: {} as z.ZodObject }), /zod parameters schema/],
        [
          (api) => api.registerCommand({ name: '/slash', description: 'd', handler: () => undefined }),
          /without the slash/,
        ],
        [
          (api) => api.registerHttpRoute({ path: 'no-slash', auth: 'plugin', handler() {} }),
          /path must start with "\/"/,
        ],
        [
          (api) =>
            api.registerHttpRoute({ path: '/x', handler() {} } as unknown as Parameters<
              PluginApi['registerHttpRoute']
            >[0]),
          /must say auth/,
        ],
        [(api) => api.on('agent_end', () => {}, { timeoutMs: 0 }), /timeoutMs of its agent_end handler/],
      ];
      for (const [attempt, message] of cases) {
        await expectCode(registry.register(plugin('bad', attempt)), 'PLUGIN_INVALID_REGISTRATION', message);
      }
      expect(registry.list()).toEqual([]);
    });

    it('accepts a tool factory', async () => {
      const factory = { name: 'session_note', create: () => undefined };
      await registry.register(plugin('notes', (api) => api.registerTool(factory)));
      expect(registry.tool('session_note')?.tool).toBe(factory);
    });
  });

  describe('hook timeouts', () => {
    it('operator per-hook beats operator per-plugin beats the registration beats the default', async () => {
      await registry.register(
        plugin('timed', (api) => {
          api.on('before_tool_call', () => undefined, { timeoutMs: 3_000 });
          api.on('message_sending', () => undefined, { timeoutMs: 4_000 });
          api.on('agent_end', () => {});
        }),
        { entry: { hooks: { timeoutMs: 2_000, timeouts: { before_tool_call: 1_000 } } } },
      );
      await registry.register(
        plugin('untimed', (api) => {
          api.on('message_sending', () => undefined, { timeoutMs: 4_000 });
          api.on('agent_end', () => {});
        }),
      );
      const timeouts = Object.fromEntries(
        registry
          .list()
          .flatMap((entry) => entry.hooks.map((hook) => [`${hook.plugin}:${hook.hook}`, hook.timeoutMs])),
      );
      expect(timeouts).toEqual({
        'timed:before_tool_call': 1_000,
        'timed:message_sending': 2_000,
        'timed:agent_end': 2_000,
        'untimed:message_sending': 4_000,
        'untimed:agent_end': 30_000,
      });
    });

    it('counts hook failures per plugin', async () => {
      await registry.register(
        plugin('crashy', (api) => {
          api.on('message_received', () => {
            throw new Error('x');
          });
          api.on('tool_result_persist', (async () => undefined) as unknown as () => undefined);
        }),
      );
      await registry.hooks.run('message_received', {
        message: {
          chatType: 'direct',
          channel: 'c',
          accountId: 'default',
          messageId: '1',
          peer: { kind: 'direct', id: 'u' },
          sender: { id: 'u' },
          text: 'hi',
          timestamp: 0,
        },
      });
      registry.hooks.runSync('tool_result_persist', {
        sessionKey: 's',
        agentId: 'a',
        message: {
          role: 'toolResult',
          toolCallId: 't',
          toolName: 'n',
          content: [],
          isError: false,
          timestamp: 0,
        },
      });
      expect(registry.get('crashy')?.hookFailures).toEqual({
        errors: 1,
        timeouts: 0,
        promisesInSyncHooks: 1,
      });
    });
  });

  describe('unregister', () => {
    it('removes exactly what the plugin added and runs its teardown', async () => {
      const teardown = vi.fn();
      await registry.register(
        plugin('keep', (api) => {
          api.on('message_sending', () => undefined);
          api.registerTool(tool('kept'));
        }),
      );
      await registry.register(
        plugin('drop', (api) => {
          api.on('message_sending', () => undefined);
          api.on('agent_end', () => {});
          api.registerTool(tool('dropped'));
          api.registerChannel(channel('dropchat'));
          api.registerCommand({ name: 'drop', description: 'd', handler: () => undefined });
          api.registerHttpRoute({ path: '/drop', auth: 'gateway', handler() {} });
          api.registerGatewayMethod('drop.now', () => null);
          return teardown;
        }),
      );
      await expect(registry.unregister('drop')).resolves.toBe(true);
      expect(teardown).toHaveBeenCalledOnce();
      expect(registry.list().map((entry) => entry.name)).toEqual(['keep']);
      expect(registry.hooks.has('agent_end')).toBe(false);
      expect(registry.get('keep')?.hooks.map((hook) => hook.hook)).toEqual(['message_sending']);
      expect(registry.tools().map((entry) => entry.name)).toEqual(['kept']);
      expect(registry.channels()).toEqual([]);
      expect(registry.commands()).toEqual([]);
      expect(registry.httpRoutes()).toEqual([]);
      expect(registry.gatewayMethods()).toEqual([]);
      await expect(registry.unregister('drop')).resolves.toBe(false);
      // The freed names can be taken again.
      await registry.register(plugin('other', (api) => api.registerTool(tool('dropped'))));
    });

    it('an unsubscribe function removes just that handler', async () => {
      let remove: (() => void) | undefined;
      await registry.register(
        plugin('p', (api) => {
          remove = api.on('agent_end', () => {});
          api.on('agent_end', () => {}, { priority: 1 });
        }),
      );
      remove?.();
      expect(registry.get('p')?.hooks.map((hook) => hook.priority)).toEqual([1]);
    });

    it('refuses to unregister a plugin others depend on; unregisterAll goes dependents first', async () => {
      const order: string[] = [];
      await registry.register(plugin('base', () => () => void order.push('base')));
      await registry.register(plugin('mid', () => () => void order.push('mid'), { dependencies: ['base'] }));
      await registry.register(plugin('top', () => () => void order.push('top'), { dependencies: ['mid'] }));
      await expectCode(registry.unregister('base'), 'PLUGIN_HAS_DEPENDENTS', /"base".*"mid" depend on it/);
      await registry.unregisterAll();
      expect(order).toEqual(['top', 'mid', 'base']);
      expect(registry.list()).toEqual([]);
    });

    it('logs a failing teardown and still unregisters', async () => {
      await registry.register(
        plugin('messy', () => () => {
          throw new Error('socket already closed');
        }),
      );
      await expect(registry.unregister('messy')).resolves.toBe(true);
      expect(registry.has('messy')).toBe(false);
      expect(logger.at('error')[0]?.fields).toMatchObject({
        plugin: 'messy',
        code: 'PLUGIN_TEARDOWN_FAILED',
      });
    });
  });
});
