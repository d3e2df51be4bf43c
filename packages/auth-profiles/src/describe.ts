/** Words for people: durations, failure reasons, the "everything failed" message. */
import type { ModelErrorClass } from '@switchboard/core-loop';
import { formatModel } from './model-ref.ts';
import type { CandidateProfileReport, FailoverCandidateReport, ProfileFailureReason } from './types.ts';

/** `8 s`, `2 min 5 s`, `4 h 59 min`, rounded up (a wait is never shorter than said). */
function formatDuration(milliseconds: number): string {
  const ms = Math.max(0, milliseconds);
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${Math.max(seconds, ms > 0 ? 1 : 0)} s`;
  if (seconds < 3600) {
    const minutes = Math.floor(seconds / 60);
    const rest = seconds % 60;
    return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
  }
  const minutesTotal = Math.ceil(seconds / 60);
  const hours = Math.floor(minutesTotal / 60);
  const minutes = minutesTotal % 60;
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
}

const phrases: Readonly<Record<ModelErrorClass | ProfileFailureReason, string>> = {
  auth: 'key rejected',
  auth_permanent: 'key revoked or deactivated',
  no_credentials: 'no API key configured',
  billing: 'out of credits',
  rate_limit: 'rate limited',
  overloaded: 'overloaded',
  timeout: 'timed out',
  context_overflow: 'conversation too long',
  format: 'request rejected',
  model_not_found: 'model not available',
  aborted: 'stopped',
  unknown: 'failed',
};

/** A short phrase for a failure class or recorded reason (`rate limited`, `key rejected (check it)`). */
function describeReason(reason: ModelErrorClass | ProfileFailureReason): string {
  return phrases[reason];
}

function profileLabel(profile: CandidateProfileReport): string {
  return profile.profileId ?? 'provider key';
}

function describeCandidate(report: FailoverCandidateReport, now: number): string {
  const name = formatModel(report);
  const blocked = (profile: CandidateProfileReport) =>
    `${profileLabel(profile)} ${describeReason(profile.reason ?? 'unknown')}${
      profile.until === undefined ? '' : ` for ${formatDuration(profile.until - now)}`
    }`;
  if (!report.tried) {
    return report.profiles.length === 0
      ? `${name}: not tried`
      : `${name}: not tried, no key is usable (${report.profiles.map(blocked).join('; ')})`;
  }
  const groups = new Map<string, string[]>();
  const skipped: string[] = [];
  for (const profile of report.profiles) {
    if (profile.result === 'unavailable') {
      skipped.push(blocked(profile));
      continue;
    }
    const phrase = describeReason(profile.result);
    const list = groups.get(phrase) ?? [];
    if (profile.profileId !== undefined) list.push(profile.profileId);
    groups.set(phrase, list);
  }
  const parts = [...groups].map(([phrase, labels]) =>
    labels.length === 0 ? phrase : `${phrase} on ${labels.join(', ')}`,
  );
  if (skipped.length > 0) parts.push(`skipped ${skipped.join('; ')}`);
  return `${name}: ${parts.join('; ')}`;
}

/**
 * The message of `AUTH_PROFILES_EXHAUSTED`, fit to show to a user:
 *
 * ```
 * All models failed (2 tried):
 * - anthropic/claude-sonnet-4-6: rate limited on anthropic:a, anthropic:b
 * - anthropic/claude-haiku-4-5: out of credits on anthropic:a; skipped anthropic:b key rejected for 5 min
 * Soonest usable again: anthropic/claude-sonnet-4-6 in 10 s.
 * Keys that need attention: anthropic:a (out of credits), anthropic:b (key rejected).
 * ```
 */
export function describeExhaustion(
  reports: readonly FailoverCandidateReport[],
  now: number,
  options: { readonly attemptLimit?: number | undefined } = {},
): string {
  const tried = reports.filter((report) => report.tried).length;
  const head =
    options.attemptLimit !== undefined
      ? `Stopped after ${options.attemptLimit} attempts without an answer:`
      : tried === 0
        ? 'No model is usable right now:'
        : `All models failed (${tried} tried):`;
  const lines = [head, ...reports.map((report) => `- ${describeCandidate(report, now)}`)];
  const soonest = soonestUsable(reports, now);
  const failures = reports.flatMap((report) =>
    report.profiles.filter((profile) => profile.result !== 'unavailable'),
  );
  const unconfigured = [
    ...new Set(
      reports
        .filter((report) => report.profiles.some((profile) => profile.result === 'no_credentials'))
        .map((report) => report.provider),
    ),
  ];
  if (failures.length > 0 && failures.every((profile) => profile.result === 'no_credentials')) {
    // Nothing was sent: nothing cools down, and trying again fails the same way.
    lines.push(
      `No API key is configured for ${unconfigured.join(', ')}; trying again will not help until one is.`,
    );
  } else {
    if (soonest === undefined) lines.push('Nothing is cooling down; trying again may work.');
    else
      lines.push(
        `Soonest usable again: ${formatModel(soonest.report)} in ${formatDuration(soonest.at - now)}.`,
      );
    if (unconfigured.length > 0) lines.push(`No API key is configured for ${unconfigured.join(', ')}.`);
  }
  const attention = new Map<string, string>();
  for (const report of reports) {
    for (const profile of report.profiles) {
      const reason = profile.reason;
      if (profile.profileId === undefined || attention.has(profile.profileId)) continue;
      if (reason === 'auth' || reason === 'auth_permanent' || reason === 'billing') {
        attention.set(profile.profileId, describeReason(reason));
      }
    }
  }
  if (attention.size > 0) {
    lines.push(
      `Keys that need attention: ${[...attention].map(([id, why]) => `${id} (${why})`).join(', ')}.`,
    );
  }
  return lines.join('\n');
}

/** The candidate usable again first, when every one of them is blocked for a while; else `undefined`. */
export function soonestUsable(
  reports: readonly FailoverCandidateReport[],
  now: number,
): { readonly report: FailoverCandidateReport; readonly at: number } | undefined {
  let best: { report: FailoverCandidateReport; at: number } | undefined;
  for (const report of reports) {
    if (report.usableAt === undefined || report.usableAt <= now) return undefined;
    if (best === undefined || report.usableAt < best.at) best = { report, at: report.usableAt };
  }
  return best;
}
