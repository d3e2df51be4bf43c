// Whether the models the gateway answers with have a key, and whether their endpoint answers:
// the start-up warning, the plain words of a turn that failed for want of a key, and what
// `doctor` reports (from the running gateway through `doctor.check`, or from the config).
import type { Logger } from '@switchboard/hooks';
import type { GatewayConfig } from '../config/schema.ts';
import { agentModelReference, defaultsModelReference } from './model-selection.ts';
import { type ModelCatalog, splitModelReference } from './models.ts';
import {
  defaultEndpointOf,
  implicitKeyVariables,
  needsNoKey,
  providerApiOf,
} from './provider-credentials.ts';

/** Where the Anthropic SDK sends requests when neither the config nor the environment says. */
const anthropicBaseUrl = 'https://api.anthropic.com';

/** What the credential check needs to know of an auth profile (never its secret). */
export interface CredentialProfile {
  readonly id: string;
  readonly provider: string;
  readonly hasCredential: boolean;
}

/** One model's credential, as the process that ran the check sees it. */
export interface ModelCredentialCheck {
  /** `<provider>/<model>` */
  readonly reference: string;
  readonly provider: string;
  readonly ok: boolean;
  /**
   * Where the key comes from when there is one: `auth profiles anthropic:work`,
   * `models.providers.anthropic.apiKey`, `ANTHROPIC_API_KEY in the gateway's environment`.
   */
  readonly source: string | undefined;
  /** A sentence for people: what was found, or what to set. */
  readonly detail: string;
  /** The endpoint turns go to; `undefined` when the model could not be resolved. */
  readonly baseUrl: string | undefined;
}

/**
 * The sentence for a provider without a key, said at start-up, as a failed turn's reply and
 * by `doctor`. `ANTHROPIC_API_KEY` is named only where it is read: for the implicit
 * `anthropic` provider, which exists when the config declares none.
 */
export function missingCredentialsText(provider: string, config: GatewayConfig): string {
  const declared = Object.hasOwn(config.models.providers, provider);
  const implicitVariable = implicitKeyVariables[provider];
  const how =
    implicitVariable !== undefined && !declared
      ? `set ${implicitVariable} or models.providers.${provider}.apiKey`
      : provider === 'anthropic'
        ? 'set models.providers.anthropic.apiKey (for example to "${ANTHROPIC_API_KEY}": the variable alone is read only when the config declares no anthropic provider)'
        : `set models.providers.${provider}.apiKey`;
  return `no API key is configured for ${provider}: ${how} — turns will fail until then`;
}

/** The primary models turns start with: the default one and each agent's own, without repeats. */
export function modelReferencesInUse(config: GatewayConfig): string[] {
  const references = [
    defaultsModelReference(config),
    ...(config.agents.list ?? []).map((agent) => agentModelReference(config, agent.id)),
  ];
  return [...new Set(references)];
}

export interface CheckModelCredentialsOptions {
  readonly config: GatewayConfig;
  /** The catalog of the process whose view this is (its environment fed the implicit provider). */
  readonly catalog: ModelCatalog;
  readonly reference: string;
  readonly profiles: readonly CredentialProfile[];
  /** Whose environment the implicit provider read: "the gateway's environment", "this shell's environment". */
  readonly environmentName: string;
}

/**
 * Whether a model has a credential the way a turn would find one: an auth profile of its
 * provider with a secret, else the provider's `apiKey` / `authToken` (from the config, or
 * for the implicit `anthropic` provider from `ANTHROPIC_API_KEY` / `ANTHROPIC_AUTH_TOKEN`).
 */
export function checkModelCredentials(options: CheckModelCredentialsOptions): ModelCredentialCheck {
  const { config, catalog, reference, profiles, environmentName } = options;
  let target: ReturnType<ModelCatalog['resolve']>;
  try {
    target = catalog.resolve(reference);
  } catch (error) {
    let provider = reference;
    try {
      provider = splitModelReference(reference).provider;
    } catch {
      // The reference itself is malformed; the message says so.
    }
    return {
      reference,
      provider,
      ok: false,
      source: undefined,
      detail: (error as Error).message,
      baseUrl: undefined,
    };
  }
  const provider = target.provider;
  const declared = Object.hasOwn(config.models.providers, provider);
  const withSecret = profiles.filter((profile) => profile.provider === provider && profile.hasCredential);
  const keyVariable = implicitKeyVariables[provider] ?? 'ANTHROPIC_API_KEY';
  const source =
    withSecret.length > 0
      ? `auth profile${withSecret.length === 1 ? '' : 's'} ${withSecret.map((profile) => profile.id).join(', ')}`
      : target.apiKey !== undefined && target.apiKey !== ''
        ? declared
          ? `models.providers.${provider}.apiKey`
          : `${keyVariable} in ${environmentName}`
        : target.authToken !== undefined && target.authToken !== ''
          ? declared
            ? `models.providers.${provider}.authToken`
            : `ANTHROPIC_AUTH_TOKEN in ${environmentName}`
          : needsNoKey(target.model, target.baseUrl, providerApiOf(config, provider, target.model))
            ? 'no key needed (a server on this machine)'
            : undefined;
  return {
    reference: target.reference,
    provider,
    ok: source !== undefined,
    source,
    detail:
      source === undefined
        ? missingCredentialsText(provider, config)
        : `${target.reference} has a credential: ${source}`,
    baseUrl:
      target.baseUrl ??
      target.model.baseUrl ??
      defaultEndpointOf(providerApiOf(config, provider, target.model)) ??
      anthropicBaseUrl,
  };
}

/** Logs a warning at start-up for each model turns start with whose provider has no key. */
export function warnAboutMissingCredentials(options: {
  readonly config: GatewayConfig;
  readonly catalog: ModelCatalog;
  readonly profiles: readonly CredentialProfile[];
  readonly logger: Logger;
}): void {
  const warned = new Set<string>();
  for (const reference of modelReferencesInUse(options.config)) {
    const check = checkModelCredentials({
      ...options,
      reference,
      environmentName: "the gateway's environment",
    });
    if (check.ok || warned.has(check.provider)) continue;
    warned.add(check.provider);
    options.logger.warn(check.detail, { model: check.reference });
  }
}

/** What a probe of a model endpoint found. */
export interface EndpointProbe {
  readonly baseUrl: string;
  /** Any HTTP answer counts: the probe sends no key, so a 401 or 404 is expected. */
  readonly reachable: boolean;
  readonly status: number | undefined;
  readonly error: string | undefined;
  readonly durationMs: number;
}

/**
 * Sends a HEAD request to the endpoint (no key, nothing billed) from this process: its
 * network, proxy and DNS are the ones turns use.
 */
export async function probeModelEndpoint(
  baseUrl: string,
  options: { readonly timeoutMs?: number; readonly now?: () => number } = {},
): Promise<EndpointProbe> {
  const now = options.now ?? Date.now;
  const started = now();
  try {
    const response = await fetch(baseUrl, {
      method: 'HEAD',
      signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
    });
    await response.body?.cancel();
    return {
      baseUrl,
      reachable: true,
      status: response.status,
      error: undefined,
      durationMs: now() - started,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${options.timeoutMs ?? 3000} ms`
        : typeof cause?.code === 'string'
          ? cause.code
          : typeof cause?.message === 'string'
            ? cause.message
            : (error as Error).message;
    return { baseUrl, reachable: false, status: undefined, error: reason, durationMs: now() - started };
  }
}
