import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CliGatewayClient } from './gateway-client.ts';
import type { CliIo } from './main.ts';

interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  /** A warning does not fail the doctor. */
  readonly warning?: boolean;
}

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
}

/** `switchboard doctor`: checks what usually goes wrong, and says how to fix it. */
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
  });

  if (existsSync(state)) {
    const mode = statSync(state).mode & 0o777;
    checks.push({
      name: 'state directory',
      ok: (mode & 0o077) === 0,
      warning: true,
      detail: `${state} mode ${mode.toString(8)}${(mode & 0o077) === 0 ? '' : ' (others can read it: chmod 700)'}`,
    });
  } else {
    checks.push({
      name: 'state directory',
      ok: true,
      warning: true,
      detail: `${state} does not exist yet; the gateway creates it`,
    });
  }

  let config: Awaited<ReturnType<typeof import('../config/load.ts')['loadConfig']>>['config'] | undefined;
  try {
    const { loadConfig } = await import('../config/load.ts');
    const loaded = loadConfig({
      stateDirectory: state,
      environment: io.environment,
      ...(typeof values.config === 'string' ? { path: values.config } : {}),
    });
    config = loaded.config;
    checks.push({
      name: 'config',
      ok: true,
      detail: `${loaded.path ?? 'no file (defaults)'} is valid${loaded.warnings.length > 0 ? `, ${loaded.warnings.length} warning(s)` : ''}`,
    });
  } catch (error) {
    checks.push({ name: 'config', ok: false, detail: (error as Error).message });
  }

  const token = config?.gateway.auth.token ?? readTokenForClient(state, io.environment);
  if (config?.gateway.auth.mode === 'none') {
    checks.push({
      name: 'token',
      ok: config.gateway.bind === 'loopback',
      warning: true,
      detail: 'auth is off (gateway.auth.mode "none")',
    });
  } else if (token === undefined) {
    checks.push({
      name: 'token',
      ok: true,
      warning: true,
      detail: 'no token yet; the gateway generates one on first start',
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
    });
  }

  if (config !== undefined) {
    const { createModelCatalog } = await import('../runtime/models.ts');
    const catalog = createModelCatalog(config, io.environment);
    const reference = config.agents.defaults.model?.primary ?? 'anthropic/claude-sonnet-4-6';
    try {
      const target = catalog.resolve(reference);
      const hasCredential =
        target.apiKey !== undefined || target.authToken !== undefined || config.auth !== undefined;
      checks.push({
        name: 'model credentials',
        ok: hasCredential,
        detail: hasCredential
          ? `${reference} has a credential`
          : `${reference} has no API key: set ANTHROPIC_API_KEY or models.providers.${target.provider}.apiKey`,
      });
      const base = target.baseUrl ?? 'https://api.anthropic.com';
      const reachable = await fetch(base, { method: 'HEAD', signal: AbortSignal.timeout(3000) }).then(
        () => true,
        () => false,
      );
      checks.push({
        name: 'model endpoint',
        ok: reachable,
        warning: true,
        detail: `${base} ${reachable ? 'answers' : 'is not reachable from here'}`,
      });
    } catch (error) {
      checks.push({ name: 'model credentials', ok: false, detail: (error as Error).message });
    }
    const sharedDms = sharedDmWarning(config.session.dmScope, config.channels);
    if (sharedDms !== undefined)
      checks.push({ name: 'dm sessions', ok: false, warning: true, detail: sharedDms });
    for (const [channel, section] of Object.entries(config.channels)) {
      const text = JSON.stringify(section ?? {});
      const hasSecret =
        /"(botToken|token|appToken|accessToken|signingSecret)"\s*:\s*"[^"]+"/.test(text) ||
        /"transport"\s*:\s*"baileys"/.test(text);
      checks.push({
        name: `channel ${channel}`,
        ok: hasSecret,
        detail: hasSecret ? 'credentials present' : `channels.${channel} has no token or credential`,
      });
    }
  }

  try {
    await helpers.withClient(async (client) => {
      const health = await client.request('health', {}, { timeoutMs: 10_000 });
      checks.push({
        name: 'gateway',
        ok: health.ok === true,
        warning: true,
        detail: 'running and answering',
      });
    });
  } catch (error) {
    checks.push({
      name: 'gateway',
      ok: false,
      warning: true,
      detail: `not reachable: ${(error as Error).message}`,
    });
  }
  checks.push({
    name: 'database',
    ok: true,
    warning: true,
    detail: existsSync(join(state, 'switchboard.db')) ? join(state, 'switchboard.db') : 'not created yet',
  });

  const failed = checks.filter((check) => !check.ok && check.warning !== true);
  helpers.print({ ok: failed.length === 0, checks }, () =>
    checks
      .map(
        (check) => `${check.ok ? 'ok  ' : check.warning ? 'warn' : 'FAIL'}  ${check.name}: ${check.detail}`,
      )
      .join('\n'),
  );
  return failed.length === 0 ? 0 : 1;
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
