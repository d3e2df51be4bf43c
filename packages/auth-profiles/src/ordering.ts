/** The order in which a provider's profiles are tried for one model. */
import { blockingWindow } from './cooldown.ts';
import type { FailureWindow, ProfileMode, ProfileRuntimeState } from './types.ts';

/** What ordering needs to know about a profile. */
export interface OrderableProfile {
  readonly id: string;
  readonly provider: string;
  readonly mode: ProfileMode;
  /** Profiles without a usable secret are left out. */
  readonly hasCredential: boolean;
}

/** Inputs of `orderProfiles`. */
export interface OrderProfilesInput {
  readonly provider: string;
  readonly model: string;
  readonly now: number;
  /** Every known profile, in declaration order (config first, then stored ones). */
  readonly profiles: readonly OrderableProfile[];
  /** `auth.order[provider]`, when configured. */
  readonly explicitOrder?: readonly string[] | undefined;
  readonly states: ReadonlyMap<string, ProfileRuntimeState>;
  /** Moved to the front when usable (an auto pin). */
  readonly preferred?: string | undefined;
  /** Start after this profile, cyclically (an auto pin that must move on, e.g. after a compaction). */
  readonly advanceFrom?: string | undefined;
}

/** One profile in order, with what blocks it. */
export interface OrderedProfile {
  readonly profileId: string;
  readonly usable: boolean;
  readonly blockedBy: FailureWindow | undefined;
}

const modeRank: Readonly<Record<ProfileMode, number>> = { token: 0, api_key: 1 };

/**
 * Orders a provider's profiles for one model:
 * 1. the base list is `auth.order[provider]` when configured, else every profile of the
 *    provider in declaration order; profiles of another provider, unknown ids and profiles
 *    without a secret are dropped;
 * 2. with an explicit order, usable profiles keep it; without one, round robin: tokens
 *    before API keys, then least recently used first (never used counts as oldest);
 * 3. profiles blocked for this model (cooldown or disabled) go last, soonest usable first;
 * 4. `advanceFrom` rotates the usable ones to start after that profile; `preferred` moves a
 *    usable profile to the front.
 */
export function orderProfiles(input: OrderProfilesInput): OrderedProfile[] {
  const byId = new Map(input.profiles.map((profile) => [profile.id, profile]));
  const eligible = (profile: OrderableProfile | undefined): profile is OrderableProfile =>
    profile !== undefined && profile.provider === input.provider && profile.hasCredential;
  const explicit = input.explicitOrder !== undefined && input.explicitOrder.length > 0;
  const base = explicit
    ? (input.explicitOrder ?? []).map((id) => byId.get(id)).filter(eligible)
    : input.profiles.filter(eligible);
  const entries = base.map((profile, index) => {
    const blockedBy = blockingWindow(input.states.get(profile.id), input.model, input.now);
    return {
      profile,
      index,
      blockedBy,
      lastUsed: input.states.get(profile.id)?.lastUsed ?? Number.NEGATIVE_INFINITY,
    };
  });
  let usable = entries.filter((entry) => entry.blockedBy === undefined);
  const blocked = entries
    .filter((entry) => entry.blockedBy !== undefined)
    .sort((a, b) => (a.blockedBy?.until ?? 0) - (b.blockedBy?.until ?? 0) || a.index - b.index);
  if (!explicit) {
    usable = usable.sort(
      (a, b) =>
        modeRank[a.profile.mode] - modeRank[b.profile.mode] || a.lastUsed - b.lastUsed || a.index - b.index,
    );
  }
  if (input.advanceFrom !== undefined) {
    const at = usable.findIndex((entry) => entry.profile.id === input.advanceFrom);
    if (at !== -1) usable = [...usable.slice(at + 1), ...usable.slice(0, at + 1)];
  } else if (input.preferred !== undefined) {
    const at = usable.findIndex((entry) => entry.profile.id === input.preferred);
    if (at > 0) usable = [usable[at]!, ...usable.slice(0, at), ...usable.slice(at + 1)];
  }
  return [...usable, ...blocked].map((entry) => ({
    profileId: entry.profile.id,
    usable: entry.blockedBy === undefined,
    blockedBy: entry.blockedBy,
  }));
}
