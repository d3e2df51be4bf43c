// Whether a discovered skill may be offered, and if not, every reason why.
import type { SkillTier } from './discovery.ts';
import type { SkillDefinition } from './skill-file.ts';

/** `skills.entries.<key>`: per-skill switches and the secrets given to that skill's commands. */
export interface SkillEntrySettings {
  readonly enabled?: boolean;
  /** Environment variables given to the skill's commands (and counted for `requires.env`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Fills the skill's `primaryEnv` variable. */
  readonly apiKey?: string;
}

/**
 * Why a skill is not in an agent's prompt. One variant per reason; `skills list` and
 * `skills.status` show them in words (`describeExclusion`).
 */
export type SkillExclusion =
  | { readonly type: 'disabled'; readonly key: string }
  | { readonly type: 'bundled_not_allowed'; readonly key: string }
  | { readonly type: 'os_mismatch'; readonly required: readonly string[]; readonly platform: string }
  | { readonly type: 'missing_bins'; readonly bins: readonly string[]; readonly where: string }
  | { readonly type: 'missing_any_bin'; readonly anyOf: readonly string[]; readonly where: string }
  | { readonly type: 'missing_env'; readonly env: readonly string[] }
  | { readonly type: 'missing_config'; readonly paths: readonly string[] }
  | { readonly type: 'filtered_by_agent'; readonly agentId: string }
  | { readonly type: 'model_invocation_disabled' }
  | { readonly type: 'shadowed'; readonly tier: SkillTier; readonly location: string }
  | {
      readonly type: 'over_budget';
      readonly limit: 'maxSkillsInPrompt' | 'maxSkillsPromptChars';
      readonly value: number;
    };

/**
 * Answers whether an executable exists where the agent will run it. Contract: resolves to
 * true or false and never throws; the default looks on the gateway host's PATH; a sandboxed
 * session passes one that looks inside its sandbox. Results may be cached by the caller.
 */
export interface BinaryProbe {
  /** Shown in reasons: "on the host PATH", "in the sandbox". */
  readonly where: string;
  has(name: string): Promise<boolean>;
}

export interface EligibilityContext {
  /** `process.platform` of where the skill runs. */
  readonly platform: string;
  /** Environment the gateway runs with (`requires.env` is checked here and in the entry's env). */
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly entries: Readonly<Record<string, SkillEntrySettings>>;
  /** `skills.allowBundled`: when set, only these bundled skills. */
  readonly allowBundled?: readonly string[];
  /** The gateway config, for `requires.config` key paths. */
  readonly config: unknown;
  readonly binaries: BinaryProbe;
}

/** The `skills.entries` key of a skill: `metadata.openclaw.skillKey`, or its name. */
export function skillKeyOf(definition: SkillDefinition): string {
  return definition.metadata.skillKey ?? definition.name;
}

/** Every reason the skill is left out (empty: eligible). */
export async function checkEligibility(
  skill: { readonly definition: SkillDefinition; readonly tier: SkillTier },
  context: EligibilityContext,
): Promise<SkillExclusion[]> {
  const { definition } = skill;
  const key = skillKeyOf(definition);
  const entry = context.entries[key];
  const reasons: SkillExclusion[] = [];
  if (entry?.enabled === false) reasons.push({ type: 'disabled', key });
  if (
    skill.tier === 'bundled' &&
    context.allowBundled !== undefined &&
    !context.allowBundled.includes(key) &&
    !context.allowBundled.includes(definition.name)
  ) {
    reasons.push({ type: 'bundled_not_allowed', key });
  }
  const { os, requires, always, primaryEnv } = definition.metadata;
  if (os.length > 0 && !os.includes(context.platform as never)) {
    reasons.push({ type: 'os_mismatch', required: os, platform: context.platform });
  }
  if (always) return reasons;

  const missingBins: string[] = [];
  for (const bin of requires.bins) if (!(await context.binaries.has(bin))) missingBins.push(bin);
  if (missingBins.length > 0)
    reasons.push({ type: 'missing_bins', bins: missingBins, where: context.binaries.where });
  if (requires.anyBins.length > 0) {
    let any = false;
    for (const bin of requires.anyBins) {
      if (await context.binaries.has(bin)) {
        any = true;
        break;
      }
    }
    if (!any)
      reasons.push({ type: 'missing_any_bin', anyOf: requires.anyBins, where: context.binaries.where });
  }
  const missingEnv = requires.env.filter((name) => {
    if (nonEmpty(context.environment[name]) || nonEmpty(entry?.env?.[name])) return false;
    return !(name === primaryEnv && nonEmpty(entry?.apiKey));
  });
  if (missingEnv.length > 0) reasons.push({ type: 'missing_env', env: missingEnv });
  const missingConfig = requires.config.filter((path) => !truthyAt(context.config, path));
  if (missingConfig.length > 0) reasons.push({ type: 'missing_config', paths: missingConfig });
  return reasons;
}

function nonEmpty(value: string | undefined): boolean {
  return value !== undefined && value !== '';
}

function truthyAt(root: unknown, path: string): boolean {
  let value: unknown = root;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return false;
    value = (value as Record<string, unknown>)[part];
  }
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** One reason in words, for `skills list`, the log and `doctor`. */
export function describeExclusion(reason: SkillExclusion): string {
  switch (reason.type) {
    case 'disabled':
      return `disabled (skills.entries.${reason.key}.enabled is false)`;
    case 'bundled_not_allowed':
      return `bundled skill not in skills.allowBundled`;
    case 'os_mismatch':
      return `wrong OS: needs ${reason.required.join(' or ')}, this is ${reason.platform}`;
    case 'missing_bins':
      return `missing bin${reason.bins.length > 1 ? 's' : ''} ${reason.bins.join(', ')} (${reason.where})`;
    case 'missing_any_bin':
      return `missing bin: needs one of ${reason.anyOf.join(', ')} (${reason.where})`;
    case 'missing_env':
      return `missing env ${reason.env.join(', ')} (set it, or skills.entries.<name>.env / apiKey)`;
    case 'missing_config':
      return `config ${reason.paths.join(', ')} not set`;
    case 'filtered_by_agent':
      return `not in the skills list of agent "${reason.agentId}"`;
    case 'model_invocation_disabled':
      return 'disable-model-invocation: only /command, not in the prompt';
    case 'shadowed':
      return `shadowed by ${reason.location} (tier ${reason.tier})`;
    case 'over_budget':
      return `over budget (skills.limits.${reason.limit} = ${reason.value})`;
  }
}
