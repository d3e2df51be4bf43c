/**
 * Messaging-tool duplicate suppression. When the agent answers by calling the `message` tool
 * and then repeats the same text (or a confirmation containing it) as its reply, the repeat is
 * not delivered. Texts are recorded as pending when the tool starts and committed only when it
 * succeeds, so a failed send never suppresses the real answer.
 */

/** Where a messaging tool sent its message. All fields optional; absent means unknown. */
export interface MessagingTarget {
  /** The channel (provider), e.g. `telegram`. */
  readonly channel?: string;
  readonly accountId?: string;
  /** The peer, chat or channel id the message went to. */
  readonly to?: string;
  readonly threadId?: string;
}

/** What one messaging tool call intends to send. */
export interface MessagingSend {
  readonly text?: string;
  readonly mediaUrls?: readonly string[];
  /** Where it goes. Leave undefined when unknown: then only text duplicates are filtered. */
  readonly target?: MessagingTarget;
}

/** Why a final reply was suppressed by the tracker. */
type MessagingSuppression = 'messaging-tool-same-origin' | 'messaging-tool-text';

export interface MessagingToolTracker {
  /** Records a send as pending for `toolCallId` (the tool has started, not yet succeeded). */
  recordPending(toolCallId: string, send: MessagingSend): void;
  /** Commits (success) or discards (failure) the pending send of `toolCallId`. Returns true when committed. */
  resolve(toolCallId: string, succeeded: boolean): boolean;
  /** True when `text` contains, or is contained in, a committed sent text (both at least 10 characters normalised). */
  matchesCommittedText(text: string): boolean;
  /** Why a final reply with `text` to `origin` must be suppressed, if it must. */
  finalSuppression(text: string, origin: MessagingTarget | undefined): MessagingSuppression | undefined;
  /** True once any send (text or media) has been committed. */
  readonly deliveredSomething: boolean;
  readonly committedCount: number;
  /** Drops pending and committed sends (compaction retry); `deliveredSomething` stays true. */
  reset(): void;
}

/** Each list keeps at most this many entries (the oldest are dropped). */
export const MESSAGING_TRACKER_CAP = 200;
/** Both sides of a text comparison must be at least this long after normalisation. */
const MESSAGING_DEDUPE_MIN_CHARS = 10;

const emojiPattern =
  /\p{Extended_Pictographic}|[\u{1F3FB}-\u{1F3FF}]|[\u{1F1E6}-\u{1F1FF}]|\u{FE0E}|\u{FE0F}|\u{200D}|\u{20E3}/gu;
const whitespacePattern = /\s+/g;

/** Lowercases, strips emoji, collapses whitespace and trims. */
export function normalizeForDedupe(text: string): string {
  return text.toLowerCase().replace(emojiPattern, '').replace(whitespacePattern, ' ').trim();
}

function normalizeTargetPart(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim().toLowerCase();
  return trimmed.length === 0 ? undefined : trimmed;
}

function normalizeTo(value: string | undefined, channel: string | undefined): string | undefined {
  const normalized = normalizeTargetPart(value);
  if (normalized === undefined || channel === undefined) return normalized;
  return normalized.startsWith(`${channel}:`) ? normalized.slice(channel.length + 1) : normalized;
}

function hasTargetMetadata(target: MessagingTarget | undefined): target is MessagingTarget {
  return target !== undefined && (target.channel !== undefined || target.to !== undefined);
}

/**
 * Same origin: same channel, compatible account (equal, or unknown on either side), same
 * normalised peer and the same thread.
 */
export function isSameMessagingTarget(a: MessagingTarget, b: MessagingTarget): boolean {
  const channelA = normalizeTargetPart(a.channel);
  const channelB = normalizeTargetPart(b.channel);
  if (channelA !== channelB) return false;
  const accountA = normalizeTargetPart(a.accountId);
  const accountB = normalizeTargetPart(b.accountId);
  if (accountA !== undefined && accountB !== undefined && accountA !== accountB) return false;
  if (normalizeTo(a.to, channelA) !== normalizeTo(b.to, channelB)) return false;
  return normalizeTargetPart(a.threadId) === normalizeTargetPart(b.threadId);
}

interface CommittedSend {
  readonly normalized: string;
  readonly target: MessagingTarget | undefined;
}

function containsEitherWay(a: string, b: string): boolean {
  if (a.length < MESSAGING_DEDUPE_MIN_CHARS || b.length < MESSAGING_DEDUPE_MIN_CHARS) return false;
  return a.length >= b.length ? a.includes(b) : b.includes(a);
}

export function createMessagingToolTracker(): MessagingToolTracker {
  const pending = new Map<string, MessagingSend>();
  let committed: CommittedSend[] = [];
  let deliveredSomething = false;

  return {
    recordPending(toolCallId: string, send: MessagingSend): void {
      pending.delete(toolCallId);
      pending.set(toolCallId, send);
      if (pending.size > MESSAGING_TRACKER_CAP) {
        const oldest = pending.keys().next().value;
        if (oldest !== undefined) pending.delete(oldest);
      }
    },
    resolve(toolCallId: string, succeeded: boolean): boolean {
      const send = pending.get(toolCallId);
      if (send === undefined) return false;
      pending.delete(toolCallId);
      if (!succeeded) return false;
      const text = send.text ?? '';
      if (text.trim().length > 0 || (send.mediaUrls?.length ?? 0) > 0) deliveredSomething = true;
      committed.push({ normalized: normalizeForDedupe(text), target: send.target });
      if (committed.length > MESSAGING_TRACKER_CAP) committed = committed.slice(-MESSAGING_TRACKER_CAP);
      return true;
    },
    matchesCommittedText(text: string): boolean {
      if (committed.length === 0) return false;
      const normalized = normalizeForDedupe(text);
      return committed.some((send) => containsEitherWay(normalized, send.normalized));
    },
    finalSuppression(text: string, origin: MessagingTarget | undefined): MessagingSuppression | undefined {
      if (committed.length === 0) return undefined;
      if (
        origin !== undefined &&
        committed.some((send) => hasTargetMetadata(send.target) && isSameMessagingTarget(send.target, origin))
      ) {
        return 'messaging-tool-same-origin';
      }
      const normalized = normalizeForDedupe(text);
      const duplicate = committed.some(
        (send) => !hasTargetMetadata(send.target) && containsEitherWay(normalized, send.normalized),
      );
      return duplicate ? 'messaging-tool-text' : undefined;
    },
    get deliveredSomething(): boolean {
      return deliveredSomething;
    },
    get committedCount(): number {
      return committed.length;
    },
    reset(): void {
      pending.clear();
      committed = [];
    },
  };
}
