// The heartbeat's decisions: whether to run now, and whether a reply is worth sending.
// The gateway owns the turn itself; these are pure so every skip reason is testable.

/** OpenClaw's classic heartbeat prompt. */
export const defaultHeartbeatPrompt =
  'Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK.';

/** The token that means "nothing needs attention". */
const heartbeatOkToken = 'HEARTBEAT_OK';

/** The hours a heartbeat may run in: `start` inclusive, `end` exclusive, both "HH:MM". */
export interface ActiveHours {
  readonly start: string;
  readonly end: string;
  /** IANA time zone; default the host's. */
  readonly timezone?: string;
}

/** Why a heartbeat did not run now. */
type HeartbeatSkipReason = 'empty' | 'outside_active_hours' | 'busy' | 'no_target';

export type HeartbeatDecision =
  | { readonly run: true }
  | { readonly run: false; readonly reason: HeartbeatSkipReason; readonly detail: string };

/**
 * True when HEARTBEAT.md has nothing to act on: missing, blank, or only headings, empty list
 * items and HTML comments (the template's scaffolding), so an idle agent costs no tokens.
 */
export function isHeartbeatFileEmpty(content: string | undefined): boolean {
  if (content === undefined) return true;
  const withoutComments = content.replace(/<!--[\s\S]*?-->/g, '');
  return withoutComments
    .split('\n')
    .map((line) => line.trim())
    .every((line) => line === '' || /^#+(\s|$)/.test(line) || /^[-*+](\s*\[[ xX]?\])?\s*$/.test(line));
}

function minutesOf(text: string): number | undefined {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (match === null) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (hours > 24 || minutes > 59 || (hours === 24 && minutes !== 0)) return undefined;
  return hours * 60 + minutes;
}

/** Throws a readable Error when `start`/`end` are not "HH:MM" or the time zone is unknown. */
export function validateActiveHours(hours: ActiveHours): void {
  for (const key of ['start', 'end'] as const) {
    if (minutesOf(hours[key]) === undefined)
      throw new Error(`activeHours.${key}: "${hours[key]}" is not a time like 08:00`);
  }
  if (hours.timezone !== undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: hours.timezone });
    } catch {
      throw new Error(`activeHours.timezone: "${hours.timezone}" is not an IANA time zone`);
    }
  }
}

/** True when `nowMs` falls inside the window (a window may wrap past midnight: 22:00–06:00). */
export function isWithinActiveHours(nowMs: number, hours: ActiveHours): boolean {
  const start = minutesOf(hours.start);
  const end = minutesOf(hours.end);
  if (start === undefined || end === undefined || start === end) return true;
  const parts = new Intl.DateTimeFormat('en-US', {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: hours.timezone,
  }).formatToParts(new Date(nowMs));
  const hour = Number(parts.find((part) => part.type === 'hour')?.value ?? 0);
  const minute = Number(parts.find((part) => part.type === 'minute')?.value ?? 0);
  const current = hour * 60 + minute;
  return start < end ? current >= start && current < end : current >= start || current < end;
}

export interface HeartbeatInput {
  readonly nowMs: number;
  /** HEARTBEAT.md's content; undefined when the file is missing. */
  readonly fileContent: string | undefined;
  readonly activeHours?: ActiveHours;
  /** True while the main session has a run queued or running. */
  readonly busy: boolean;
}

/** Whether a heartbeat runs now, or why not (checked cheapest first; no model call). */
export function decideHeartbeat(input: HeartbeatInput): HeartbeatDecision {
  if (input.activeHours !== undefined && !isWithinActiveHours(input.nowMs, input.activeHours)) {
    const { start, end, timezone } = input.activeHours;
    return {
      run: false,
      reason: 'outside_active_hours',
      detail: `outside active hours ${start}–${end}${timezone === undefined ? '' : ` ${timezone}`}`,
    };
  }
  if (isHeartbeatFileEmpty(input.fileContent)) {
    return {
      run: false,
      reason: 'empty',
      detail: input.fileContent === undefined ? 'HEARTBEAT.md is missing' : 'HEARTBEAT.md has no tasks',
    };
  }
  if (input.busy) return { run: false, reason: 'busy', detail: 'the main session is busy; deferred' };
  return { run: true };
}

/**
 * What to do with a heartbeat reply: drop it when it is `HEARTBEAT_OK` or `NO_REPLY`, or
 * starts or ends with `HEARTBEAT_OK` and leaves at most `maxAckChars` (300) of other text;
 * otherwise send the text with the token removed.
 */
export function filterHeartbeatReply(
  reply: string,
  maxAckChars = 300,
): { readonly drop: true } | { readonly drop: false; readonly text: string } {
  const trimmed = reply.trim();
  if (trimmed === '' || trimmed === 'NO_REPLY') return { drop: true };
  const token = heartbeatOkToken;
  let rest = trimmed;
  let hadToken = false;
  const strip = (text: string) => text.replace(/^[\s*_`.,:;!-]+|[\s*_`.,:;!-]+$/g, '');
  if (strip(rest).startsWith(token)) {
    rest = strip(rest).slice(token.length);
    hadToken = true;
  } else if (strip(rest).endsWith(token)) {
    const stripped = strip(rest);
    rest = stripped.slice(0, stripped.length - token.length);
    hadToken = true;
  }
  if (!hadToken) return { drop: false, text: trimmed };
  rest = strip(rest);
  if (rest.length <= maxAckChars) return { drop: true };
  return { drop: false, text: rest };
}
