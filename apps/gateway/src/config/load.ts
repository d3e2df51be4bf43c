import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkRoutingConfig, type RoutingConfig, RoutingError } from '@switchboard/routing';
import { SessionsError, validateResetConfig } from '@switchboard/sessions';
import { substituteEnvironment } from './env.ts';
import { ConfigError, type ConfigProblem, throwIfErrors } from './errors.ts';
import { type GatewayConfig, gatewayConfigSchema } from './schema.ts';
import { checkConfig, parseConfigText } from './validate.ts';

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
function resolveConfigPath(options: LoadConfigOptions): string | undefined {
  if (options.path !== undefined) {
    const path = resolve(options.path);
    if (!existsSync(path)) throw new ConfigError('CONFIG_NOT_FOUND', `config file ${path} does not exist`);
    return path;
  }
  const path = join(options.stateDirectory, configFileName);
  return existsSync(path) ? path : undefined;
}

/**
 * Unknown keys are warnings (an OpenClaw config carries keys Switchboard does not use),
 * except inside a plugin's entry: a misspelt `config` or `enabled` there silently changes
 * what a plugin (perhaps a guard) does. See docs/decisions/0010-config-validation.md.
 */
function unknownKeySeverity(path: string): ConfigProblem['severity'] {
  return /^plugins\.entries\.[^.[\]]+\./.test(path) ? 'error' : 'warning';
}

/** The result of {@link checkGatewayConfig}. */
export interface CheckedGatewayConfig {
  /** The validated config; undefined when any problem is an error. */
  readonly config: GatewayConfig | undefined;
  /** The config after `${VAR}` substitution, before validation (channels and plugins are checked from it). */
  readonly raw: unknown;
  /** Every problem, errors and warnings, with full key paths. */
  readonly problems: readonly ConfigProblem[];
}

/**
 * Parses, substitutes and checks config text (already read) and reports every problem of
 * the gateway's own schema, routing and session settings at once. Throws only when the text
 * is not JSON5 (`CONFIG_SYNTAX`) or names unset variables (`CONFIG_ENV_MISSING`).
 */
export function checkGatewayConfig(
  text: string | undefined,
  source: string,
  environment: NodeJS.ProcessEnv = process.env,
): CheckedGatewayConfig {
  const parsed = text === undefined ? {} : parseConfigText(text, source);
  const raw = substituteEnvironment(parsed, environment);
  const { value, problems: schemaProblems } = checkConfig(gatewayConfigSchema, raw, { unknownKeySeverity });
  const problems = [...schemaProblems];
  if (value === undefined) return { config: undefined, raw, problems };
  try {
    for (const warning of checkRoutingConfig(value as unknown as RoutingConfig)) {
      problems.push({ path: warning.path, message: warning.message, severity: 'warning' });
    }
    validateResetConfig(value.session);
  } catch (error) {
    if (!(error instanceof RoutingError || error instanceof SessionsError)) throw error;
    const found = (error.details?.problems as Array<{ path: string; message: string }> | undefined) ?? [];
    if (found.length === 0) problems.push({ path: '(root)', message: error.message, severity: 'error' });
    for (const problem of found) {
      problems.push({ path: problem.path, message: problem.message, severity: 'error' });
    }
  }
  const failed = problems.some((problem) => problem.severity === 'error');
  return { config: failed ? undefined : value, raw, problems };
}

/**
 * Parses and validates config text (already read). Throws a `ConfigError` listing every
 * problem (warnings too) when any is an error; otherwise returns the config and its warnings.
 */
export function parseGatewayConfig(
  text: string | undefined,
  source: string,
  environment: NodeJS.ProcessEnv = process.env,
): { config: GatewayConfig; warnings: ConfigProblem[] } {
  const { config, problems } = checkGatewayConfig(text, source, environment);
  throwIfErrors(problems);
  return { config: config as GatewayConfig, warnings: [...problems] };
}

/** Finds and reads the config file: its path (undefined: none, defaults apply) and text. */
export function readConfigFile(options: LoadConfigOptions): {
  path: string | undefined;
  text: string | undefined;
} {
  const path = resolveConfigPath(options);
  if (path === undefined) return { path, text: undefined };
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (error) {
    throw new ConfigError(
      'CONFIG_UNREADABLE',
      `config file ${path} cannot be read: ${(error as Error).message}`,
    );
  }
}

/** Finds, reads, substitutes and validates the gateway config. */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const { path, text } = readConfigFile(options);
  const { config, warnings } = parseGatewayConfig(
    text,
    path ?? '(defaults)',
    options.environment ?? process.env,
  );
  return { config, path, warnings };
}
