/**
 * The resolved-route cache of one prepared config. It is keyed by
 * everything that can change an answer: channel, account, peer, parent peer, guild, team
 * and the member's roles (as a set, so their order does not matter). The key is kept as
 * the raw values the caller passed, compared field by field: a hit needs one map lookup
 * by peer id and a few comparisons, with no normalization, no index lookup and no key
 * string to build. Different spellings of the same inputs (`Discord` and `discord`) are
 * cached separately but resolve to equal routes.
 *
 * identityLinks do not bypass the cache (unlike OpenClaw): links are compiled per config
 * and the config's `session` object is part of the cache's identity, so a cached DM key
 * always reflects the links it was built with.
 */
import type { LruEntry } from './lru.ts';
import type { ResolvedAgentRoute } from './route-index.ts';

/** Routes cached per peer id and generation; more spellings or role sets of one peer replace the oldest. */
const ROUTES_PER_PEER = 8;
/** Member role lists longer than this are not cached (the set comparison is quadratic). */
const MAX_CACHED_ROLES = 32;

/** The raw inputs of one resolve, as the caller passed them. */
export interface RouteCacheInputs {
  readonly channel: string;
  readonly accountId: unknown;
  readonly peerKind: unknown;
  readonly parentKind: unknown;
  readonly parentId: unknown;
  readonly guildId: unknown;
  readonly teamId: unknown;
  readonly roles: readonly unknown[] | null | undefined;
}

/** A cached route, with the index it was resolved from. */
export interface CachedRoute {
  /** The raw peer id (`''` for no peer): the key of the list this entry sits in. */
  readonly peerKey: string;
  readonly channel: string;
  readonly accountId: unknown;
  readonly peerKind: unknown;
  readonly parentKind: unknown;
  readonly parentId: unknown;
  readonly guildId: unknown;
  readonly teamId: unknown;
  readonly roles: readonly string[];
  readonly route: ResolvedAgentRoute;
  /** The (channel, account) index the route came from; a hit counts as a use of it too. */
  readonly index: LruEntry;
}

const NO_ROLES: readonly string[] = [];

/** True when both lists hold the same set of roles. */
function sameRoleSet(cached: readonly string[], given: readonly unknown[] | null | undefined): boolean {
  const held = given ?? NO_ROLES;
  if (cached.length === 0 || held.length === 0) return cached.length === held.length;
  if (cached.length === 1 && held.length === 1) return cached[0] === held[0];
  for (let i = 0; i < held.length; i += 1) if (!cached.includes(held[i] as string)) return false;
  for (let i = 0; i < cached.length; i += 1) if (!held.includes(cached[i])) return false;
  return true;
}

/** The key a resolve is cached under, or null when its peer cannot be cached. */
export function routeCachePeerKey(peer: { readonly id?: unknown } | null | undefined): string | null {
  if (peer === null || peer === undefined) return '';
  const id = peer.id;
  return typeof id === 'string' ? id : null;
}

/** True when the remaining inputs can be cached (roles are a short list of strings). */
export function routeCacheAccepts(roles: readonly unknown[] | null | undefined): boolean {
  if (roles === null || roles === undefined) return true;
  if (!Array.isArray(roles) || roles.length > MAX_CACHED_ROLES) return false;
  for (let i = 0; i < roles.length; i += 1) if (typeof roles[i] !== 'string') return false;
  return true;
}

/**
 * Two generations of maps (the "hashlru" scheme): new routes go into the young
 * generation; when it holds half the capacity it becomes the old one and the previous old
 * generation is dropped whole. A hit in the old generation copies the route into the
 * young one, so every route used within the last generation survives. Eviction costs
 * nothing per entry.
 *
 * A route is cached on the second miss for its peer (a "doorkeeper", as in TinyLFU): a
 * small table remembers the peer keys of recent misses, and only a peer found there is
 * admitted. Conversations seen once (a flood of new senders) then cost the cache a hash
 * and a bit test, not an insert and the garbage of an entry that will never be read, and
 * they cannot push out the routes of active conversations.
 */
export class RouteCache {
  readonly capacity: number;
  readonly #generationSize: number;
  #young = new Map<string, CachedRoute | CachedRoute[]>();
  #old = new Map<string, CachedRoute | CachedRoute[]>();
  #youngCount = 0;
  #oldCount = 0;
  /**
   * Recently missed peer keys: groups of 4 slots (4-way set-associative, so a few keys
   * hashing alike do not keep pushing each other out), at least as many groups as half the
   * capacity.
   */
  readonly #doorkeeper: Array<string | undefined>;
  readonly #doorkeeperGroupMask: number;
  #doorkeeperVictim = 0;
  /**
   * One bit per peer-key hash for each generation: a key whose bit is clear in both is not
   * cached, which answers most misses without touching the maps.
   */
  #youngBits: Uint32Array;
  #oldBits: Uint32Array;
  readonly #bitMask: number;
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 2) {
      throw new RangeError(`route cache capacity must be an integer of at least 2, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#generationSize = Math.floor(capacity / 2);
    let groups = 16;
    while (groups * 2 < capacity) groups *= 2;
    this.#doorkeeper = new Array<string | undefined>(groups * 4).fill(undefined);
    this.#doorkeeperGroupMask = groups - 1;
    let bits = 1024;
    while (bits < this.#generationSize * 16) bits *= 2;
    this.#youngBits = new Uint32Array(bits / 32);
    this.#oldBits = new Uint32Array(bits / 32);
    this.#bitMask = bits - 1;
  }

  /**
   * Whether a missed route should be cached: true when its peer key is among the recently
   * missed keys of its doorkeeper group; otherwise the key replaces one of them (in turn)
   * and the route is not cached this time.
   */
  admit(peerKey: string, hash: number): boolean {
    const doorkeeper = this.#doorkeeper;
    const base = (hash & this.#doorkeeperGroupMask) * 4;
    if (
      doorkeeper[base] === peerKey ||
      doorkeeper[base + 1] === peerKey ||
      doorkeeper[base + 2] === peerKey ||
      doorkeeper[base + 3] === peerKey
    ) {
      return true;
    }
    this.#doorkeeperVictim = (this.#doorkeeperVictim + 1) & 3;
    doorkeeper[base + this.#doorkeeperVictim] = peerKey;
    return false;
  }

  /** How many routes are cached (a route copied into the young generation counts twice). */
  get size(): number {
    return this.#youngCount + this.#oldCount;
  }

  /** The cached route for these inputs (`hash` is `routeCacheHash(peerKey)`), or undefined. */
  find(peerKey: string, hash: number, inputs: RouteCacheInputs): CachedRoute | undefined {
    const bit = (hash >>> 5) & this.#bitMask;
    const word = bit >>> 5;
    const mask = 1 << (bit & 31);
    if (((this.#youngBits[word] as number) & mask) === 0 && ((this.#oldBits[word] as number) & mask) === 0) {
      this.misses += 1;
      return undefined;
    }
    const young = matchIn(this.#young.get(peerKey), inputs);
    if (young !== undefined) {
      this.hits += 1;
      return young;
    }
    const old = matchIn(this.#old.get(peerKey), inputs);
    if (old !== undefined) {
      this.hits += 1;
      this.#insert(old, hash);
      return old;
    }
    this.misses += 1;
    return undefined;
  }

  /** Caches a route (which the cache keeps: pass one no caller holds) for these inputs. */
  add(
    peerKey: string,
    hash: number,
    inputs: RouteCacheInputs,
    route: ResolvedAgentRoute,
    index: LruEntry,
  ): void {
    const roles = inputs.roles;
    this.#insert(
      {
        peerKey,
        channel: inputs.channel,
        accountId: inputs.accountId,
        peerKind: inputs.peerKind,
        parentKind: inputs.parentKind,
        parentId: inputs.parentId,
        guildId: inputs.guildId,
        teamId: inputs.teamId,
        roles:
          roles === null || roles === undefined || roles.length === 0
            ? NO_ROLES
            : (roles.slice() as string[]),
        route,
        index,
      },
      hash,
    );
  }

  #insert(entry: CachedRoute, hash: number): void {
    if (this.#youngCount >= this.#generationSize) {
      this.evictions += this.#oldCount;
      this.#old = this.#young;
      this.#oldCount = this.#youngCount;
      this.#young = new Map();
      this.#youngCount = 0;
      const dropped = this.#oldBits;
      this.#oldBits = this.#youngBits;
      dropped.fill(0);
      this.#youngBits = dropped;
    }
    const bit = (hash >>> 5) & this.#bitMask;
    this.#youngBits[bit >>> 5] = (this.#youngBits[bit >>> 5] as number) | (1 << (bit & 31));
    const young = this.#young;
    const present = young.get(entry.peerKey);
    if (present === undefined) {
      young.set(entry.peerKey, entry);
    } else if (Array.isArray(present)) {
      if (present.length >= ROUTES_PER_PEER) {
        present.shift();
        this.#youngCount -= 1;
        this.evictions += 1;
      }
      present.push(entry);
    } else {
      young.set(entry.peerKey, [present, entry]);
    }
    this.#youngCount += 1;
  }
}

/** The hash `RouteCache` methods take: FNV-1a over the length and up to 24 characters (the first and last 12). */
export function routeCacheHash(key: string): number {
  const length = key.length;
  let hash = Math.imul(2166136261 ^ length, 16777619);
  const head = Math.min(length, 12);
  for (let i = 0; i < head; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
  for (let i = length > 24 ? length - 12 : head; i < length; i += 1) {
    hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
  }
  return (hash ^ (hash >>> 15)) >>> 0;
}

function matchIn(
  found: CachedRoute | CachedRoute[] | undefined,
  inputs: RouteCacheInputs,
): CachedRoute | undefined {
  if (found === undefined) return undefined;
  if (!Array.isArray(found)) return matches(found, inputs) ? found : undefined;
  for (let i = found.length - 1; i >= 0; i -= 1) {
    const entry = found[i] as CachedRoute;
    if (matches(entry, inputs)) return entry;
  }
  return undefined;
}

function matches(entry: CachedRoute, inputs: RouteCacheInputs): boolean {
  return (
    entry.channel === inputs.channel &&
    entry.accountId === inputs.accountId &&
    entry.peerKind === inputs.peerKind &&
    entry.parentId === inputs.parentId &&
    entry.parentKind === inputs.parentKind &&
    entry.guildId === inputs.guildId &&
    entry.teamId === inputs.teamId &&
    sameRoleSet(entry.roles, inputs.roles)
  );
}
