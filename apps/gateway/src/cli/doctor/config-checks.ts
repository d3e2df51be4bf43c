// The doctor's checks read from the config file and this shell's environment, for when no
// gateway answers (model credentials, endpoints probed from here, channel credentials), and
// the shared-DM warning, which only the config can tell.
import type { GatewayConfig } from '../../config/schema.ts';
import type { Check } from './check.ts';

/** The model and channel checks from the config file and this shell's environment (no gateway answered). */
export async function configChecks(config: GatewayConfig, environment: NodeJS.ProcessEnv): Promise<Check[]> {
  const source = 'config';
  const checks: Check[] = [];
  const { createModelCatalog } = await import('../../runtime/models.ts');
  const { checkModelCredentials, modelReferencesInUse, probeModelEndpoint } = await import(
    '../../runtime/model-credentials.ts'
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
