/**
 * `resolveAgentRoute`: which agent handles an inbound message and which session key the
 * conversation uses. The tiers are tried in order and the
 * first binding (in config order) of the first tier that matches wins; every field a
 * binding sets must match (AND).
 */
import type { RoutingConfig } from './config.ts';
import { normalizePeerKind, normalizeRouteId } from './normalize.ts';
import {
  type RouteCacheInputs,
  routeCacheAccepts,
  routeCacheHash,
  routeCachePeerKey,
} from './route-cache.ts';
import {
  type AccountIndex,
  type IndexedBinding,
  PEER_CHANNEL,
  PEER_DIRECT,
  PEER_GROUP,
  PEER_KINDLESS,
  PEER_NONE,
  PEER_OTHER,
  PreparedRouting,
  type ResolvedAgentRoute,
  type RouteIndexStats,
  type RouteMatchedBy,
  type RouteTarget,
} from './route-index.ts';
import { lookupLinkedPeerId, type RoutePeer } from './session-key.ts';

/** What a channel knows about an inbound message. */
export interface ResolveAgentRouteInput {
  /** The config (or any object with its `agents`, `bindings` and `session` keys). */
  readonly config: RoutingConfig;
  readonly channel: string;
  readonly accountId?: string | null | undefined;
  /** The conversation: the sender for a DM, the room for a group or channel. */
  readonly peer?: RoutePeer | null | undefined;
  /** The parent conversation of a thread; only used to pick the agent, never the key. */
  readonly parentPeer?: RoutePeer | null | undefined;
  readonly guildId?: string | number | bigint | null | undefined;
  readonly teamId?: string | number | bigint | null | undefined;
  /** The sender's Discord role ids. */
  readonly memberRoleIds?: readonly string[] | null | undefined;
}

export interface RouteResolverOptions {
  /** How many (channel, account) indexes to keep per config; least recently used go first. Default 2000. */
  readonly indexCapacity?: number | undefined;
  /**
   * How many resolved routes to keep per config (two generations of half as many; routes
   * unused for a whole generation are dropped). 0 disables the cache. Default 4000.
   */
  readonly routeCacheCapacity?: number | undefined;
}

/** A resolver with its own caches. `resolveAgentRoute` uses a shared default one. */
export interface RouteResolver {
  resolveAgentRoute(input: ResolveAgentRouteInput): ResolvedAgentRoute;
  /** Normalizes and buckets a config's bindings now rather than on the first message. */
  prepare(config: RoutingConfig): void;
  /** Cache counters for a config this resolver has prepared, or null. */
  stats(config: RoutingConfig): RouteIndexStats | null;
}

const EMPTY_ROLES: readonly string[] = [];

function holdsAnyRole(required: readonly unknown[], held: readonly string[]): boolean {
  for (let i = 0; i < required.length; i += 1) {
    const role = required[i];
    for (let j = 0; j < held.length; j += 1) if (held[j] === role) return true;
  }
  return false;
}

function firstMatch(
  candidates: readonly IndexedBinding[] | undefined,
  guildId: string,
  teamId: string,
  roles: readonly string[],
): IndexedBinding | null {
  if (candidates === undefined) return null;
  for (let i = 0; i < candidates.length; i += 1) {
    const candidate = candidates[i] as IndexedBinding;
    if (candidate.guildId !== null && candidate.guildId !== guildId) continue;
    if (candidate.teamId !== null && candidate.teamId !== teamId) continue;
    if (candidate.roles !== null && !holdsAnyRole(candidate.roles, roles)) continue;
    return candidate;
  }
  return null;
}

function peerClassOf(kind: unknown): number {
  if (kind === 'direct') return PEER_DIRECT;
  if (kind === 'group') return PEER_GROUP;
  if (kind === 'channel') return PEER_CHANNEL;
  if (kind === null || kind === undefined) return PEER_KINDLESS;
  const normalized = normalizePeerKind(kind);
  if (normalized === 'direct') return PEER_DIRECT;
  if (normalized === 'group') return PEER_GROUP;
  if (normalized === 'channel') return PEER_CHANNEL;
  return PEER_OTHER;
}

function peerCandidates(
  index: AccountIndex,
  peerClass: number,
  peerId: string,
): IndexedBinding[] | undefined {
  if (peerClass === PEER_DIRECT) return index.directPeers?.get(peerId);
  if (peerClass === PEER_GROUP || peerClass === PEER_CHANNEL) return index.groupPeers?.get(peerId);
  return undefined;
}

function copyRoute(route: ResolvedAgentRoute): ResolvedAgentRoute {
  return {
    agentId: route.agentId,
    channel: route.channel,
    accountId: route.accountId,
    sessionKey: route.sessionKey,
    mainSessionKey: route.mainSessionKey,
    lastRoutePolicy: route.lastRoutePolicy,
    matchedBy: route.matchedBy,
  };
}

function buildRoute(
  prepared: PreparedRouting,
  index: AccountIndex,
  target: RouteTarget,
  matchedBy: RouteMatchedBy,
  peerClass: number,
  peerId: string,
  peerKindText: string,
): ResolvedAgentRoute {
  let sessionKey: string;
  const id = peerId === '' ? 'unknown' : peerId;
  if (peerClass === PEER_GROUP) {
    sessionKey = target.groupPrefix + (index.preserveGroupCase ? id : id.toLowerCase());
  } else if (peerClass === PEER_CHANNEL) {
    sessionKey = target.channelPrefix + (index.preserveChannelCase ? id : id.toLowerCase());
  } else if (peerClass === PEER_OTHER) {
    sessionKey = `${target.channelHead}${peerKindText}:${id.toLowerCase()}`;
  } else if (peerClass === PEER_NONE || target.directPrefix === null) {
    sessionKey = target.mainSessionKey;
  } else {
    let lowered = id.toLowerCase();
    const links = prepared.identityLinks;
    if (links !== null) {
      const linked = lookupLinkedPeerId(links, index.channelLinks, lowered);
      if (linked !== null) lowered = linked.toLowerCase();
    }
    sessionKey = target.directPrefix + lowered;
  }
  const mainSessionKey = target.mainSessionKey;
  return {
    agentId: target.agentId,
    channel: index.channel,
    accountId: index.accountId,
    sessionKey,
    mainSessionKey,
    lastRoutePolicy: sessionKey === mainSessionKey ? 'main' : 'session',
    matchedBy,
  };
}

/**
 * Creates a resolver with its own caches: per config (held weakly, rebuilt when the
 * config object or its `bindings`, `agents` or `session` object is replaced), a bounded
 * LRU of (channel, account) indexes and a bounded cache of resolved routes.
 */
export function createRouteResolver(options: RouteResolverOptions = {}): RouteResolver {
  const indexCapacity = options.indexCapacity ?? 2000;
  const routeCapacity = options.routeCacheCapacity ?? 4000;
  if (!Number.isInteger(indexCapacity) || indexCapacity < 1) {
    throw new RangeError(`indexCapacity must be a positive integer, got ${indexCapacity}`);
  }
  if (!Number.isInteger(routeCapacity) || routeCapacity < 0 || routeCapacity === 1) {
    throw new RangeError(
      `routeCacheCapacity must be 0 (no cache) or an integer of at least 2, got ${routeCapacity}`,
    );
  }
  const preparedByConfig = new WeakMap<RoutingConfig, PreparedRouting>();
  const scratch: { -readonly [Key in keyof RouteCacheInputs]: RouteCacheInputs[Key] } = {
    channel: '',
    accountId: undefined,
    peerKind: undefined,
    parentKind: undefined,
    parentId: undefined,
    guildId: undefined,
    teamId: undefined,
    roles: undefined,
  };
  const scansByConfig = new WeakMap<RoutingConfig, number>();
  function prepare(config: RoutingConfig): PreparedRouting {
    const known = preparedByConfig.get(config);
    if (
      known !== undefined &&
      known.bindingsRef === config.bindings &&
      known.agentsRef === config.agents &&
      known.sessionRef === config.session
    ) {
      return known;
    }
    const prepared = new PreparedRouting(config, indexCapacity, routeCapacity);
    preparedByConfig.set(config, prepared);
    scansByConfig.set(config, (scansByConfig.get(config) ?? 0) + 1);
    return prepared;
  }

  function resolveAgentRoute(input: ResolveAgentRouteInput): ResolvedAgentRoute {
    const prepared = prepare(input.config);
    const rawChannel = input.channel;
    const rawAccountId = input.accountId;
    const peer = input.peer;
    const parent = input.parentPeer;
    const rawGuildId = input.guildId;
    const rawTeamId = input.teamId;
    const rawRoles = input.memberRoleIds;

    // The route cache, keyed by the raw inputs (route-cache.ts).
    const cache = prepared.routes;
    let cacheKey: string | null = null;
    let cacheHash = 0;
    let cacheInputs: RouteCacheInputs | null = null;
    if (cache !== null && typeof rawChannel === 'string') {
      cacheKey = routeCachePeerKey(peer);
      const parentKey = routeCachePeerKey(parent);
      if (cacheKey !== null && parentKey !== null && routeCacheAccepts(rawRoles)) {
        // One scratch object per resolver (resolves never interleave): no allocation here.
        cacheInputs = scratch;
        scratch.channel = rawChannel;
        scratch.accountId = rawAccountId;
        scratch.peerKind = peer?.kind;
        scratch.parentKind = parent?.kind;
        scratch.parentId = parentKey;
        scratch.guildId = rawGuildId;
        scratch.teamId = rawTeamId;
        scratch.roles = rawRoles;
        cacheHash = routeCacheHash(cacheKey);
        const cached = cache.find(cacheKey, cacheHash, cacheInputs);
        if (cached !== undefined) {
          prepared.useIndex(cached.index);
          return copyRoute(cached.route);
        }
      }
    }

    const index = prepared.lookup(rawChannel, rawAccountId);
    let peerClass = PEER_NONE;
    let peerId = '';
    let peerKindText = '';
    if (peer !== null && peer !== undefined) {
      peerClass = peerClassOf(peer.kind);
      peerId = normalizeRouteId(peer.id);
      if (peerClass === PEER_OTHER) peerKindText = String(peer.kind).toLowerCase();
    }
    let parentClass = PEER_NONE;
    let parentId = '';
    if (parent !== null && parent !== undefined) {
      parentClass = peerClassOf(parent.kind);
      parentId = normalizeRouteId(parent.id);
    }
    const guildId = rawGuildId === undefined || rawGuildId === null ? '' : normalizeRouteId(rawGuildId);
    const teamId = rawTeamId === undefined || rawTeamId === null ? '' : normalizeRouteId(rawTeamId);
    const roles = rawRoles ?? EMPTY_ROLES;

    let matched: IndexedBinding | null = null;
    let matchedBy: RouteMatchedBy = 'default';
    if (peerClass !== PEER_NONE) {
      matched = firstMatch(peerCandidates(index, peerClass, peerId), guildId, teamId, roles);
      if (matched !== null) matchedBy = 'binding.peer';
    }
    if (matched === null && parentId !== '') {
      matched = firstMatch(peerCandidates(index, parentClass, parentId), guildId, teamId, roles);
      if (matched !== null) matchedBy = 'binding.peer.parent';
    }
    if (matched === null && peerClass !== PEER_NONE) {
      const wildcards =
        peerClass === PEER_DIRECT
          ? index.directWildcards
          : peerClass === PEER_GROUP || peerClass === PEER_CHANNEL
            ? index.groupWildcards
            : undefined;
      matched = firstMatch(wildcards, guildId, teamId, roles);
      if (matched !== null) matchedBy = 'binding.peer.wildcard';
    }
    if (matched === null && guildId !== '') {
      if (roles.length > 0) {
        matched = firstMatch(index.guildWithRoles?.get(guildId), guildId, teamId, roles);
        if (matched !== null) matchedBy = 'binding.guild+roles';
      }
      if (matched === null) {
        matched = firstMatch(index.guild?.get(guildId), guildId, teamId, roles);
        if (matched !== null) matchedBy = 'binding.guild';
      }
    }
    if (matched === null && teamId !== '') {
      matched = firstMatch(index.team?.get(teamId), guildId, teamId, roles);
      if (matched !== null) matchedBy = 'binding.team';
    }
    if (matched === null) {
      matched = firstMatch(index.account, guildId, teamId, roles);
      if (matched !== null) matchedBy = 'binding.account';
    }
    if (matched === null) {
      matched = firstMatch(index.channelWide, guildId, teamId, roles);
      if (matched !== null) matchedBy = 'binding.channel';
    }

    const target = matched === null ? index.defaultTarget : matched.target;
    const route = buildRoute(prepared, index, target, matchedBy, peerClass, peerId, peerKindText);
    if (cache !== null && cacheKey !== null && cacheInputs !== null && cache.admit(cacheKey, cacheHash)) {
      cache.add(cacheKey, cacheHash, cacheInputs, route, index);
      return copyRoute(route);
    }
    return route;
  }

  return {
    resolveAgentRoute,
    prepare(config: RoutingConfig): void {
      prepare(config);
    },
    stats(config: RoutingConfig): RouteIndexStats | null {
      const prepared = preparedByConfig.get(config);
      return prepared === undefined ? null : prepared.stats(scansByConfig.get(config) ?? 0);
    },
  };
}

const defaultResolver = createRouteResolver();

/**
 * Resolves which agent handles an inbound message and the conversation's session key.
 * Uses a shared resolver whose caches are keyed by the config object: a hot-reloaded config must be a new object (or have new `bindings`, `agents` or
 * `session` objects); mutating one in place leaves stale routes.
 */
export function resolveAgentRoute(input: ResolveAgentRouteInput): ResolvedAgentRoute {
  return defaultResolver.resolveAgentRoute(input);
}

/** Where the inbound "last route" is recorded: the main session under the `main` policy, else the conversation. */
export function resolveInboundLastRouteSessionKey(params: {
  readonly route: Pick<ResolvedAgentRoute, 'lastRoutePolicy' | 'mainSessionKey'>;
  readonly sessionKey: string;
}): string {
  return params.route.lastRoutePolicy === 'main' ? params.route.mainSessionKey : params.sessionKey;
}
