// `switchboard import openclaw`: reads an OpenClaw state directory (never writes it), plans
// every part, and, unless it is a dry run, writes the plan into a Switchboard state
// directory. Every write checks what is there first, so a second run changes nothing
// (docs/decisions/0022-import-openclaw.md). Each part lives in `parts/`.
import { existsSync } from 'node:fs';
import { createSqliteSessionStore, type SessionStore, SessionsError } from '@switchboard/sessions';
import { configFileName } from '../config/load.ts';
import { gatewayConfigSchema, modelApis } from '../config/schema.ts';
import { convertOpenClawConfig } from './config-conversion/convert-config.ts';
import { planCredentials, readAuthStores } from './credentials.ts';
import { ImportError } from './errors.ts';
import { listDirectories, locateOpenClaw, readJsonFile } from './openclaw-source.ts';
import { configPart, planConfig } from './parts/config-part.ts';
import type { ImportContext } from './parts/context.ts';
import { credentialsPart } from './parts/credentials-part.ts';
import { cronPart } from './parts/cron-part.ts';
import { pairingPart } from './parts/pairing-part.ts';
import { sessionsPart } from './parts/sessions-part.ts';
import { workspacePart } from './parts/workspace-part.ts';
import { type ImportPart, type ImportReport, importParts, type PartReport } from './report-types.ts';

interface ImportOpenClawOptions {
  /** The OpenClaw state directory. */
  readonly from: string;
  /** The Switchboard state directory to write into. */
  readonly stateDirectory: string;
  readonly dryRun?: boolean;
  /** Parts to import; default all. */
  readonly only?: readonly ImportPart[];
  /** Replace a switchboard.json this import did not write (the old one is kept beside it). */
  readonly force?: boolean;
  readonly environment?: NodeJS.ProcessEnv;
  readonly now?: () => number;
}

/** Parses `--only config,sessions`. */
export function parseOnly(value: string): ImportPart[] {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const unknown = parts.filter((part) => !(importParts as readonly string[]).includes(part));
  if (unknown.length > 0 || parts.length === 0)
    throw new ImportError(
      'IMPORT_INVALID_ONLY',
      `--only ${unknown.length > 0 ? `names unknown parts: ${unknown.join(', ')}` : 'is empty'}; the parts are ${importParts.join(', ')}`,
    );
  return parts as ImportPart[];
}

/** Runs the import (or, with `dryRun`, only plans it) and returns the report. */
export async function importOpenClaw(options: ImportOpenClawOptions): Promise<ImportReport> {
  const now = options.now ?? Date.now;
  const dryRun = options.dryRun === true;
  const selected = new Set<ImportPart>(options.only ?? importParts);
  const layout = locateOpenClaw(options.from);
  const stateDirectory = options.stateDirectory;

  const rawConfig = existsSync(layout.configPath) ? readJsonFile(layout.configPath, 'json5') : undefined;
  const agentDirectories = listDirectories(layout.agentsDirectory);
  const converted = convertOpenClawConfig(rawConfig, {
    root: layout.root,
    modelApis,
    hasMemorySection: 'memory' in gatewayConfigSchema.shape,
    agentDirectories,
  });
  const defaultAgentId = converted.agents.find((agent) => agent.isDefault)?.id ?? 'main';
  const agentIds = [...new Set([...converted.agents.map((agent) => agent.id), ...agentDirectories])];
  const credentialPlan = selected.has('credentials')
    ? planCredentials(await readAuthStores(layout, agentIds), defaultAgentId)
    : undefined;

  // Decide about an existing config before anything is written.
  const planning: ImportContext = { layout, stateDirectory, dryRun, store: undefined, selected, now };
  const configPlan = await planConfig(planning, converted, rawConfig, credentialPlan, {
    force: options.force === true,
    environment: options.environment ?? process.env,
  });
  if (configPlan.action === 'refuse' && !dryRun)
    throw new ImportError(
      'IMPORT_TARGET_HAS_CONFIG',
      `${configPlan.configPath} already exists and was not written by this import; pass --force to replace it (it is kept as ${configFileName}.before-openclaw-import), or --only without config to import the state alone`,
    );

  const parts: PartReport[] = [];
  const needsStore =
    !dryRun &&
    (selected.has('credentials') ||
      selected.has('pairing') ||
      selected.has('sessions') ||
      selected.has('cron'));
  const store = needsStore ? await openStore(stateDirectory, now) : undefined;
  const context: ImportContext = { ...planning, store };
  try {
    if (selected.has('config')) parts.push(configPart(context, configPlan));
    if (credentialPlan !== undefined) parts.push(await credentialsPart(context, credentialPlan));
    if (selected.has('pairing')) parts.push(await pairingPart(context, configPlan.config));
    if (selected.has('sessions')) parts.push(await sessionsPart(context, agentIds));
    if (selected.has('cron')) parts.push(await cronPart(context));
    if (selected.has('workspace')) parts.push(workspacePart(converted.agents));
  } finally {
    await store?.close();
  }
  return {
    from: layout.root,
    stateDirectory,
    dryRun,
    configShape: converted.shape,
    parts,
    validation: configPlan.validation,
  };
}

/** Opens Switchboard's store in the state directory; a running gateway holding it is a clear error. */
async function openStore(stateDirectory: string, now: () => number): Promise<SessionStore> {
  try {
    return await createSqliteSessionStore({ stateDirectory, durability: 'normal', now });
  } catch (error) {
    if (error instanceof SessionsError && error.code === 'SESSIONS_LOCKED')
      throw new ImportError(
        'IMPORT_TARGET_LOCKED',
        `${stateDirectory} is in use by a running gateway (${error.message}); stop it and run the import again`,
        { cause: error },
      );
    throw error;
  }
}
