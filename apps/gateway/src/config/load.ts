import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkRoutingConfig, type RoutingConfig, RoutingError } from '@switchboard/routing';
import { SessionsError, validateResetConfig } from '@switchboard/sessions';
import { substituteEnvironment } from './env.ts';
import { ConfigError, type ConfigProblem } from './errors.ts';
import { type GatewayConfig, gatewayConfigSchema } from './schema.ts';
import { parseConfigText, validateConfig } from './validate.ts';

export const configFileName = 'switchboard.json';

export interface LoadedConfig {
  readonly config: GatewayConfig;
  /** The file read, or undefined when none exists and defaults apply. */
  readonly path: string | undefined;
  readonly warnings: readonly ConfigProblem[];
}

export interface LoadConfigOptions {
  /** `--config`: must exist when given. */
  readonly path?: string;
  readonly stateDirectory: string;
  readonly environment?: NodeJS.ProcessEnv;
}

/** Where the config comes from: `--config`, else `switchboard.json` in the state directory. */
export function resolveConfigPath(options: LoadConfigOptions): string | undefined {
  if (options.path !== undefined) {
    const path = resolve(options.path);
    if (!existsSync(path)) throw new ConfigError('CONFIG_NOT_FOUND', `config file ${path} does not exist`);
    return path;
  }
  const path = join(options.stateDirectory, configFileName);
  return existsSync(path) ? path : undefined;
}

/** Parses and validates config text (already read), reporting every problem with its key path. */
export function parseGatewayConfig(
  text: string | undefined,
  source: string,
  environment: NodeJS.ProcessEnv = process.env,
): { config: GatewayConfig; warnings: ConfigProblem[] } {
  const raw = text === undefined ? {} : parseConfigText(text, source);
  const substituted = substituteEnvironment(raw, environment);
  const { value, warnings } = validateConfig(gatewayConfigSchema, substituted);
  const allWarnings = [...warnings];
  try {
    for (const warning of checkRoutingConfig(value as unknown as RoutingConfig)) {
      allWarnings.push({ path: warning.path, message: warning.message });
    }
    validateResetConfig(value.session);
  } catch (error) {
    if (error instanceof RoutingError || error instanceof SessionsError) {
      const problems = ((error.details?.problems as ConfigProblem[] | undefined) ?? []).map((problem) => ({
        path: problem.path,
        message: problem.message,
      }));
      throw new ConfigError('CONFIG_INVALID', error.message, problems);
    }
    throw error;
  }
  return { config: value, warnings: allWarnings };
}

/** Finds, reads, substitutes and validates the gateway config. */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const path = resolveConfigPath(options);
  let text: string | undefined;
  if (path !== undefined) {
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConfigError(
        'CONFIG_UNREADABLE',
        `config file ${path} cannot be read: ${(error as Error).message}`,
      );
    }
  }
  const { config, warnings } = parseGatewayConfig(
    text,
    path ?? '(defaults)',
    options.environment ?? process.env,
  );
  return { config, path, warnings };
}
