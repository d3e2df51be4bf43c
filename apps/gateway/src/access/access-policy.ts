import type { ChannelAccessConfig, InboundMessage } from '@switchboard/hooks';

/**
 * What the access layer decided for one inbound message.
 * - `allow`: route and run it; `commandsAuthorized` says whether `/new`, `/reset`, ... work.
 * - `pair`: an unknown sender DMed an account in pairing mode; send a pairing code, run nothing.
 * - `drop`: ignore it; `reason` is logged and returned to the channel.
 */
export type AccessDecision =
  | { readonly kind: 'allow'; readonly commandsAuthorized: boolean }
  | { readonly kind: 'pair' }
  | { readonly kind: 'drop'; readonly reason: AccessDropReason };

type AccessDropReason =
  | 'dm-disabled'
  | 'dm-not-allowlisted'
  | 'group-disabled'
  | 'group-not-allowlisted'
  | 'group-sender-not-allowed'
  | 'not-mentioned'
  | 'from-bot';

export interface AccessInput {
  readonly message: InboundMessage;
  readonly access: ChannelAccessConfig;
  /** Sender ids approved through pairing for this channel account. */
  readonly approvedSenders: ReadonlySet<string>;
  /** The channel's `normalizeAllowEntry`, applied to config entries. */
  readonly normalize?: (entry: string) => string;
}

function listIncludes(list: readonly string[], id: string, normalize: (entry: string) => string): boolean {
  for (const entry of list) {
    if (entry === '*' || normalize(entry) === id) return true;
  }
  return false;
}

/**
 * Applies a channel account's access configuration to an inbound message. Pure: the
 * caller supplies the pairing approvals, so the decision costs no I/O on the hot path.
 */
export function decideAccess(input: AccessInput): AccessDecision {
  const { message, access, approvedSenders } = input;
  const normalize = input.normalize ?? ((entry: string) => entry.trim());
  const senderId = message.sender.id;
  if (message.sender.isBot === true) return { kind: 'drop', reason: 'from-bot' };
  const allowedSender = approvedSenders.has(senderId) || listIncludes(access.allowFrom, senderId, normalize);

  if (message.chatType === 'direct') {
    switch (access.dmPolicy) {
      case 'disabled':
        return { kind: 'drop', reason: 'dm-disabled' };
      case 'open':
        return { kind: 'allow', commandsAuthorized: allowedSender };
      case 'allowlist':
        return allowedSender
          ? { kind: 'allow', commandsAuthorized: true }
          : { kind: 'drop', reason: 'dm-not-allowlisted' };
      case 'pairing':
        return allowedSender ? { kind: 'allow', commandsAuthorized: true } : { kind: 'pair' };
    }
  }

  if (access.groupPolicy === 'disabled') return { kind: 'drop', reason: 'group-disabled' };
  // A thread that is its own conversation (Discord) inherits its parent channel's entry.
  const parentId = message.thread?.parentPeer?.id;
  const group =
    access.groups[message.peer.id] ??
    (parentId === undefined ? undefined : access.groups[parentId]) ??
    access.groups['*'];
  if (access.groupPolicy === 'allowlist' && group === undefined)
    return { kind: 'drop', reason: 'group-not-allowlisted' };
  const groupSenders = group?.allowFrom;
  const inGroupList = groupSenders !== undefined && listIncludes(groupSenders, senderId, normalize);
  if (groupSenders !== undefined && !inGroupList) return { kind: 'drop', reason: 'group-sender-not-allowed' };
  const requireMention = group?.requireMention ?? access.requireMention;
  if (requireMention && !message.wasMentioned) return { kind: 'drop', reason: 'not-mentioned' };
  return { kind: 'allow', commandsAuthorized: allowedSender || inGroupList };
}
