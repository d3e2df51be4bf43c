/**
 * The `plugins` section of the gateway configuration:
 *
 * ```json5
 * plugins: {
 *   enabled: true,                       // false: load no third-party plugin
 *   load: { paths: ['./my-plugin'] },    // local plugins: a folder with package.json, or a file
 *   entries: {
 *     weather: {
 *       enabled: true,
 *       optional: false,                     // true: start without it when it cannot load
 *       package: '@acme/switchboard-weather', // default: the entry name
 *       config: { units: 'metric' },          // validated by the plugin's configSchema
 *       hooks: { timeoutMs: 5000, timeouts: { before_tool_call: 2000 } },
 *     },
 *   },
 * }
 * ```
 */
import { z } from 'zod';
import { type HookName, hookNames, isHookName, maxHookTimeoutMs } from './hook-types.ts';

/** Operator overrides of a plugin's hook timeouts. They beat the plugin's own `timeoutMs`. */
export interface PluginHookSettings {
  /** Timeout for every handler of the plugin, in ms (1–600000). */
  readonly timeoutMs?: number;
  /** Timeout per hook, in ms; beats `timeoutMs`. */
  readonly timeouts?: Readonly<Partial<Record<HookName, number>>>;
}

/** `plugins.entries.<name>`. */
export interface PluginEntryConfig {
  /** `false` skips the plugin. Default `true`. */
  readonly enabled: boolean;
  /**
   * `true`: when the plugin cannot be loaded (not found, fails to import, invalid config,
   * setup fails) the gateway starts without it and warns. Default `false`: it refuses to start.
   */
  readonly optional: boolean;
  /** The npm package to load when the plugin is not bundled or on a load path. Default: the entry name. */
  readonly package?: string;
  /** The plugin's own configuration, validated by its `configSchema`. */
  readonly config?: unknown;
  readonly hooks?: PluginHookSettings;
}

/** The whole `plugins` section, after defaults. */
export interface PluginsConfig {
  /** `false` loads no plugin from `load.paths` or packages (bundled ones still load). Default `true`. */
  readonly enabled: boolean;
  readonly load: { readonly paths: readonly string[] };
  readonly entries: Readonly<Record<string, PluginEntryConfig>>;
}

const timeout = z
  .number()
  .int()
  .min(1)
  .max(maxHookTimeoutMs, { message: `at most ${maxHookTimeoutMs} ms` });

const hookSettingsSchema = z.object({
  timeoutMs: timeout.optional(),
  timeouts: z
    .record(z.string(), timeout)
    .superRefine((timeouts, context) => {
      for (const hook of Object.keys(timeouts)) {
        if (!isHookName(hook)) {
          context.addIssue({
            code: 'custom',
            path: [hook],
            message: `unknown hook "${hook}" (known: ${hookNames.join(', ')})`,
          });
        }
      }
    })
    .optional(),
});

/** Validates `plugins.entries.<name>` (the plugin's own `config` is checked later, by its schema). */
export const pluginEntrySchema: z.ZodType<PluginEntryConfig> = z.object({
  enabled: z.boolean().default(true),
  optional: z.boolean().default(false),
  package: z.string().min(1).optional(),
  config: z.unknown().optional(),
  hooks: hookSettingsSchema.optional(),
}) as z.ZodType<PluginEntryConfig>;

/** Validates the `plugins` section; use it inside the gateway's configuration schema. */
export const pluginsConfigSchema: z.ZodType<PluginsConfig> = z.object({
  enabled: z.boolean().default(true),
  load: z.object({ paths: z.array(z.string().min(1)).default([]) }).default({ paths: [] }),
  entries: z.record(z.string(), pluginEntrySchema).default({}),
}) as z.ZodType<PluginsConfig>;
