import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelCredentialCheck } from '../runtime/model-credentials.ts';
import { type CliGatewayClient, GatewayRequestError } from './gateway-client.ts';
import type { CliIo } from './io.ts';

/**
 * Where a check's answer came from: this machine (`here`), the config file read by the CLI
 * with its own shell's environment (`config`), or the running gateway (`gateway`), which
 * answers from its own process: its environment, credentials, network and channels.
 */
type CheckSource = 'here' | 'config' | 'gateway';

interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  /** A warning does not fail the doctor. */
  readonly warning?: boolean;
  readonly source: CheckSource;
}

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
  /** The gateway's WebSocket address and the token the CLI would present. */
  target(): Promise<{ url: string; token: string | undefined }>;
}

/** What `doctor.check` answers (see methods/system.ts). */
interface GatewayDoctorReport {
  readonly runtimeVersion: string;
  readonly pid: number;
  readonly uptimeMs: number;
  readonly models: readonly ModelCredentialCheck[];
  readonly endpoints: ReadonlyArray<{
    baseUrl: string;
    reachable: boolean;
    status?: number;
    error?: string;
    durationMs: number;
  }>;
  readonly channels: ReadonlyArray<{
    channel: string;
    accountId: string;
    status: { state: string; detail?: string; error?: string };
  }>;
  readonly queue: {
    running: number;
    waiting: number;
    queuedMessages: number;
    pendingInbound: number;
    notAnswered: Readonly<Record<string, number>>;
  };
  readonly cooldowns: ReadonlyArray<{
    id: string;
    state: string;
    disabled?: { reason: string; remainingMs: number };
    models: ReadonlyArray<{ model: string; reason: string; remainingMs: number }>;
  }>;
  readonly profileCount: number;
  readonly shuttingDown: boolean;
}

/** "42 s", "5 min", "3 h". */
function duration(milliseconds: number): string {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/**
 * `switchboard doctor`: checks what usually goes wrong, and says how to fix it. When a gateway
 * answers, the model, channel, queue and cooldown checks are its own view (`doctor.check`):
 * a key in the gateway's environment counts, the endpoint is probed from the gateway's
 * process. When none answers, they come from the config file and this shell's environment,
 * and the report says so. Exit code 1 when a check that is not a warning failed.
 */
export async function runDoctor(
  values: Record<string, string | boolean | undefined>,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const { resolveStateDirectory, tokenProblem, readTokenForClient } = await import(
    '../state/state-directory.ts'
  );
  const state =
    typeof values['state-dir'] === 'string' ? values['state-dir'] : resolveStateDirectory(io.environment);
  const checks: Check[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  checks.push({
    name: 'node',
    ok: major >= 22,
    detail: `Node ${process.version}${major >= 22 ? '' : ' (22.13 or later is required)'}`,
    source: 'here',
  });

  if (existsSync(state)) {
    const mode = statSync(state).mode & 0o777;
    checks.push({
      name: 'state directory',
      ok: (mode & 0o077) === 0,
      warning: true,
      detail: `${state} mode ${mode.toString(8)}${(mode & 0o077) === 0 ? '' : ' (others can read it: chmod 700)'}`,
      source: 'here',
    });
  } else {
    checks.push({
      name: 'state directory',
      ok: true,
      warning: true,
      detail: `${state} does not exist yet; the gateway creates it`,
      source: 'here',
    });
  }

  let config: Awaited<ReturnType<typeof import('../config/load.ts')['loadConfig']>>['config'] | undefined;
  let configPath: string | undefined;
  try {
    const { loadConfig } = await import('../config/load.ts');
    const loaded = loadConfig({
      stateDirectory: state,
      environment: io.environment,
      ...(typeof values.config === 'string' ? { path: values.config } : {}),
    });
    config = loaded.config;
    configPath = loaded.path;
    checks.push({
      name: 'config',
      ok: true,
      detail: `${loaded.path ?? 'no file (defaults)'} is valid${loaded.warnings.length > 0 ? `, ${loaded.warnings.length} warning(s)` : ''}`,
      source: 'config',
    });
  } catch (error) {
    checks.push({ name: 'config', ok: false, detail: (error as Error).message, source: 'config' });
  }

  const token = config?.gateway.auth.token ?? readTokenForClient(state, io.environment);
  if (config?.gateway.auth.mode === 'none') {
    checks.push({
      name: 'token',
      ok: config.gateway.bind === 'loopback',
      warning: true,
      detail: 'auth is off (gateway.auth.mode "none")',
      source: 'config',
    });
  } else if (token === undefined) {
    checks.push({
      name: 'token',
      ok: true,
      warning: true,
      detail: 'no token yet; the gateway generates one on first start',
      source: 'config',
    });
  } else {
    const problem = tokenProblem(token);
    const short = token.length < 24;
    checks.push({
      name: 'token',
      ok: problem === undefined && !short,
      detail:
        problem ??
        (short
          ? `the token is only ${token.length} characters; use 24 or more`
          : `strong (${token.length} characters)`),
      source: 'config',
    });
  }

  // The running gateway's own view, when one answers.
  const { url } = await helpers.target();
  let report: GatewayDoctorReport | undefined;
  try {
    await helpers.withClient(async (client) => {
      try {
        report = (await client.request('doctor.check', {}, { timeoutMs: 15_000 })) as unknown as
          | GatewayDoctorReport
          | undefined;
        const skills = await (await import('./skills-command.ts')).skillsDoctorCheck(client);
        if (skills !== undefined) checks.push(skills);
        const mcp = await (await import('./mcp-command.ts')).mcpDoctorCheck(client);
        if (mcp !== undefined) checks.push(mcp);
        const sandbox = await (await import('./sandbox-command.ts')).sandboxDoctorCheck(client);
        if (sandbox !== undefined) checks.push(sandbox);
      } catch (error) {
        if (!(error instanceof GatewayRequestError && error.detailCode === 'UNKNOWN_METHOD')) throw error;
        // A gateway from before doctor.check: it answers, but the model checks read the config.
        const health = await client.request('health', {}, { timeoutMs: 10_000 });
        checks.push({
          name: 'gateway',
          ok: health.ok === true,
          warning: true,
          detail: `running and answering at ${url}, but too old to report what it sees (no doctor.check); the model and channel checks read the config`,
          source: 'gateway',
        });
      }
    });
  } catch (error) {
    checks.push({
      name: 'gateway',
      ok: false,
      warning: true,
      detail: `not reachable: ${(error as Error).message}; the model and channel checks read the config and this shell's environment instead`,
      source: 'gateway',
    });
  }

  if (report !== undefined) {
    checks.push(...gatewayChecks(report));
  } else if (config !== undefined) {
    checks.push(...(await configChecks(config, io.environment)));
  }
  if (config !== undefined) {
    const sharedDms = sharedDmWarning(config.session.dmScope, config.channels);
    if (sharedDms !== undefined)
      checks.push({ name: 'dm sessions', ok: false, warning: true, detail: sharedDms, source: 'config' });
  }
  checks.push({
    name: 'database',
    ok: true,
    warning: true,
    detail: existsSync(join(state, 'switchboard.db')) ? join(state, 'switchboard.db') : 'not created yet',
    source: 'here',
  });

  const failed = checks.filter((check) => !check.ok && check.warning !== true);
  const configLabel = configPath ?? 'no config file: defaults';
  const headings: Record<CheckSource, string> = {
    here: 'On this machine:',
    config:
      report === undefined
        ? `From the config file (${configLabel}) and this shell's environment, because no gateway answered:`
        : `From the config file (${configLabel}):`,
    gateway:
      report === undefined
        ? `The gateway at ${url}:`
        : `From the running gateway at ${url} (pid ${report.pid}), as it sees them:`,
  };
  helpers.print(
    {
      ok: failed.length === 0,
      source: report === undefined ? 'config' : 'gateway',
      gateway: { url, answered: report !== undefined, ...(report === undefined ? {} : { pid: report.pid }) },
      checks,
    },
    () =>
      (['here', 'config', 'gateway'] as const)
        .filter((source) => checks.some((check) => check.source === source))
        .map((source) =>
          [
            headings[source],
            ...checks
              .filter((check) => check.source === source)
              .map(
                (check) =>
                  `${check.ok ? 'ok  ' : check.warning ? 'warn' : 'FAIL'}  ${check.name}: ${check.detail}`,
              ),
          ].join('\n'),
        )
        .join('\n'),
  );
  return failed.length === 0 ? 0 : 1;
}

/** The checks a running gateway answered (`doctor.check`). */
function gatewayChecks(report: GatewayDoctorReport): Check[] {
  const source = 'gateway';
  const checks: Check[] = [
    {
      name: 'gateway',
      ok: !report.shuttingDown,
      warning: true,
      detail: `running and answering (Switchboard ${report.runtimeVersion}, pid ${report.pid}, up ${duration(report.uptimeMs)})${report.shuttingDown ? ', shutting down' : ''}`,
      source,
    },
  ];
  for (const model of report.models)
    checks.push({
      name: 'model credentials',
      ok: model.ok,
      detail: model.ok ? model.detail : `${model.reference}: ${model.detail}`,
      source,
    });
  for (const endpoint of report.endpoints)
    checks.push({
      name: 'model endpoint',
      ok: endpoint.reachable,
      detail: endpoint.reachable
        ? `${endpoint.baseUrl} answers (HTTP ${endpoint.status} in ${endpoint.durationMs} ms)`
        : `${endpoint.baseUrl} is not reachable from the gateway (${endpoint.error ?? 'no answer'}): turns will fail`,
      source,
    });
  for (const channel of report.channels) {
    const { state, detail, error } = channel.status;
    checks.push({
      name: `channel ${channel.channel}/${channel.accountId}`,
      ok: state === 'connected',
      warning: state !== 'error',
      detail: `${state}${detail === undefined ? '' : ` (${detail})`}${error === undefined ? '' : `: ${error}`}`,
      source,
    });
  }
  const queue = report.queue;
  const notAnswered = Object.entries(queue.notAnswered);
  checks.push({
    name: 'queue',
    ok: true,
    detail:
      `${queue.running} running, ${queue.waiting} waiting for a slot, ${queue.queuedMessages} messages queued, ${queue.pendingInbound} received and not yet answered` +
      (notAnswered.length === 0
        ? ''
        : `; not answered since start: ${notAnswered.map(([reason, count]) => `${reason} ${count}`).join(', ')}`),
    source,
  });
  const blocked = report.cooldowns.flatMap((profile) => [
    ...(profile.state === 'no_credential' ? [`${profile.id} has no secret`] : []),
    ...(profile.disabled === undefined
      ? []
      : [
          `${profile.id} disabled (${profile.disabled.reason}) for ${duration(profile.disabled.remainingMs)}`,
        ]),
    ...profile.models.map(
      (window) =>
        `${profile.id} cooling down for ${window.model} (${window.reason}) for ${duration(window.remainingMs)}`,
    ),
  ]);
  checks.push({
    name: 'cooldowns',
    ok: blocked.length === 0,
    warning: true,
    detail:
      blocked.length > 0
        ? blocked.join('; ')
        : report.profileCount === 0
          ? 'none (no auth profiles: provider keys are used)'
          : `none: all ${report.profileCount} auth profile(s) ready`,
    source,
  });
  return checks;
}

/** The model and channel checks from the config file and this shell's environment (no gateway answered). */
async function configChecks(
  config: NonNullable<Awaited<ReturnType<typeof import('../config/load.ts')['loadConfig']>>['config']>,
  environment: NodeJS.ProcessEnv,
): Promise<Check[]> {
  const source = 'config';
  const checks: Check[] = [];
  const { createModelCatalog } = await import('../runtime/models.ts');
  const { checkModelCredentials, modelReferencesInUse, probeModelEndpoint } = await import(
    '../runtime/model-credentials.ts'
  );
  const catalog = createModelCatalog(config, environment);
  // Stored credentials live in the gateway's database: only a running gateway sees them.
  const declared = Object.entries(config.auth?.profiles ?? {}).map(([id, profile]) => ({
    id,
    provider: profile.provider,
    hasCredential: profile.apiKey !== undefined || profile.token !== undefined,
  }));
  const models = modelReferencesInUse(config).map((reference) =>
    checkModelCredentials({
      config,
      catalog,
      reference,
      profiles: declared,
      environmentName: "this shell's environment",
    }),
  );
  for (const model of models) {
    const storedMayExist = declared.some(
      (profile) => profile.provider === model.provider && !profile.hasCredential,
    );
    checks.push({
      name: 'model credentials',
      ok: model.ok,
      detail: model.ok
        ? model.detail
        : `${model.reference}: ${model.detail}${storedMayExist ? ' (auth profiles whose secret is stored in the gateway database are seen only by a running gateway)' : ''}`,
      source,
    });
  }
  const baseUrls = [
    ...new Set(models.flatMap((model) => (model.baseUrl === undefined ? [] : [model.baseUrl]))),
  ];
  for (const probe of await Promise.all(baseUrls.map((baseUrl) => probeModelEndpoint(baseUrl))))
    checks.push({
      name: 'model endpoint',
      ok: probe.reachable,
      warning: true,
      detail: probe.reachable
        ? `${probe.baseUrl} answers from here (HTTP ${probe.status})`
        : `${probe.baseUrl} is not reachable from here (${probe.error ?? 'no answer'})`,
      source,
    });
  for (const [channel, section] of Object.entries(config.channels)) {
    const text = JSON.stringify(section ?? {});
    const hasSecret =
      /"(botToken|token|appToken|accessToken|signingSecret)"\s*:\s*"[^"]+"/.test(text) ||
      /"transport"\s*:\s*"baileys"/.test(text);
    checks.push({
      name: `channel ${channel}`,
      ok: hasSecret,
      detail: hasSecret ? 'credentials present' : `channels.${channel} has no token or credential`,
      source,
    });
  }
  return checks;
}

/**
 * The warning for `session.dmScope: "main"` (every DM sender in one conversation) when more
 * than one sender can reach the bot by DM: an allowlist of two or more, or DMs open or
 * admitted by pairing (the default) on any configured channel or account.
 */
export function sharedDmWarning(
  dmScope: string | undefined,
  channels: Record<string, unknown>,
): string | undefined {
  if (dmScope !== 'main') return undefined;
  const reasons: string[] = [];
  const visit = (path: string, section: unknown): void => {
    if (section === null || typeof section !== 'object') return;
    const record = section as Record<string, unknown>;
    const policy = typeof record.dmPolicy === 'string' ? record.dmPolicy : undefined;
    const allowFrom = Array.isArray(record.allowFrom) ? record.allowFrom.length : 0;
    if (policy === 'open' || policy === 'pairing') reasons.push(`${path}.dmPolicy is "${policy}"`);
    else if (allowFrom > 1) reasons.push(`${path}.allowFrom lists ${allowFrom} senders`);
    else if (policy === undefined && path.split('.').length === 2)
      reasons.push(`${path} admits DM senders by pairing`);
    const accounts = record.accounts;
    if (accounts !== null && typeof accounts === 'object')
      for (const [id, account] of Object.entries(accounts)) visit(`${path}.accounts.${id}`, account);
  };
  for (const [channel, section] of Object.entries(channels)) visit(`channels.${channel}`, section);
  if (reasons.length === 0) return undefined;
  return `session.dmScope is "main": every DM sender shares one conversation and its history, and ${reasons[0]}${reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : ''}; set session.dmScope to "per-channel-peer" (the default) so each sender has their own`;
}
