/**
 * Session key builders: the main key, DM keys for every
 * dmScope, group and channel keys, thread suffixes, group history keys and identity links.
 */
import {
  DEFAULT_MAIN_KEY,
  normalizeAccountId,
  normalizeAgentId,
  normalizeMainKey,
  normalizePeerKind,
  normalizeRouteId,
  normalizeToken,
  type RoutePeerKind,
} from './normalize.ts';

/** How direct messages are split into sessions. `main` (the default) shares one session. */
export type DmScope = 'main' | 'per-peer' | 'per-channel-peer' | 'per-account-channel-peer';

/** `session.identityLinks`: canonical name → the ids (`"telegram:123"` or a bare `"123"`) it stands for. */
export type IdentityLinks = Readonly<Record<string, readonly string[]>>;

/** Which session records the inbound "last route": the main session or the conversation's own. */
export type LastRoutePolicy = 'main' | 'session';

/** A conversation as channels describe it: a DM sender, a group or a channel/room. */
export interface RoutePeer {
  /** `direct` (or the legacy `dm`), `group` or `channel`; compared case-insensitively. */
  readonly kind: RoutePeerKind | 'dm';
  /** The platform id. Trimmed; case is kept for matching. Numbers become strings. */
  readonly id: string | number | bigint;
}

/**
 * Peers whose ids are opaque and case-sensitive, so their case survives in session keys:
 * Signal group ids and Matrix room ids (Matrix DMs are lowercased like every other DM).
 */
export function isCasePreservingPeer(
  channel: string | null | undefined,
  peerKind: string | null | undefined,
): boolean {
  const normalizedChannel = normalizeToken(channel);
  const kind = normalizeToken(peerKind);
  if (normalizedChannel === 'signal') return kind === 'group';
  if (normalizedChannel === 'matrix') return kind === 'channel' || kind === 'group';
  return false;
}

/** A peer id as it appears inside a session key: trimmed, lowercased unless case-preserving. */
export function normalizeSessionPeerId(params: {
  readonly channel: string | null | undefined;
  readonly peerKind: string | null | undefined;
  readonly peerId: unknown;
}): string {
  const peerId = normalizeRouteId(params.peerId);
  if (peerId === '') return '';
  return isCasePreservingPeer(params.channel, params.peerKind) ? peerId : peerId.toLowerCase();
}

/** `agent:<agentId>:<mainKey>`, both normalized. */
export function buildAgentMainSessionKey(params: {
  readonly agentId: string;
  readonly mainKey?: string | null | undefined;
}): string {
  return `agent:${normalizeAgentId(params.agentId)}:${normalizeMainKey(params.mainKey)}`;
}

/** `"main"` when the conversation's key is the main session key, otherwise `"session"`. */
export function deriveLastRoutePolicy(params: {
  readonly sessionKey: string;
  readonly mainSessionKey: string;
}): LastRoutePolicy {
  return params.sessionKey === params.mainSessionKey ? 'main' : 'session';
}

/** A canonical name and its position in object order (the lowest position wins). */
export interface IdentityLinkTarget {
  readonly rank: number;
  readonly name: string;
}

/** identityLinks compiled so that linking a DM peer costs at most two map lookups. */
export interface CompiledIdentityLinks {
  /** Every configured id (trimmed, lowercased) → the first canonical name listing it. */
  readonly byId: ReadonlyMap<string, IdentityLinkTarget>;
  /**
   * The configured ids that contain `:`, split at each `:` into a channel and the rest:
   * channel → rest → target. `<channel>:<peerId>` equals a configured id exactly when the
   * id splits into that channel and peer id, so a channel's map answers the scoped
   * candidate without building the `<channel>:<peerId>` string.
   */
  readonly byChannel: ReadonlyMap<string, ReadonlyMap<string, IdentityLinkTarget>>;
}

const compiledLinks = new WeakMap<object, CompiledIdentityLinks>();

function setFirst<Value>(map: Map<string, Value>, key: string, value: Value): void {
  if (!map.has(key)) map.set(key, value);
}

/**
 * Compiles `session.identityLinks` (canonical names scanned in object order, names
 * trimmed, ids trimmed and lowercased; empty names, non-array values and empty ids
 * ignored). Compiled once per links object; null when there are none.
 */
export function compileIdentityLinks(
  identityLinks: IdentityLinks | null | undefined,
): CompiledIdentityLinks | null {
  if (identityLinks === null || identityLinks === undefined || typeof identityLinks !== 'object') return null;
  const known = compiledLinks.get(identityLinks);
  if (known !== undefined) return known;
  const byId = new Map<string, IdentityLinkTarget>();
  const byChannel = new Map<string, Map<string, IdentityLinkTarget>>();
  let rank = 0;
  for (const [canonical, ids] of Object.entries(identityLinks)) {
    const name = canonical.trim();
    if (name === '' || !Array.isArray(ids)) continue;
    const target: IdentityLinkTarget = { rank, name };
    rank += 1;
    for (const id of ids) {
      const normalized = normalizeToken(id);
      if (normalized === '') continue;
      setFirst(byId, normalized, target);
      for (let colon = normalized.indexOf(':'); colon !== -1; colon = normalized.indexOf(':', colon + 1)) {
        const channel = normalized.slice(0, colon);
        let rest = byChannel.get(channel);
        if (rest === undefined) {
          rest = new Map();
          byChannel.set(channel, rest);
        }
        setFirst(rest, normalized.slice(colon + 1), target);
      }
    }
  }
  const compiled: CompiledIdentityLinks = { byId, byChannel };
  compiledLinks.set(identityLinks, compiled);
  return compiled;
}

/**
 * The canonical name a DM peer is linked to, or null: the first name (object order)
 * listing either the bare peer id or `<channel>:<peerId>`. `lowerPeerId` is the trimmed,
 * lowercased peer id; `channelLinks` is `byChannel.get(channel)` for the normalized
 * channel (undefined when the channel has no scoped ids or there is no channel).
 */
export function lookupLinkedPeerId(
  links: CompiledIdentityLinks,
  channelLinks: ReadonlyMap<string, IdentityLinkTarget> | undefined,
  lowerPeerId: string,
): string | null {
  if (lowerPeerId === '') return null;
  const bare = links.byId.get(lowerPeerId);
  const scoped = channelLinks === undefined ? undefined : channelLinks.get(lowerPeerId);
  if (bare === undefined) return scoped === undefined ? null : scoped.name;
  if (scoped === undefined || bare.rank <= scoped.rank) return bare.name;
  return scoped.name;
}

/**
 * The identity-link canonical name for a DM peer: candidates are the raw peer id and
 * `<channel>:<peerId>`, both lowercased; the first canonical name (object order) listing
 * either wins. Null when nothing links.
 */
export function resolveLinkedPeerId(params: {
  readonly identityLinks: IdentityLinks | null | undefined;
  readonly channel: string | null | undefined;
  readonly peerId: string;
}): string | null {
  const links = compileIdentityLinks(params.identityLinks);
  if (links === null) return null;
  const channel = normalizeToken(params.channel);
  const channelLinks = channel === '' ? undefined : links.byChannel.get(channel);
  return lookupLinkedPeerId(links, channelLinks, params.peerId.trim().toLowerCase());
}

/**
 * The session key of one conversation. DMs follow `dmScope` (identity links apply when it
 * is not `main`); groups and channels are `agent:<a>:<channel>:<kind>:<id>` whatever the
 * scope or account. A DM with no peer id falls back to the main key.
 */
export function buildAgentPeerSessionKey(params: {
  readonly agentId: string;
  readonly mainKey?: string | null | undefined;
  readonly channel: string;
  readonly accountId?: string | null | undefined;
  readonly peerKind?: string | null | undefined;
  readonly peerId?: string | null | undefined;
  readonly dmScope?: DmScope | undefined;
  readonly identityLinks?: IdentityLinks | null | undefined;
}): string {
  const agentId = normalizeAgentId(params.agentId);
  const rawKind = params.peerKind ?? 'direct';
  const kind = normalizePeerKind(rawKind) ?? rawKind.toLowerCase();
  if (kind === 'direct') {
    const dmScope = params.dmScope ?? 'main';
    let peerId = (params.peerId ?? '').trim();
    if (dmScope !== 'main' && peerId !== '') {
      const linked = resolveLinkedPeerId({
        identityLinks: params.identityLinks,
        channel: params.channel,
        peerId,
      });
      if (linked !== null) peerId = linked;
    }
    peerId = peerId.toLowerCase();
    if (peerId !== '') {
      if (dmScope === 'per-account-channel-peer') {
        const channel = normalizeToken(params.channel) || 'unknown';
        return `agent:${agentId}:${channel}:${normalizeAccountId(params.accountId)}:direct:${peerId}`;
      }
      if (dmScope === 'per-channel-peer') {
        return `agent:${agentId}:${normalizeToken(params.channel) || 'unknown'}:direct:${peerId}`;
      }
      if (dmScope === 'per-peer') return `agent:${agentId}:direct:${peerId}`;
    }
    return `agent:${agentId}:${normalizeMainKey(params.mainKey)}`;
  }
  const channel = normalizeToken(params.channel) || 'unknown';
  const peerId = normalizeSessionPeerId({ channel, peerKind: kind, peerId: params.peerId }) || 'unknown';
  return `agent:${agentId}:${channel}:${kind}:${peerId}`;
}

/**
 * The session key for a routed conversation: like `buildAgentPeerSessionKey`, from a
 * `peer` object. An empty channel becomes `unknown`; a peer with an empty id becomes the
 * shared `unknown` id; no peer at all means the main key.
 */
export function buildAgentSessionKey(params: {
  readonly agentId: string;
  readonly channel: string;
  readonly accountId?: string | null | undefined;
  readonly peer?: RoutePeer | null | undefined;
  readonly dmScope?: DmScope | undefined;
  readonly identityLinks?: IdentityLinks | null | undefined;
  readonly mainKey?: string | null | undefined;
}): string {
  const peer = params.peer ?? null;
  return buildAgentPeerSessionKey({
    agentId: params.agentId,
    mainKey: params.mainKey ?? DEFAULT_MAIN_KEY,
    channel: normalizeToken(params.channel) || 'unknown',
    accountId: params.accountId,
    peerKind: peer === null ? 'direct' : (normalizePeerKind(peer.kind) ?? String(peer.kind ?? 'direct')),
    peerId: peer === null ? null : normalizeRouteId(peer.id) || 'unknown',
    dmScope: params.dmScope,
    identityLinks: params.identityLinks,
  });
}

/**
 * The key of a group's pending-history buffer (not a session):
 * `<channel>:<accountId>:<kind>:<peerId>`. Signal groups and Matrix rooms keep their case.
 */
export function buildGroupHistoryKey(params: {
  readonly channel: string;
  readonly accountId?: string | null | undefined;
  readonly peerKind: 'group' | 'channel';
  readonly peerId: string;
}): string {
  const channel = normalizeToken(params.channel) || 'unknown';
  const peerId =
    normalizeSessionPeerId({ channel, peerKind: params.peerKind, peerId: params.peerId }) || 'unknown';
  return `${channel}:${normalizeAccountId(params.accountId)}:${params.peerKind}:${peerId}`;
}

/** The result of `resolveThreadSessionKeys`. */
export interface ThreadSessionKeys {
  readonly sessionKey: string;
  readonly parentSessionKey: string | undefined;
}

/**
 * The session key of a thread: `<baseSessionKey>:thread:<threadId>`, the thread id
 * lowercased unless the channel passes its own `normalizeThreadId` (Matrix keeps case).
 * An empty thread id leaves the base key and drops the parent; `useSuffix: false` keeps
 * the base key (Discord native threads already have their own peer) and passes
 * `parentSessionKey` through.
 */
export function resolveThreadSessionKeys(params: {
  readonly baseSessionKey: string;
  readonly threadId?: string | null | undefined;
  readonly parentSessionKey?: string | undefined;
  readonly useSuffix?: boolean | undefined;
  readonly normalizeThreadId?: ((threadId: string) => string) | undefined;
}): ThreadSessionKeys {
  const threadId = (params.threadId ?? '').trim();
  if (threadId === '') return { sessionKey: params.baseSessionKey, parentSessionKey: undefined };
  if (params.useSuffix === false) {
    return { sessionKey: params.baseSessionKey, parentSessionKey: params.parentSessionKey };
  }
  const normalized = params.normalizeThreadId?.(threadId) ?? threadId.toLowerCase();
  return {
    sessionKey: `${params.baseSessionKey}:thread:${normalized}`,
    parentSessionKey: params.parentSessionKey,
  };
}
