// The config part: the converted config (with the credentials' profiles merged in), checked
// the way `config validate` checks it, and written unless a switchboard.json this import did
// not write is there (refused without --force; replaced with the old one kept beside it).
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type ConfigProblem } from '../../config/errors.ts';
import { checkGatewayConfig, configFileName } from '../../config/load.ts';
import { checkChannelsAndPlugins } from '../../runtime/plugins.ts';
import type { ConvertedConfig } from '../config-conversion/convert-config.ts';
import type { CredentialPlan } from '../credentials.ts';
import { isRecord, readJsonFile } from '../openclaw-source.ts';
import type { PartReport, ReportLine } from '../report-types.ts';
import type { ImportContext } from './context.ts';
import { manifestDirectory, readTextIfPresent, sha256, writePrivateFile } from './private-files.ts';

/** What the config part will do, decided before anything is written. */
export interface ConfigPlan {
  readonly converted: ConvertedConfig;
  /** The OpenClaw config as read (undefined when there is none). */
  readonly rawConfig: unknown;
  /** The config to write, with the credentials' profiles and order. */
  readonly config: Record<string, unknown>;
  readonly configText: string;
  readonly configPath: string;
  readonly manifestPath: string;
  readonly action: 'write' | 'unchanged' | 'replace' | 'refuse' | 'skip';
  /** The converted config checked the way `switchboard config validate` checks it. */
  readonly validation: readonly ConfigProblem[];
}

/** Decides what the config part will do; reads the existing config and the import's manifest. */
export async function planConfig(
  context: ImportContext,
  converted: ConvertedConfig,
  rawConfig: unknown,
  credentials: CredentialPlan | undefined,
  options: { readonly force: boolean; readonly environment: NodeJS.ProcessEnv },
): Promise<ConfigPlan> {
  const { selected, stateDirectory } = context;
  const config = finalConfig(converted, credentials);
  const configText = `${JSON.stringify(config, null, 2)}\n`;
  const configPath = join(stateDirectory, configFileName);
  const validation = selected.has('config')
    ? await validate(configText, configPath, options.environment)
    : [];
  const manifestPath = join(manifestDirectory(stateDirectory), 'manifest.json');
  const existingConfig = readTextIfPresent(configPath);
  const manifest = existsSync(manifestPath) ? readJsonFile(manifestPath) : undefined;
  const writtenByImport =
    existingConfig !== undefined && isRecord(manifest) && manifest.configSha256 === sha256(existingConfig);
  const action: ConfigPlan['action'] = !selected.has('config')
    ? 'skip'
    : existingConfig === undefined || writtenByImport
      ? existingConfig === configText
        ? 'unchanged'
        : 'write'
      : existingConfig === configText
        ? 'unchanged'
        : options.force
          ? 'replace'
          : 'refuse';
  return { converted, rawConfig, config, configText, configPath, manifestPath, action, validation };
}

/** Writes the config (unless a dry run) and reports every key of it. */
export function configPart(context: ImportContext, plan: ConfigPlan): PartReport {
  const { stateDirectory, dryRun, now, layout } = context;
  const { converted, rawConfig, action: configAction, configPath, configText, manifestPath } = plan;
  const lines: ReportLine[] = converted.notes.map((note) => ({
    status: note.disposition,
    subject:
      note.target === undefined || note.target === note.path ? note.path : `${note.path} → ${note.target}`,
    detail: note.message,
  }));
  const explicitDmScope =
    isRecord(rawConfig) && isRecord(rawConfig.session) && rawConfig.session.dmScope !== undefined;
  if (!explicitDmScope)
    lines.push({
      status: 'changed',
      subject: 'session.dmScope',
      detail:
        'not set in OpenClaw, whose default is "main"; written as "main" (Switchboard defaults to per-channel-peer) so direct messages continue in the sessions they had',
    });
  const backup = join(stateDirectory, `${configFileName}.before-openclaw-import`);
  if (configAction === 'refuse')
    lines.push({
      status: 'problem',
      subject: configPath,
      detail: 'exists and was not written by this import: a real run refuses without --force',
    });
  else if (configAction === 'unchanged') lines.push({ status: 'unchanged', subject: configPath });
  else if (dryRun)
    lines.push({
      status: 'import',
      subject: configPath,
      detail: configAction === 'replace' ? `the current file would be kept as ${backup}` : undefined,
    });
  else {
    mkdirSync(stateDirectory, { recursive: true, mode: 0o700 });
    if (configAction === 'replace')
      copyFileSync(configPath, existsSync(backup) ? `${backup}.${now()}` : backup);
    writePrivateFile(configPath, configText);
    mkdirSync(manifestDirectory(stateDirectory), { recursive: true, mode: 0o700 });
    writePrivateFile(
      manifestPath,
      `${JSON.stringify({ from: layout.root, configSha256: sha256(configText) }, null, 2)}\n`,
    );
    lines.push({
      status: 'imported',
      subject: configPath,
      detail: configAction === 'replace' ? `the previous file is kept as ${backup}` : undefined,
    });
  }
  return { part: 'config', lines };
}

/** The converted config with the credentials' profiles and order merged into `auth`. */
function finalConfig(
  converted: ConvertedConfig,
  credentials: CredentialPlan | undefined,
): Record<string, unknown> {
  const config = structuredClone(converted.config);
  if (credentials === undefined) return config;
  const auth = isRecord(config.auth) ? config.auth : {};
  const profiles = { ...(isRecord(auth.profiles) ? auth.profiles : {}), ...credentials.configProfiles };
  const order = { ...(isRecord(auth.order) ? auth.order : {}), ...credentials.order };
  const merged: Record<string, unknown> = { ...auth };
  if (Object.keys(profiles).length > 0) merged.profiles = profiles;
  if (Object.keys(order).length > 0) merged.order = order;
  if (Object.keys(merged).length > 0) config.auth = merged;
  return config;
}

/** The config's problems, as `config validate` finds them (a config that cannot be read is one error). */
async function validate(
  text: string,
  path: string,
  environment: NodeJS.ProcessEnv,
): Promise<ConfigProblem[]> {
  try {
    const checked = checkGatewayConfig(text, path, environment);
    const raw = isRecord(checked.raw) ? checked.raw : {};
    const channels = await checkChannelsAndPlugins({
      channels: raw.channels,
      plugins: raw.plugins,
      configPath: path,
    });
    return [...checked.problems, ...channels.problems];
  } catch (error) {
    if (error instanceof ConfigError) return [{ path: '(root)', message: error.message, severity: 'error' }];
    throw error;
  }
}
