// `switchboard import openclaw`: reads an OpenClaw state directory (never writes it), plans
// every part, and, unless it is a dry run, writes the plan into a Switchboard state
// directory. Every write checks what is there first, so a second run changes nothing
// (docs/decisions/0022-import-openclaw.md).
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createKeyValueAuthStateStorage, defaultAuthStateNamespaces } from '@switchboard/auth-profiles';
import { createStateSchedulerStore } from '@switchboard/scheduler';
import { createSqliteSessionStore, type SessionStore, SessionsError } from '@switchboard/sessions';
import { ConfigError, type ConfigProblem } from '../config/errors.ts';
import { checkGatewayConfig, configFileName } from '../config/load.ts';
import { gatewayConfigSchema, modelApis } from '../config/schema.ts';
import { checkChannelsAndPlugins } from '../runtime/plugins.ts';
import { type ConvertedConfig, convertOpenClawConfig } from './config-conversion.ts';
import { type CredentialPlan, planCredentials, readAuthStores } from './credentials.ts';
import { readCronJobs, toSchedulerJob } from './cron-import.ts';
import { ImportError } from './errors.ts';
import { isRecord, listDirectories, listFiles, locateOpenClaw, readJsonFile } from './openclaw-source.ts';
import { approvalKey, approvedNamespace, readPairingState } from './pairing-import.ts';
import { readSessions, sessionInputFrom } from './session-import.ts';
import { convertTranscript } from './transcript-conversion.ts';

export const importParts = ['config', 'credentials', 'pairing', 'sessions', 'cron', 'workspace'] as const;
type ImportPart = (typeof importParts)[number];

/**
 * What a report line says. Config keys: mapped, changed (mapped with another meaning),
 * unsupported. Everything else: `import` (planned, dry run), `imported`, `unchanged` (already
 * there from an earlier run), `kept` (Switchboard already had something else there; left
 * alone), `not_imported` (found, deliberately not carried over), `problem`.
 */
export type ReportStatus =
  | 'mapped'
  | 'changed'
  | 'unsupported'
  | 'import'
  | 'imported'
  | 'unchanged'
  | 'kept'
  | 'not_imported'
  | 'problem';

interface ReportLine {
  readonly status: ReportStatus;
  readonly subject: string;
  readonly detail?: string;
}

interface PartReport {
  readonly part: ImportPart;
  readonly lines: readonly ReportLine[];
}

export interface ImportReport {
  readonly from: string;
  readonly stateDirectory: string;
  readonly dryRun: boolean;
  readonly configShape: ConvertedConfig['shape'];
  readonly parts: readonly PartReport[];
  /** The converted config checked the way `switchboard config validate` checks it. */
  readonly validation: readonly ConfigProblem[];
}

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

const manifestDirectory = (stateDirectory: string) => join(stateDirectory, 'imports', 'openclaw');

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Writes a file atomically with mode 0600 (the config holds tokens). */
function writePrivateFile(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

function readTextIfPresent(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

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

/** Runs the import (or, with `dryRun`, only plans it) and returns the report. */
export async function importOpenClaw(options: ImportOpenClawOptions): Promise<ImportReport> {
  const now = options.now ?? Date.now;
  const environment = options.environment ?? process.env;
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
  const config = finalConfig(converted, credentialPlan);
  const configText = `${JSON.stringify(config, null, 2)}\n`;
  const configPath = join(stateDirectory, configFileName);
  const validation = selected.has('config') ? await validate(configText, configPath, environment) : [];

  // Decide about an existing config before anything is written.
  const manifestPath = join(manifestDirectory(stateDirectory), 'manifest.json');
  const existingConfig = readTextIfPresent(configPath);
  const manifest = existsSync(manifestPath) ? readJsonFile(manifestPath) : undefined;
  const writtenByImport =
    existingConfig !== undefined && isRecord(manifest) && manifest.configSha256 === sha256(existingConfig);
  const configAction: 'write' | 'unchanged' | 'replace' | 'refuse' | 'skip' = !selected.has('config')
    ? 'skip'
    : existingConfig === undefined || writtenByImport
      ? existingConfig === configText
        ? 'unchanged'
        : 'write'
      : existingConfig === configText
        ? 'unchanged'
        : options.force === true
          ? 'replace'
          : 'refuse';
  if (configAction === 'refuse' && !dryRun)
    throw new ImportError(
      'IMPORT_TARGET_HAS_CONFIG',
      `${configPath} already exists and was not written by this import; pass --force to replace it (it is kept as ${configFileName}.before-openclaw-import), or --only without config to import the state alone`,
    );

  const parts: PartReport[] = [];
  let store: SessionStore | undefined;
  const needsStore =
    !dryRun &&
    (selected.has('credentials') ||
      selected.has('pairing') ||
      selected.has('sessions') ||
      selected.has('cron'));
  try {
    if (needsStore) {
      try {
        store = await createSqliteSessionStore({ stateDirectory, durability: 'normal', now });
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
    if (selected.has('config')) parts.push(configPart());
    if (credentialPlan !== undefined) parts.push(await credentialsPart(credentialPlan));
    if (selected.has('pairing')) parts.push(await pairingPart());
    if (selected.has('sessions')) parts.push(await sessionsPart());
    if (selected.has('cron')) parts.push(await cronPart());
    if (selected.has('workspace')) parts.push(workspacePart());
  } finally {
    await store?.close();
  }
  return { from: layout.root, stateDirectory, dryRun, configShape: converted.shape, parts, validation };

  function configPart(): PartReport {
    const lines: ReportLine[] = converted.notes.map((note) => ({
      status: note.disposition,
      subject:
        note.target === undefined || note.target === note.path ? note.path : `${note.path} → ${note.target}`,
      ...(note.message === undefined ? {} : { detail: note.message }),
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

  async function credentialsPart(plan: CredentialPlan): Promise<PartReport> {
    const lines: ReportLine[] = [];
    const storage = store === undefined ? undefined : createKeyValueAuthStateStorage(store);
    for (const { profileId, credential } of plan.credentials) {
      const note = plan.notes.find(
        (item) => item.status === 'import' && item.text.startsWith(`${profileId} (`),
      );
      const subject = note?.text ?? profileId;
      if (store === undefined || storage === undefined) {
        lines.push({ status: 'import', subject });
        continue;
      }
      const existing = await store.getState(defaultAuthStateNamespaces.credentials, profileId);
      if (existing !== undefined) {
        lines.push(
          sameJson(existing.value, credential)
            ? { status: 'unchanged', subject }
            : {
                status: 'kept',
                subject,
                detail: 'Switchboard already has another credential under this id; left alone',
              },
        );
        continue;
      }
      await storage.putCredential(profileId, credential);
      lines.push({ status: 'imported', subject });
    }
    for (const note of plan.notes)
      if (note.status !== 'import')
        lines.push({ status: note.status === 'changed' ? 'changed' : 'unsupported', subject: note.text });
    for (const [provider, ids] of Object.entries(plan.order))
      lines.push({
        status: 'mapped',
        subject: `auth.order.${provider}: ${ids.join(', ')}`,
        detail: selected.has('config')
          ? 'the order is kept in switchboard.json'
          : 'not written: the config part is not selected',
      });
    if (existsSync(join(layout.credentialsDirectory, 'oauth.json')))
      lines.push({
        status: 'not_imported',
        subject: join(layout.credentialsDirectory, 'oauth.json'),
        detail: 'legacy OAuth logins: Switchboard has none; add API keys instead',
      });
    lines.push(...copyWhatsAppCredentials());
    return { part: 'credentials', lines };
  }

  function copyWhatsAppCredentials(): ReportLine[] {
    const lines: ReportLine[] = [];
    const root = join(layout.credentialsDirectory, 'whatsapp');
    for (const accountId of listDirectories(root)) {
      const source = join(root, accountId);
      const target = join(stateDirectory, 'channels', 'whatsapp', accountId, 'auth');
      const files = listFiles(source).filter((name) => name.endsWith('.json'));
      let copied = 0;
      let same = 0;
      let kept = 0;
      for (const name of files) {
        const from = join(source, name);
        const to = join(target, name);
        const existing = readTextIfPresent(to);
        if (existing === readFileSync(from, 'utf8')) same += 1;
        else if (existing !== undefined) kept += 1;
        else {
          copied += 1;
          if (!dryRun) {
            mkdirSync(target, { recursive: true, mode: 0o700 });
            writePrivateFile(to, readFileSync(from, 'utf8'));
          }
        }
      }
      const subject = `WhatsApp linked device of account ${accountId} (${files.length} files) → ${target}`;
      if (copied > 0)
        lines.push({
          status: dryRun ? 'import' : 'imported',
          subject,
          detail: kept > 0 ? `${kept} files Switchboard already had were left alone` : undefined,
        });
      else if (kept > 0)
        lines.push({
          status: 'kept',
          subject,
          detail: 'Switchboard already has a linked device there; left alone',
        });
      else if (same > 0) lines.push({ status: 'unchanged', subject });
    }
    return lines;
  }

  async function pairingPart(): Promise<PartReport> {
    const channels = isRecord(config.channels) ? Object.keys(config.channels) : [];
    const state = await readPairingState(layout, channels);
    const lines: ReportLine[] = [];
    for (const sender of state.approved) {
      const subject = `${sender.channel}/${sender.accountId}: sender ${sender.senderId}`;
      if (store === undefined) {
        lines.push({ status: 'import', subject });
        continue;
      }
      const key = approvalKey(sender);
      if ((await store.getState(approvedNamespace, key)) !== undefined) {
        lines.push({ status: 'unchanged', subject });
        continue;
      }
      await store.putState(approvedNamespace, key, {
        channel: sender.channel,
        accountId: sender.accountId,
        senderId: sender.senderId,
        sender: { id: sender.senderId },
        approvedAt: now(),
        importedFrom: 'openclaw',
      });
      lines.push({ status: 'imported', subject });
    }
    if (state.pendingRequests > 0)
      lines.push({
        status: 'not_imported',
        subject: `${state.pendingRequests} pending pairing request(s)`,
        detail: 'a code lives an hour; those senders get a new code when they write again',
      });
    for (const problem of state.problems) lines.push({ status: 'problem', subject: problem });
    return { part: 'pairing', lines };
  }

  async function sessionsPart(): Promise<PartReport> {
    const source = await readSessions(layout, agentIds);
    const lines: ReportLine[] = [];
    try {
      for (const session of source.sessions) {
        const { events, invalid } = await session.loadEvents();
        const transcript = convertTranscript(events, now());
        const skippedText = Object.entries(transcript.skipped)
          .map(([type, count]) => `${count} ${type}`)
          .join(', ');
        const subject = `${session.key} (${transcript.entries.length} entries)`;
        const detail = [
          invalid > 0 ? `${invalid} unreadable lines left out` : '',
          skippedText === '' ? '' : `left out: ${skippedText}`,
        ]
          .filter((part) => part !== '')
          .join('; ');
        const withDetail = detail === '' ? {} : { detail };
        if (store === undefined) {
          lines.push({ status: 'import', subject, ...withDetail });
          continue;
        }
        const existing = await store.getSession(session.key);
        const marker = existing?.metadata.importedFrom;
        const info = existing === undefined ? undefined : await store.getTranscript(existing.sessionId);
        if (existing !== undefined && isRecord(marker) && marker.sessionId === session.sessionId) {
          lines.push({ status: 'unchanged', subject });
          continue;
        }
        if (existing !== undefined && (info?.lastSequence ?? 0) > 0) {
          lines.push({
            status: 'kept',
            subject,
            detail: 'Switchboard already has a conversation under this key; left alone',
          });
          continue;
        }
        const { create, patch } = sessionInputFrom(session);
        const { entry } = await store.ensureSession(session.key, create);
        if (transcript.entries.length > 0)
          await store.appendEntries(session.key, transcript.entries, {
            expectedSessionId: entry.sessionId,
            patch,
          });
        else await store.patchSession(session.key, patch, { expectedSessionId: entry.sessionId });
        lines.push({ status: 'imported', subject, ...withDetail });
      }
    } finally {
      source.close();
    }
    for (const problem of source.problems) lines.push({ status: 'problem', subject: problem });
    return { part: 'sessions', lines };
  }

  async function cronPart(): Promise<PartReport> {
    const { jobs, problems } = await readCronJobs(layout);
    const lines: ReportLine[] = problems.map((problem) => ({ status: 'problem', subject: problem }));
    const scheduler = store === undefined ? undefined : createStateSchedulerStore(store);
    for (const source of jobs) {
      const subject = `${source.id} "${source.name}"${source.enabled ? '' : ' (disabled)'}${source.agentId === undefined ? '' : ` for agent ${source.agentId}`}`;
      const converted = toSchedulerJob(source, now());
      if (converted.job === undefined) {
        lines.push({ status: 'unsupported', subject, detail: converted.reason });
        continue;
      }
      const detail = converted.notes.length === 0 ? {} : { detail: converted.notes.join('; ') };
      if (scheduler === undefined) {
        lines.push({ status: 'import', subject, ...detail });
        continue;
      }
      const existing = await scheduler.getJob(source.id);
      if (existing !== undefined) {
        const same =
          existing.name === converted.job.name &&
          sameJson(existing.schedule, converted.job.schedule) &&
          sameJson(existing.payload, converted.job.payload);
        lines.push(
          same
            ? { status: 'unchanged', subject }
            : {
                status: 'kept',
                subject,
                detail: 'Switchboard already has another job with this id; left alone',
              },
        );
        continue;
      }
      await scheduler.putJob(converted.job, { expectedRevision: 0 });
      lines.push({ status: 'imported', subject, ...detail });
    }
    return { part: 'cron', lines };
  }

  function workspacePart(): PartReport {
    const lines: ReportLine[] = converted.agents.map((agent) => {
      const files = listFiles(agent.workspace).filter((name) => name.endsWith('.md'));
      return existsSync(agent.workspace)
        ? {
            status: 'unchanged' as const,
            subject: `agent ${agent.id}: ${agent.workspace}`,
            detail: `stays where it is${files.length === 0 ? '' : ` (${files.join(', ')})`}; switchboard.json points at it`,
          }
        : {
            status: 'problem' as const,
            subject: `agent ${agent.id}: ${agent.workspace}`,
            detail: 'does not exist; the agent starts with an empty workspace there',
          };
    });
    return { part: 'workspace', lines };
  }
}
