/**
 * The prepared form of a config that the resolver reads:
 * bindings normalized once and bucketed by channel and account, then, per
 * (channel, account) pair on first use, split into the tier lists and maps with the
 * session-key prefixes of every possible answer precomputed. The per-pair indexes live in
 * a true LRU (lru.ts); resolved routes live in the route cache (route-cache.ts).
 */
import type { AgentBinding, RoutingConfig } from './config.ts';
import type { LruEntry } from './lru.ts';
import { LruPool } from './lru.ts';
import {
  DEFAULT_ACCOUNT_ID,
  DEFAULT_AGENT_ID,
  normalizeAccountId,
  normalizeAgentId,
  normalizeMainKey,
  normalizePeerKind,
  normalizeRouteId,
  normalizeToken,
} from './normalize.ts';
import { RouteCache } from './route-cache.ts';
import {
  type CompiledIdentityLinks,
  compileIdentityLinks,
  type DmScope,
  type IdentityLinkTarget,
} from './session-key.ts';

/** Which tier produced a route, or `default` when no binding matched. */
export type RouteMatchedBy =
  | 'binding.peer'
  | 'binding.peer.parent'
  | 'binding.peer.wildcard'
  | 'binding.guild+roles'
  | 'binding.guild'
  | 'binding.team'
  | 'binding.account'
  | 'binding.channel'
  | 'default';

/** Peer classes the resolver works with. Group and channel peers match each other. */
export const PEER_NONE = 0;
export const PEER_DIRECT = 1;
export const PEER_GROUP = 2;
export const PEER_CHANNEL = 3;
/** A kind string routing does not know: matches no peer binding; the key uses it as written. */
export const PEER_OTHER = 4;
/** A peer with no kind: matches no peer binding; keyed like a DM. */
export const PEER_KINDLESS = 5;

/** How many caller spellings of a (channel, account) pair are remembered per index. */
const MAX_ALIASES = 8;

const PEER_STATE_NONE = 0;
const PEER_STATE_INVALID = 1;
const PEER_STATE_VALID = 2;
const PEER_STATE_WILDCARD = 3;

/** A route binding after normalization; shared by every index of its channel. */
interface PreparedBinding {
  readonly order: number;
  /** The agent it routes to, after the roster lookup (unknown agents fall back to the default). */
  readonly agentId: string;
  readonly dmScope: DmScope;
  readonly accountPattern: string;
  readonly peerState: number;
  /** PEER_DIRECT or PEER_GROUP (group and channel share one class) for valid and wildcard peers. */
  readonly peerClass: number;
  readonly peerId: string;
  readonly guildId: string | null;
  readonly teamId: string | null;
  readonly roles: readonly unknown[] | null;
  /** The indexed form shared by every index of the channel, once built (see #buildIndex). */
  shared: IndexedBinding | null;
}

/** One agent's route targets on one channel, by DM scope (per-account ones live per index). */
interface AgentTargets {
  main: RouteTarget | null;
  perPeer: RouteTarget | null;
  perChannelPeer: RouteTarget | null;
}

interface ChannelBucket {
  readonly byAccount: Map<string, PreparedBinding[]>;
  readonly anyAccount: PreparedBinding[];
  /** Route targets of this channel by agent, then DM scope. */
  readonly targets: Map<string, AgentTargets>;
}

/** Everything needed to build the answer for one agent and DM scope on one (channel, account). */
export interface RouteTarget {
  readonly agentId: string;
  readonly mainSessionKey: string;
  /** `agent:<a>:...:direct:` for the DM scope, or null when DMs use the main key. */
  readonly directPrefix: string | null;
  /** `agent:<a>:<channel>:group:` */
  readonly groupPrefix: string;
  /** `agent:<a>:<channel>:channel:` */
  readonly channelPrefix: string;
  /** `agent:<a>:<channel>:`, for peers of a kind routing does not know. */
  readonly channelHead: string;
}

/** A binding placed in one tier of one index, with the AND constraints left to check. */
export interface IndexedBinding {
  readonly guildId: string | null;
  readonly teamId: string | null;
  readonly roles: readonly unknown[] | null;
  readonly target: RouteTarget;
}

/** The answer of `resolveAgentRoute`: a new object on every call, the caller's to keep. */
export interface ResolvedAgentRoute {
  /** The agent that handles the conversation (normalized). */
  readonly agentId: string;
  /** The inbound channel, trimmed and lowercased. */
  readonly channel: string;
  /** The inbound account, normalized (`default` when missing). */
  readonly accountId: string;
  /** The conversation's session key. */
  readonly sessionKey: string;
  /** `agent:<agentId>:<mainKey>`. */
  readonly mainSessionKey: string;
  /** `main` when `sessionKey` is the main session key, otherwise `session`. */
  readonly lastRoutePolicy: 'main' | 'session';
  readonly matchedBy: RouteMatchedBy;
}

/** The tier lists and maps of one (channel, account) pair. */
export interface AccountIndex extends LruEntry {
  readonly channel: string;
  readonly accountId: string;
  /** Tier 1/2 candidates of direct peers by peer id; null when there are none. */
  readonly directPeers: ReadonlyMap<string, IndexedBinding[]> | null;
  /** Tier 1/2 candidates of group and channel peers (they match each other) by peer id. */
  readonly groupPeers: ReadonlyMap<string, IndexedBinding[]> | null;
  readonly directWildcards: readonly IndexedBinding[];
  readonly groupWildcards: readonly IndexedBinding[];
  readonly guildWithRoles: ReadonlyMap<string, IndexedBinding[]> | null;
  readonly guild: ReadonlyMap<string, IndexedBinding[]> | null;
  readonly team: ReadonlyMap<string, IndexedBinding[]> | null;
  readonly account: readonly IndexedBinding[];
  readonly channelWide: readonly IndexedBinding[];
  readonly defaultTarget: RouteTarget;
  /** Group ids keep their case in keys (Signal). */
  readonly preserveGroupCase: boolean;
  /** Channel/room ids keep their case in keys (Matrix). */
  readonly preserveChannelCase: boolean;
  /** The channel as it appears in keys (`unknown` when empty). */
  readonly keyChannel: string;
  /** The channel-scoped identity links of this channel (`<channel>:<id>` entries). */
  readonly channelLinks: ReadonlyMap<string, IdentityLinkTarget> | undefined;
  /** The raw (channel, account) spellings that lead here, as flat pairs. */
  readonly aliases: string[];
}

/** Counters for tests and diagnostics. */
export interface RouteIndexStats {
  /** How many times the bindings were normalized and bucketed by channel (once per config). */
  readonly bindingScans: number;
  readonly indexBuilds: number;
  readonly indexEvictions: number;
  readonly routeCacheHits: number;
  readonly routeCacheMisses: number;
  readonly routeCacheEvictions: number;
  /** Cached (channel, account) pairs, most recently used first, as `channel\taccount`. */
  readonly indexes: readonly string[];
  readonly cachedRoutes: number;
}

function listRouteBindings(config: RoutingConfig): AgentBinding[] {
  const bindings: unknown = config.bindings;
  if (!Array.isArray(bindings)) return [];
  return bindings.filter(
    (binding): binding is AgentBinding =>
      typeof binding === 'object' &&
      binding !== null &&
      ((binding as { type?: unknown }).type === undefined ||
        (binding as { type?: unknown }).type === 'route'),
  );
}

interface AgentEntryLike {
  readonly id?: unknown;
  readonly default?: unknown;
}

function listAgentEntries(config: RoutingConfig): AgentEntryLike[] {
  const list: unknown = config.agents?.list;
  if (!Array.isArray(list)) return [];
  return list.filter((entry): entry is AgentEntryLike => typeof entry === 'object' && entry !== null);
}

function trimmedString(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** The default agent: the first `default: true` entry, else the first entry, else `main`. */
export function resolveDefaultAgentId(config: RoutingConfig): string {
  const agents = listAgentEntries(config);
  if (agents.length === 0) return DEFAULT_AGENT_ID;
  const chosen = agents.find((agent) => Boolean(agent.default)) ?? agents[0];
  return normalizeAgentId(trimmedString(chosen?.id) || DEFAULT_AGENT_ID);
}

function isDmScope(value: unknown): value is DmScope {
  return (
    value === 'main' ||
    value === 'per-peer' ||
    value === 'per-channel-peer' ||
    value === 'per-account-channel-peer'
  );
}

/** One config, prepared. Rebuilt when the config, its bindings, agents or session object changes. */
export class PreparedRouting {
  readonly bindingsRef: unknown;
  readonly agentsRef: unknown;
  readonly sessionRef: unknown;
  readonly identityLinks: CompiledIdentityLinks | null;
  readonly #channels: Map<string, ChannelBucket>;
  readonly #mainKey: string;
  readonly #defaultAgentId: string;
  readonly #dmScope: DmScope;
  readonly #indexes = new Map<string, Map<string, AccountIndex>>();
  /** Indexes by the channel and account spellings callers used: raw channel → raw account → index. */
  readonly #aliases = new Map<string, Map<string, AccountIndex>>();
  readonly #indexOrder: LruPool<AccountIndex>;
  readonly #dropIndex = (index: AccountIndex): void => this.#dropEvictedIndex(index);
  /** The resolved-route cache; null when caching is off. */
  readonly routes: RouteCache | null;
  #indexBuilds = 0;
  #indexEvictions = 0;

  constructor(config: RoutingConfig, indexCapacity: number, routeCapacity: number) {
    this.bindingsRef = config.bindings;
    this.agentsRef = config.agents;
    this.sessionRef = config.session;
    this.#indexOrder = new LruPool(indexCapacity);
    this.routes = routeCapacity > 0 ? new RouteCache(routeCapacity) : null;
    const session = config.session;
    this.#mainKey = normalizeMainKey(typeof session?.mainKey === 'string' ? session.mainKey : undefined);
    this.#dmScope = isDmScope(session?.dmScope) ? session.dmScope : 'main';
    this.identityLinks = compileIdentityLinks(session?.identityLinks);
    this.#defaultAgentId = resolveDefaultAgentId(config);

    const roster = new Set<string>();
    for (const agent of listAgentEntries(config)) {
      const id = trimmedString(agent.id);
      if (id !== '') roster.add(normalizeAgentId(id));
    }
    this.#channels = new Map();
    /** Binding agentId as written → the agent it resolves to (most configs repeat a few agents). */
    const agentIds = new Map<unknown, string>();
    let order = 0;
    for (const binding of listRouteBindings(config)) {
      const rawMatch: unknown = binding.match;
      if (typeof rawMatch !== 'object' || rawMatch === null) continue;
      const match = rawMatch as Partial<Record<string, unknown>>;
      const channel = normalizeToken(match.channel);
      if (channel === '') continue;
      const prepared = this.#prepareBinding(binding, match, order, roster, agentIds);
      order += 1;
      let bucket = this.#channels.get(channel);
      if (bucket === undefined) {
        bucket = { byAccount: new Map(), anyAccount: [], targets: new Map() };
        this.#channels.set(channel, bucket);
      }
      if (prepared.accountPattern === '*') {
        bucket.anyAccount.push(prepared);
        continue;
      }
      const account =
        prepared.accountPattern === '' ? DEFAULT_ACCOUNT_ID : normalizeAccountId(prepared.accountPattern);
      const list = bucket.byAccount.get(account);
      if (list === undefined) bucket.byAccount.set(account, [prepared]);
      else list.push(prepared);
    }
  }

  /**
   * The index for a (channel, accountId) pair as the caller spelled them. Spellings seen
   * before (up to 8 per index) are found with two map lookups and no normalization;
   * others are normalized, then looked up (or built) and remembered as an alias.
   */
  lookup(rawChannel: unknown, rawAccountId: unknown): AccountIndex {
    const channelKey = typeof rawChannel === 'string' ? rawChannel : '';
    const accountKey =
      typeof rawAccountId === 'string'
        ? rawAccountId
        : rawAccountId === null || rawAccountId === undefined
          ? ''
          : String(rawAccountId);
    let byAccount = this.#aliases.get(channelKey);
    if (byAccount !== undefined) {
      const found = byAccount.get(accountKey);
      if (found !== undefined) {
        this.#indexOrder.use(found);
        return found;
      }
    }
    const index = this.index(normalizeToken(channelKey), normalizeAccountId(accountKey));
    if (index.aliases.length < MAX_ALIASES * 2) {
      if (byAccount === undefined) {
        byAccount = new Map();
        this.#aliases.set(channelKey, byAccount);
      }
      byAccount.set(accountKey, index);
      index.aliases.push(channelKey, accountKey);
    }
    return index;
  }

  /** Counts a route-cache hit as a use of the index the route came from. */
  useIndex(index: LruEntry): void {
    if (index.slot !== -1) this.#indexOrder.use(index as AccountIndex);
  }

  /** The index of one normalized (channel, account) pair, built on first use and marked recently used. */
  index(channel: string, accountId: string): AccountIndex {
    const byAccount = this.#indexes.get(channel);
    if (byAccount !== undefined) {
      const found = byAccount.get(accountId);
      if (found !== undefined) {
        this.#indexOrder.use(found);
        return found;
      }
    }
    const built = this.#buildIndex(channel, accountId);
    if (byAccount === undefined) this.#indexes.set(channel, new Map([[accountId, built]]));
    else byAccount.set(accountId, built);
    this.#indexOrder.add(built, this.#dropIndex);
    return built;
  }

  stats(bindingScans: number): RouteIndexStats {
    return {
      bindingScans,
      indexBuilds: this.#indexBuilds,
      indexEvictions: this.#indexEvictions,
      routeCacheHits: this.routes?.hits ?? 0,
      routeCacheMisses: this.routes?.misses ?? 0,
      routeCacheEvictions: this.routes?.evictions ?? 0,
      indexes: this.#indexOrder.newestFirst().map((index) => `${index.channel}\t${index.accountId}`),
      cachedRoutes: this.routes?.size ?? 0,
    };
  }

  #dropEvictedIndex(index: AccountIndex): void {
    const byAccount = this.#indexes.get(index.channel);
    byAccount?.delete(index.accountId);
    if (byAccount !== undefined && byAccount.size === 0) this.#indexes.delete(index.channel);
    for (let position = 0; position < index.aliases.length; position += 2) {
      const channelKey = index.aliases[position] as string;
      const aliases = this.#aliases.get(channelKey);
      aliases?.delete(index.aliases[position + 1] as string);
      if (aliases !== undefined && aliases.size === 0) this.#aliases.delete(channelKey);
    }
    index.aliases.length = 0;
    this.#indexEvictions += 1;
  }

  #prepareBinding(
    binding: AgentBinding,
    match: Partial<Record<string, unknown>>,
    order: number,
    roster: ReadonlySet<string>,
    agentIds: Map<unknown, string>,
  ): PreparedBinding {
    let agentId = agentIds.get(binding.agentId);
    if (agentId === undefined) {
      const rawAgent = trimmedString(binding.agentId);
      if (rawAgent === '') agentId = this.#defaultAgentId;
      else if (roster.size === 0) agentId = normalizeAgentId(rawAgent);
      else {
        const normalized = normalizeAgentId(rawAgent);
        agentId = roster.has(normalized) ? normalized : this.#defaultAgentId;
      }
      agentIds.set(binding.agentId, agentId);
    }
    const sessionOverride = (binding as { session?: { dmScope?: unknown } }).session?.dmScope;
    let peerState = PEER_STATE_NONE;
    let peerClass = PEER_NONE;
    let peerId = '';
    const peer = match.peer as { kind?: unknown; id?: unknown } | null | undefined;
    if (peer !== undefined && peer !== null) {
      const kind = normalizePeerKind(peer.kind);
      peerId = normalizeRouteId(peer.id);
      if (kind === undefined || peerId === '') peerState = PEER_STATE_INVALID;
      else {
        peerState = peerId === '*' ? PEER_STATE_WILDCARD : PEER_STATE_VALID;
        peerClass = kind === 'direct' ? PEER_DIRECT : PEER_GROUP;
      }
    }
    const roles = match.roles;
    return {
      order,
      agentId,
      dmScope: isDmScope(sessionOverride) ? sessionOverride : this.#dmScope,
      accountPattern: trimmedString(match.accountId),
      peerState,
      peerClass,
      peerId,
      guildId: normalizeRouteId(match.guildId) || null,
      teamId: normalizeRouteId(match.teamId) || null,
      roles: Array.isArray(roles) && roles.length > 0 ? roles : null,
      shared: null,
    };
  }

  #buildIndex(channel: string, accountId: string): AccountIndex {
    this.#indexBuilds += 1;
    const bucket = this.#channels.get(channel);
    const merged = mergeInConfigOrder(bucket?.byAccount.get(accountId) ?? [], bucket?.anyAccount ?? []);
    const keyChannel = channel || 'unknown';
    // Targets are shared by the channel's indexes, except per-account DM targets, which
    // are kept per index so that no cache outlives the LRU of its accounts.
    const targets = bucket?.targets ?? new Map<string, AgentTargets>();
    const perAccount = new Map<string, RouteTarget>();
    const mainKey = this.#mainKey;
    const targetFor = (agentId: string, dmScope: DmScope): RouteTarget => {
      if (dmScope === 'per-account-channel-peer') {
        let target = perAccount.get(agentId);
        if (target === undefined) {
          target = buildTarget(agentId, dmScope, keyChannel, accountId, mainKey);
          perAccount.set(agentId, target);
        }
        return target;
      }
      let forAgent = targets.get(agentId);
      if (forAgent === undefined) {
        forAgent = { main: null, perPeer: null, perChannelPeer: null };
        targets.set(agentId, forAgent);
      }
      if (dmScope === 'main') {
        forAgent.main ??= buildTarget(agentId, dmScope, keyChannel, accountId, mainKey);
        return forAgent.main;
      }
      if (dmScope === 'per-peer') {
        forAgent.perPeer ??= buildTarget(agentId, dmScope, keyChannel, accountId, mainKey);
        return forAgent.perPeer;
      }
      forAgent.perChannelPeer ??= buildTarget(agentId, dmScope, keyChannel, accountId, mainKey);
      return forAgent.perChannelPeer;
    };

    let directPeers: Map<string, IndexedBinding[]> | null = null;
    let groupPeers: Map<string, IndexedBinding[]> | null = null;
    let directWildcards: IndexedBinding[] | null = null;
    let groupWildcards: IndexedBinding[] | null = null;
    let guildWithRoles: Map<string, IndexedBinding[]> | null = null;
    let guild: Map<string, IndexedBinding[]> | null = null;
    let team: Map<string, IndexedBinding[]> | null = null;
    let account: IndexedBinding[] | null = null;
    let channelWide: IndexedBinding[] | null = null;

    for (const binding of merged) {
      // A binding whose peer is invalid never matches (§3), so it is not indexed at all.
      if (binding.peerState === PEER_STATE_INVALID) continue;
      // The indexed form depends on the account only for "*" bindings that key DMs per account.
      let indexed = binding.shared;
      if (indexed === null) {
        indexed = indexedBinding(binding, targetFor(binding.agentId, binding.dmScope));
        if (binding.accountPattern !== '*' || binding.dmScope !== 'per-account-channel-peer')
          binding.shared = indexed;
      }
      if (binding.peerState === PEER_STATE_VALID) {
        if (binding.peerClass === PEER_DIRECT) directPeers = append(directPeers, binding.peerId, indexed);
        else groupPeers = append(groupPeers, binding.peerId, indexed);
      } else if (binding.peerState === PEER_STATE_WILDCARD) {
        if (binding.peerClass === PEER_DIRECT) directWildcards = appendTo(directWildcards, indexed);
        else groupWildcards = appendTo(groupWildcards, indexed);
      } else if (binding.guildId !== null && binding.roles !== null) {
        guildWithRoles = append(guildWithRoles, binding.guildId, indexed);
      } else if (binding.guildId !== null) {
        guild = append(guild, binding.guildId, indexed);
      } else if (binding.teamId !== null) {
        team = append(team, binding.teamId, indexed);
      } else if (binding.accountPattern !== '*') {
        account = appendTo(account, indexed);
      } else {
        channelWide = appendTo(channelWide, indexed);
      }
    }

    return {
      channel,
      accountId,
      directPeers,
      groupPeers,
      directWildcards: directWildcards ?? NO_BINDINGS,
      groupWildcards: groupWildcards ?? NO_BINDINGS,
      guildWithRoles,
      guild,
      team,
      account: account ?? NO_BINDINGS,
      channelWide: channelWide ?? NO_BINDINGS,
      defaultTarget: targetFor(this.#defaultAgentId, this.#dmScope),
      preserveGroupCase: keyChannel === 'signal' || keyChannel === 'matrix',
      preserveChannelCase: keyChannel === 'matrix',
      keyChannel,
      channelLinks: this.identityLinks?.byChannel.get(keyChannel),
      aliases: [],
      lastUsed: 0,
      slot: -1,
    };
  }
}

const NO_BINDINGS: readonly IndexedBinding[] = Object.freeze([]);

function appendTo(list: IndexedBinding[] | null, binding: IndexedBinding): IndexedBinding[] {
  if (list === null) return [binding];
  list.push(binding);
  return list;
}

function indexedBinding(binding: PreparedBinding, target: RouteTarget): IndexedBinding {
  return { guildId: binding.guildId, teamId: binding.teamId, roles: binding.roles, target };
}

function buildTarget(
  agentId: string,
  dmScope: DmScope,
  keyChannel: string,
  accountId: string,
  mainKey: string,
): RouteTarget {
  const head = `agent:${agentId}:`;
  let directPrefix: string | null = null;
  if (dmScope === 'per-peer') directPrefix = `${head}direct:`;
  else if (dmScope === 'per-channel-peer') directPrefix = `${head}${keyChannel}:direct:`;
  else if (dmScope === 'per-account-channel-peer') directPrefix = `${head}${keyChannel}:${accountId}:direct:`;
  const channelHead = `${head}${keyChannel}:`;
  return {
    agentId,
    mainSessionKey: `${head}${mainKey}`,
    directPrefix,
    groupPrefix: `${channelHead}group:`,
    channelPrefix: `${channelHead}channel:`,
    channelHead,
  };
}

function append(
  map: Map<string, IndexedBinding[]> | null,
  key: string,
  binding: IndexedBinding,
): Map<string, IndexedBinding[]> {
  const target = map ?? new Map<string, IndexedBinding[]>();
  const list = target.get(key);
  if (list === undefined) target.set(key, [binding]);
  else list.push(binding);
  return target;
}

function mergeInConfigOrder(
  accountScoped: PreparedBinding[],
  anyAccount: PreparedBinding[],
): PreparedBinding[] {
  if (accountScoped.length === 0) return anyAccount;
  if (anyAccount.length === 0) return accountScoped;
  const merged: PreparedBinding[] = [];
  let left = 0;
  let right = 0;
  while (left < accountScoped.length || right < anyAccount.length) {
    const scoped = accountScoped[left];
    const any = anyAccount[right];
    if (any === undefined || (scoped !== undefined && scoped.order < any.order)) {
      merged.push(scoped as PreparedBinding);
      left += 1;
    } else {
      merged.push(any);
      right += 1;
    }
  }
  return merged;
}
