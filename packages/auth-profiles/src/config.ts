/**
 * The `auth` part of the config, in OpenClaw's shape: `auth.profiles.<id> = { provider,
 * mode, apiKey | token }`, `auth.order.<provider> = [ids]` and `auth.cooldowns`. The
 * gateway substitutes `${ENV}` before it gets here.
 */
import { z } from 'zod';
import { type AuthConfigProblem, AuthProfilesError } from './errors.ts';

/** One `auth.profiles.<id>` entry. The secret is optional: it may be stored instead. */
export interface AuthProfileConfig {
  readonly provider: string;
  readonly mode: 'api_key' | 'token';
  /** For mode `api_key`. */
  readonly apiKey?: string | undefined;
  /** For mode `token` (a static bearer token). */
  readonly token?: string | undefined;
  readonly displayName?: string | undefined;
  readonly email?: string | undefined;
}

/** `auth.cooldowns`: OpenClaw's keys plus the transient schedule and the 401 and timeout knobs. */
export interface AuthCooldownsConfig {
  /** Cooldown per consecutive transient failure (rate limit, overload, …); the last entry is the cap. Default [10, 60, 300]. */
  readonly cooldownScheduleSeconds?: readonly number[] | undefined;
  /** Billing disable base. Default 5. */
  readonly billingBackoffHours?: number | undefined;
  readonly billingBackoffHoursByProvider?: Readonly<Record<string, number>> | undefined;
  /** Billing disable cap. Default 24. */
  readonly billingMaxHours?: number | undefined;
  /** Disable base after a 401/403 (`auth`). Default 5. */
  readonly authBackoffMinutes?: number | undefined;
  /** Default 60. */
  readonly authMaxMinutes?: number | undefined;
  /** Disable base after a revoked or deactivated key (`auth_permanent`). Default 10. */
  readonly authPermanentBackoffMinutes?: number | undefined;
  /** Default 60. */
  readonly authPermanentMaxMinutes?: number | undefined;
  /** Counters restart after this long without a failure. Default 24. */
  readonly failureWindowHours?: number | undefined;
  /** Same-provider rotations on overload before model fallback. Default 1. */
  readonly overloadedProfileRotations?: number | undefined;
  /** Pause before an overload rotation. Default 0. */
  readonly overloadedBackoffMs?: number | undefined;
  /** Same-provider rotations on a rate limit before model fallback. Default 1. */
  readonly rateLimitedProfileRotations?: number | undefined;
  /** Same-provider rotations on a timeout before model fallback. Default 1. */
  readonly timeoutProfileRotations?: number | undefined;
}

/** The parsed `auth` section. */
export interface AuthConfig {
  readonly profiles?: Readonly<Record<string, AuthProfileConfig>> | undefined;
  readonly order?: Readonly<Record<string, readonly string[]>> | undefined;
  readonly cooldowns?: AuthCooldownsConfig | undefined;
}

const profileIdSchema = z.string().trim().min(1, 'expected a non-empty profile id');

/** One `auth.profiles.<id>` entry. */
export const authProfileConfigSchema: z.ZodType<AuthProfileConfig> = z
  .strictObject({
    provider: z.string().trim().min(1, 'expected a provider name such as "anthropic"'),
    mode: z.enum(['api_key', 'token']),
    apiKey: z.string().min(1, 'expected a non-empty API key').optional(),
    token: z.string().min(1, 'expected a non-empty token').optional(),
    displayName: z.string().optional(),
    email: z.string().optional(),
  })
  .superRefine((profile, context) => {
    if (profile.mode === 'api_key' && profile.token !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['token'],
        message: 'a token belongs to mode "token"; an api_key profile takes apiKey',
      });
    }
    if (profile.mode === 'token' && profile.apiKey !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['apiKey'],
        message: 'an apiKey belongs to mode "api_key"; a token profile takes token',
      });
    }
  });

const positive = (what: string): z.ZodNumber => z.number().positive(`expected ${what} > 0`);
// A refinement rather than .int(): an int failure aborts the parse, hiding later problems.
const rotations = z
  .number()
  .min(0, 'expected a number >= 0')
  .refine(Number.isInteger, 'expected a whole number');

/** `auth.cooldowns`. */
export const authCooldownsConfigSchema: z.ZodType<AuthCooldownsConfig> = z.strictObject({
  cooldownScheduleSeconds: z.array(positive('seconds')).min(1, 'expected at least one duration').optional(),
  billingBackoffHours: positive('hours').optional(),
  billingBackoffHoursByProvider: z.record(z.string(), positive('hours')).optional(),
  billingMaxHours: positive('hours').optional(),
  authBackoffMinutes: positive('minutes').optional(),
  authMaxMinutes: positive('minutes').optional(),
  authPermanentBackoffMinutes: positive('minutes').optional(),
  authPermanentMaxMinutes: positive('minutes').optional(),
  failureWindowHours: positive('hours').optional(),
  overloadedProfileRotations: rotations.optional(),
  overloadedBackoffMs: z.number().min(0, 'expected a number >= 0').optional(),
  rateLimitedProfileRotations: rotations.optional(),
  timeoutProfileRotations: rotations.optional(),
});

/** The whole `auth` section: compose it into the gateway's config schema as `auth`. */
export const authConfigSchema: z.ZodType<AuthConfig> = z
  .strictObject({
    profiles: z.record(profileIdSchema, authProfileConfigSchema).optional(),
    order: z.record(z.string().trim().min(1), z.array(profileIdSchema)).optional(),
    cooldowns: authCooldownsConfigSchema.optional(),
  })
  // Runs even when other keys have problems, so every problem is reported at once; the
  // value may then be partly malformed, hence the guards.
  .superRefine(
    (auth, context) => {
      const order: unknown = auth?.order;
      if (typeof order !== 'object' || order === null) return;
      const profiles: unknown = auth.profiles;
      for (const [provider, ids] of Object.entries(order)) {
        if (!Array.isArray(ids)) continue;
        const seen = new Set<unknown>();
        ids.forEach((id: unknown, index) => {
          if (typeof id !== 'string') return;
          if (seen.has(id)) {
            context.addIssue({
              code: 'custom',
              path: ['order', provider, index],
              message: `profile "${id}" is listed twice`,
            });
            return;
          }
          seen.add(id);
          const profile: unknown =
            typeof profiles === 'object' && profiles !== null
              ? (profiles as Record<string, unknown>)[id]
              : undefined;
          const owner = (profile as { provider?: unknown } | undefined)?.provider;
          if (typeof owner === 'string' && owner !== provider) {
            context.addIssue({
              code: 'custom',
              path: ['order', provider, index],
              message: `profile "${id}" belongs to provider "${owner}", not "${provider}"`,
            });
          }
        });
      }
    },
    { when: () => true },
  );

/**
 * Validates the `auth` section. Throws `AUTH_PROFILES_INVALID_CONFIG` listing every problem
 * with its key path (`auth.profiles.work.mode: expected one of "api_key", "token"`).
 * Unknown keys are problems too; the gateway's own loader turns them into warnings when it
 * composes `authConfigSchema` into its schema.
 */
export function parseAuthConfig(raw: unknown, path = 'auth'): AuthConfig {
  const result = authConfigSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const problems: AuthConfigProblem[] = result.error.issues.map((issue) => ({
    path: formatPath(
      path,
      issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path,
    ),
    message: describeIssue(issue),
  }));
  throw new AuthProfilesError(
    'AUTH_PROFILES_INVALID_CONFIG',
    `auth config is invalid:\n${problems.map((problem) => `  ${problem.path}: ${problem.message}`).join('\n')}`,
    { problems },
  );
}

function formatPath(root: string, path: ReadonlyArray<PropertyKey>): string {
  let text = root;
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) text += `.${segment}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value') {
    return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  }
  if (issue.code === 'unrecognized_keys')
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
  if (issue.code === 'invalid_type') {
    return issue.message.startsWith('Invalid input') ? `expected ${issue.expected}` : issue.message;
  }
  return issue.message;
}

/** The cooldown and rotation settings with every default applied (durations in ms). */
export interface CooldownSettings {
  readonly scheduleMs: readonly number[];
  readonly billingBaseMs: number;
  readonly billingBaseMsByProvider: Readonly<Record<string, number>>;
  readonly billingMaxMs: number;
  readonly authBaseMs: number;
  readonly authMaxMs: number;
  readonly authPermanentBaseMs: number;
  readonly authPermanentMaxMs: number;
  readonly failureWindowMs: number;
  readonly overloadedProfileRotations: number;
  readonly overloadedBackoffMs: number;
  readonly rateLimitedProfileRotations: number;
  readonly timeoutProfileRotations: number;
}

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/** The defaults: 10 s, 60 s, 300 s; billing 5 h → 24 h; 401 5 min → 60 min; revoked 10 min → 60 min. */
export const defaultCooldownSettings: CooldownSettings = Object.freeze({
  scheduleMs: Object.freeze([10 * second, 60 * second, 300 * second]),
  billingBaseMs: 5 * hour,
  billingBaseMsByProvider: Object.freeze({}),
  billingMaxMs: 24 * hour,
  authBaseMs: 5 * minute,
  authMaxMs: 60 * minute,
  authPermanentBaseMs: 10 * minute,
  authPermanentMaxMs: 60 * minute,
  failureWindowMs: 24 * hour,
  overloadedProfileRotations: 1,
  overloadedBackoffMs: 0,
  rateLimitedProfileRotations: 1,
  timeoutProfileRotations: 1,
});

/** Applies `auth.cooldowns` over the defaults. Disable bases are never below one minute. */
export function resolveCooldownSettings(config: AuthCooldownsConfig | undefined): CooldownSettings {
  if (config === undefined) return defaultCooldownSettings;
  const d = defaultCooldownSettings;
  const atLeastMinute = (value: number) => Math.max(minute, value);
  const billingBaseMsByProvider: Record<string, number> = {};
  for (const [provider, hours] of Object.entries(config.billingBackoffHoursByProvider ?? {})) {
    billingBaseMsByProvider[provider] = atLeastMinute(hours * hour);
  }
  return {
    scheduleMs: config.cooldownScheduleSeconds?.map((seconds) => seconds * second) ?? d.scheduleMs,
    billingBaseMs:
      config.billingBackoffHours === undefined
        ? d.billingBaseMs
        : atLeastMinute(config.billingBackoffHours * hour),
    billingBaseMsByProvider,
    billingMaxMs: config.billingMaxHours === undefined ? d.billingMaxMs : config.billingMaxHours * hour,
    authBaseMs:
      config.authBackoffMinutes === undefined
        ? d.authBaseMs
        : atLeastMinute(config.authBackoffMinutes * minute),
    authMaxMs: config.authMaxMinutes === undefined ? d.authMaxMs : config.authMaxMinutes * minute,
    authPermanentBaseMs:
      config.authPermanentBackoffMinutes === undefined
        ? d.authPermanentBaseMs
        : atLeastMinute(config.authPermanentBackoffMinutes * minute),
    authPermanentMaxMs:
      config.authPermanentMaxMinutes === undefined
        ? d.authPermanentMaxMs
        : config.authPermanentMaxMinutes * minute,
    failureWindowMs:
      config.failureWindowHours === undefined ? d.failureWindowMs : config.failureWindowHours * hour,
    overloadedProfileRotations: config.overloadedProfileRotations ?? d.overloadedProfileRotations,
    overloadedBackoffMs: config.overloadedBackoffMs ?? d.overloadedBackoffMs,
    rateLimitedProfileRotations: config.rateLimitedProfileRotations ?? d.rateLimitedProfileRotations,
    timeoutProfileRotations: config.timeoutProfileRotations ?? d.timeoutProfileRotations,
  };
}
