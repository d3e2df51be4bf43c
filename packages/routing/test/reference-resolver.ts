/**
 * A deliberately naive resolver written straight from OpenClaw's documented routing behaviour, sharing no code
 * with src/: every call scans every binding of the config, tier by tier, in config order.
 * Slow on purpose; the fast resolver must give the same answer for every input.
 */
import type { ResolveAgentRouteInput, ResolvedAgentRoute, RouteMatchedBy } from '@switchboard/routing';

type Kind = 'direct' | 'group' | 'channel';
type Scope = 'main' | 'per-peer' | 'per-channel-peer' | 'per-account-channel-peer';
type Tier = 'peer' | 'wildcard' | 'guild+roles' | 'guild' | 'team' | 'account' | 'channel' | 'never';

interface LoosePeer {
  kind?: unknown;
  id?: unknown;
}

interface LooseBinding {
  type?: unknown;
  agentId?: unknown;
  match?: {
    channel?: unknown;
    accountId?: unknown;
    peer?: LoosePeer | null;
    guildId?: unknown;
    teamId?: unknown;
    roles?: unknown;
  };
  session?: { dmScope?: unknown };
}

function lowerTrim(value: unknown): string {
  return typeof value === 'string' ? value.trim().toLowerCase() : '';
}

function idOf(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'bigint') return String(value).trim();
  return '';
}

function kindOf(value: unknown): Kind | undefined {
  const kind = lowerTrim(value);
  if (kind === 'direct' || kind === 'dm') return 'direct';
  if (kind === 'group' || kind === 'channel') return kind;
  return undefined;
}

function canonical(trimmed: string): string {
  if (/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(trimmed)) return trimmed.toLowerCase();
  let out = trimmed.toLowerCase().replace(/[^a-z0-9_-]+/g, '-');
  while (out.startsWith('-')) out = out.slice(1);
  while (out.endsWith('-')) out = out.slice(0, -1);
  return out.slice(0, 64);
}

function referenceAgentId(value: unknown): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  return trimmed === '' ? 'main' : canonical(trimmed) || 'main';
}

const accountIds = new Map<string, string>();

function referenceAccountId(value: unknown): string {
  if (typeof value === 'string') {
    const known = accountIds.get(value);
    if (known !== undefined) return known;
    const computed = computeAccountId(value);
    accountIds.set(value, computed);
    return computed;
  }
  return computeAccountId(value);
}

function computeAccountId(value: unknown): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (trimmed === '') return 'default';
  const result = canonical(trimmed);
  const blocked = ['__proto__', 'constructor', 'prototype'];
  if (result === '' || blocked.includes(result) || blocked.includes(trimmed.toLowerCase())) return 'default';
  return result;
}

/** What the reference needs to know about one binding, worked out once per binding object. */
interface Described {
  readonly channel: string;
  readonly accountPattern: string;
  readonly tier: Tier;
  readonly peerKind: Kind | undefined;
  readonly peerId: string;
  readonly guildId: string;
  readonly teamId: string;
  readonly roles: readonly unknown[];
  readonly agentId: unknown;
  readonly scope: Scope | undefined;
}

const described = new WeakMap<object, Described | null>();

/** Null for entries that are not route bindings or have no channel. */
function describe(binding: LooseBinding): Described | null {
  if (typeof binding !== 'object' || binding === null) return null;
  const known = described.get(binding);
  if (known !== undefined) return known;
  let result: Described | null = null;
  const match = binding.match ?? {};
  const channel = lowerTrim(match.channel);
  if ((binding.type === undefined || binding.type === 'route') && channel !== '') {
    const accountPattern = typeof match.accountId === 'string' ? match.accountId.trim() : '';
    const roles = Array.isArray(match.roles) ? (match.roles as unknown[]) : [];
    const guildId = idOf(match.guildId);
    const teamId = idOf(match.teamId);
    let tier: Tier;
    let peerKind: Kind | undefined;
    let peerId = '';
    if (match.peer !== undefined && match.peer !== null) {
      peerKind = kindOf(match.peer.kind);
      peerId = idOf(match.peer.id);
      tier = peerKind === undefined || peerId === '' ? 'never' : peerId === '*' ? 'wildcard' : 'peer';
    } else if (guildId !== '') {
      tier = roles.length > 0 ? 'guild+roles' : 'guild';
    } else if (teamId !== '') {
      tier = 'team';
    } else {
      tier = accountPattern === '*' ? 'channel' : 'account';
    }
    result = {
      channel,
      accountPattern,
      tier,
      peerKind,
      peerId,
      guildId,
      teamId,
      roles,
      agentId: binding.agentId,
      scope: binding.session?.dmScope as Scope | undefined,
    };
  }
  described.set(binding, result);
  return result;
}

function kindsCompatible(binding: Kind, inbound: Kind | undefined): boolean {
  if (inbound === undefined) return false;
  if (binding === inbound) return true;
  return binding !== 'direct' && inbound !== 'direct';
}

export function referenceResolve(input: ResolveAgentRouteInput): ResolvedAgentRoute {
  const config = input.config as {
    agents?: { list?: unknown };
    bindings?: unknown;
    session?: Record<string, unknown>;
  };
  const channel = lowerTrim(input.channel);
  const accountId = referenceAccountId(input.accountId);
  const peer = input.peer ?? null;
  const peerKind = peer === null ? undefined : kindOf(peer.kind);
  const peerId = peer === null ? '' : idOf(peer.id);
  const parent = input.parentPeer ?? null;
  const parentKind = parent === null ? undefined : kindOf(parent.kind);
  const parentId = parent === null ? '' : idOf(parent.id);
  const guildId = idOf(input.guildId);
  const teamId = idOf(input.teamId);
  const roles = input.memberRoleIds ?? [];
  const session = config.session ?? {};
  const globalScope = (session.dmScope as Scope | undefined) ?? 'main';
  const mainKey = lowerTrim(session.mainKey) || 'main';

  // §5: the roster and the default agent.
  const list = Array.isArray(config.agents?.list)
    ? (config.agents.list as Array<{ id?: unknown; default?: unknown }>).filter(
        (agent) => typeof agent === 'object' && agent !== null,
      )
    : [];
  const rosterIds = list
    .map((agent) => (typeof agent.id === 'string' ? agent.id.trim() : ''))
    .filter((id) => id !== '')
    .map(referenceAgentId);
  let defaultAgent = 'main';
  if (list.length > 0) {
    const chosen = list.find((agent) => Boolean(agent.default)) ?? list[0];
    defaultAgent = referenceAgentId((typeof chosen?.id === 'string' ? chosen.id.trim() : '') || 'main');
  }
  const agentFor = (raw: unknown): string => {
    const trimmed = typeof raw === 'string' ? raw.trim() : '';
    if (trimmed === '') return defaultAgent;
    if (rosterIds.length === 0) return referenceAgentId(trimmed);
    return rosterIds.includes(referenceAgentId(trimmed)) ? referenceAgentId(trimmed) : defaultAgent;
  };

  // §6/§7: the key for an agent under a DM scope.
  const keyFor = (agentId: string, scope: Scope): string => {
    const mainSessionKey = `agent:${agentId}:${mainKey}`;
    if (peer === null) return mainSessionKey;
    const keyChannel = channel === '' ? 'unknown' : channel;
    const id = peerId === '' ? 'unknown' : peerId;
    const rawKind = peer.kind;
    const kind: string =
      peerKind ?? (rawKind === undefined || rawKind === null ? 'direct' : String(rawKind).toLowerCase());
    if (kind !== 'direct') {
      const keepCase =
        (keyChannel === 'signal' && kind === 'group') ||
        (keyChannel === 'matrix' && (kind === 'group' || kind === 'channel'));
      return `agent:${agentId}:${keyChannel}:${kind}:${keepCase ? id : id.toLowerCase()}`;
    }
    if (scope === 'main') return mainSessionKey;
    let dmId = id;
    const links = session.identityLinks as Record<string, unknown> | undefined;
    if (links !== undefined && links !== null) {
      const candidates = [id.toLowerCase(), `${keyChannel}:${id}`.toLowerCase()];
      search: for (const [name, ids] of Object.entries(links)) {
        if (name.trim() === '' || !Array.isArray(ids)) continue;
        for (const linked of ids) {
          const normalized = lowerTrim(linked);
          if (normalized !== '' && candidates.includes(normalized)) {
            dmId = name.trim();
            break search;
          }
        }
      }
    }
    dmId = dmId.toLowerCase();
    if (scope === 'per-peer') return `agent:${agentId}:direct:${dmId}`;
    if (scope === 'per-channel-peer') return `agent:${agentId}:${keyChannel}:direct:${dmId}`;
    return `agent:${agentId}:${keyChannel}:${accountId}:direct:${dmId}`;
  };

  const answer = (agentId: string, matchedBy: RouteMatchedBy, scope: Scope): ResolvedAgentRoute => {
    const sessionKey = keyFor(agentId, scope);
    const mainSessionKey = `agent:${agentId}:${mainKey}`;
    return {
      agentId,
      channel,
      accountId,
      sessionKey,
      mainSessionKey,
      lastRoutePolicy: sessionKey === mainSessionKey ? 'main' : 'session',
      matchedBy,
    };
  };

  // §4.1: route bindings of this channel and account, in config order, each in one tier.
  const all = Array.isArray(config.bindings) ? (config.bindings as LooseBinding[]) : [];
  const considered: Described[] = [];
  for (const binding of all) {
    const described = describe(binding);
    if (described === null || described.channel !== channel) continue;
    const pattern = described.accountPattern;
    if (
      pattern === '*' ||
      (pattern === '' ? accountId === 'default' : referenceAccountId(pattern) === accountId)
    ) {
      considered.push(described);
    }
  }
  // §4.3: every field the binding sets must match.
  const scopeMatches = (binding: Described): boolean => {
    if (binding.guildId !== '' && binding.guildId !== guildId) return false;
    if (binding.teamId !== '' && binding.teamId !== teamId) return false;
    if (binding.roles.length > 0) return binding.roles.some((role) => roles.includes(role as string));
    return true;
  };
  const peerMatches = (binding: Described, kind: Kind | undefined, id: string): boolean =>
    kindsCompatible(binding.peerKind as Kind, kind) && binding.peerId === id;

  // §4.2: the tiers, in order.
  const tiers: Array<[RouteMatchedBy, boolean, (binding: Described) => boolean]> = [
    ['binding.peer', peer !== null, (b) => b.tier === 'peer' && peerMatches(b, peerKind, peerId)],
    [
      'binding.peer.parent',
      parentId !== '',
      (b) => b.tier === 'peer' && peerMatches(b, parentKind, parentId),
    ],
    [
      'binding.peer.wildcard',
      peer !== null,
      (b) => b.tier === 'wildcard' && kindsCompatible(b.peerKind as Kind, peerKind),
    ],
    ['binding.guild+roles', guildId !== '' && roles.length > 0, (b) => b.tier === 'guild+roles'],
    ['binding.guild', guildId !== '', (b) => b.tier === 'guild'],
    ['binding.team', teamId !== '', (b) => b.tier === 'team'],
    ['binding.account', true, (b) => b.tier === 'account'],
    ['binding.channel', true, (b) => b.tier === 'channel'],
  ];
  for (const [matchedBy, enabled, inTier] of tiers) {
    if (!enabled) continue;
    for (const binding of considered) {
      if (inTier(binding) && scopeMatches(binding)) {
        return answer(agentFor(binding.agentId), matchedBy, binding.scope ?? globalScope);
      }
    }
  }
  return answer(defaultAgent, 'default', globalScope);
}
