/**
 * Every decision not to answer a message, where the operator can see it (`status`): counts by
 * reason since start, and the most recent ones with who, where and why. Nothing the gateway
 * decides to leave unanswered is only a debug log line.
 *
 * Contract: `record` is cheap (a counter and a bounded ring) and never throws; it is called on
 * the message path. `firstForChat` is true the first time a given chat shows up for a given
 * reason, so callers can log at info once per chat instead of once per message
 * (`recordNotAnswered` does both).
 *
 * Who records what:
 * - the session queue's drops (`queue-outcomes.ts`): `queue-full`, `queue-cleared`,
 *   `session-busy`, `duplicate:duplicate`;
 * - the gateway's access policy and pairing (`inbound.ts`): `admission` with the policy's
 *   reason (`not-mentioned`, `group-not-allowlisted`, `dm-not-allowlisted`, `dm-disabled`,
 *   `pairing-required`, `pairing-limit`, `from-bot` …), and `duplicate:already-journaled`
 *   for a platform message delivered again;
 * - a channel's own admission before `receive` (`ChannelStartContext.reportIgnored`, wired
 *   in `channels.ts`): `admission` with the channel's reason (Discord `guild-not-listed` …).
 */
import type { Logger } from '@switchboard/hooks';

/** Why a message got no answer from the model. */
type NotAnsweredReason =
  /** The queue of its conversation was full and the policy dropped it (`messages.queue.drop`). */
  | 'queue-full'
  /** Cleared by `/stop`, `/new` or an interrupt before it ran. */
  | 'queue-cleared'
  /** Dropped because its session was busy and it asked not to wait (heartbeats). */
  | 'session-busy'
  /** Access policy or admission: no mention, unlisted group, allowlist, DMs off, pairing … */
  | 'admission'
  /** The same platform message arrived again. */
  | 'duplicate';

export interface NotAnsweredEntry {
  readonly at: number;
  readonly reason: NotAnsweredReason;
  /** The finer reason (`cap-new`, `not-mentioned`, `pairing-required`, `guild-not-listed` …). */
  readonly detail: string;
  readonly channel: string;
  readonly accountId: string;
  readonly chatId?: string;
  readonly senderId?: string;
  readonly messageId?: string;
  readonly sessionKey?: string;
  /** A sentence for the operator on what would admit it (from the channel), when there is one. */
  readonly note?: string;
}

export interface NotAnsweredLog {
  /** Records one decision; true when it is the first for this chat and detail since start. */
  record(entry: Omit<NotAnsweredEntry, 'at'>): boolean;
  /** Counts by `reason:detail` since start. */
  counts(): Readonly<Record<string, number>>;
  /** The newest entries first. */
  recent(limit?: number): readonly NotAnsweredEntry[];
}

export interface NotAnsweredLogOptions {
  readonly now: () => number;
  /** Entries kept for `recent`. Default 50. */
  readonly capacity?: number;
}

/** Chats remembered for `firstForChat`; past this the memory starts over (still bounded). */
const maxRememberedChats = 10_000;

export function createNotAnsweredLog(options: NotAnsweredLogOptions): NotAnsweredLog {
  const capacity = options.capacity ?? 50;
  const ring: NotAnsweredEntry[] = [];
  let next = 0;
  const counts: Record<string, number> = {};
  const seenChats = new Set<string>();
  return {
    record(entry) {
      const full: NotAnsweredEntry = { ...entry, at: options.now() };
      if (ring.length < capacity) ring.push(full);
      else ring[next] = full;
      next = (next + 1) % capacity;
      const key = `${entry.reason}:${entry.detail}`;
      counts[key] = (counts[key] ?? 0) + 1;
      const chat = `${key}|${entry.channel}|${entry.accountId}|${entry.chatId ?? ''}`;
      if (seenChats.has(chat)) return false;
      if (seenChats.size >= maxRememberedChats) seenChats.clear();
      seenChats.add(chat);
      return true;
    },
    counts: () => ({ ...counts }),
    recent(limit = capacity) {
      const ordered = ring.length < capacity ? [...ring] : [...ring.slice(next), ...ring.slice(0, next)];
      return ordered.reverse().slice(0, limit);
    },
  };
}

/**
 * Records a decision and logs it: at info the first time its chat shows up for this reason and
 * detail since start, at debug after that, so a busy ignored group writes one info line, not
 * one per message. Never throws.
 */
export function recordNotAnswered(
  log: NotAnsweredLog,
  logger: Logger,
  entry: Omit<NotAnsweredEntry, 'at'>,
): void {
  const first = log.record(entry);
  const message = `did not answer a message: ${entry.reason} (${entry.detail})`;
  const fields = {
    channel: entry.channel,
    accountId: entry.accountId,
    // Keeps the spreads (decision 0028, rule 1): log fields are merged over the logger's own.
    ...(entry.chatId === undefined ? {} : { chatId: entry.chatId }),
    ...(entry.senderId === undefined ? {} : { senderId: entry.senderId }),
    ...(entry.messageId === undefined ? {} : { messageId: entry.messageId }),
    ...(entry.note === undefined ? {} : { note: entry.note }),
  };
  if (first)
    logger.info(message, {
      ...fields,
      later: 'more from this chat for this reason are logged at debug; switchboard status lists the latest',
    });
  else logger.debug(message, fields);
}
