/**
 * A realistic large routing config and inbound-message samplers, shared by the
 * equivalence test and the bench. Deterministic: everything comes from a seeded PRNG.
 */
import type { AgentBinding, ResolveAgentRouteInput, RoutePeer, RoutingConfig } from '@switchboard/routing';

/** mulberry32: a tiny seeded PRNG, so fixtures are the same on every run. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)] as T;
}

export const CHANNELS: readonly string[] = [
  'discord',
  'slack',
  'telegram',
  'whatsapp',
  'signal',
  'matrix',
  'msteams',
  'webchat',
  'line',
  'imessage',
];

/** 10 accounts per channel, 100 in all. */
export function accountsOf(channel: string): string[] {
  const position = CHANNELS.indexOf(channel);
  return Array.from({ length: 10 }, (_, index) => `acct-${String(position * 10 + index).padStart(3, '0')}`);
}

const hasGuilds = (channel: string): boolean => channel === 'discord';
const hasTeams = (channel: string): boolean => channel === 'slack' || channel === 'msteams';

export interface LargeConfigFixture {
  readonly config: RoutingConfig;
  readonly directPeers: ReadonlyMap<string, string[]>;
  readonly groupPeers: ReadonlyMap<string, string[]>;
  readonly guilds: readonly string[];
  readonly teams: readonly string[];
  readonly roles: readonly string[];
}

/**
 * 1,000 bindings over 10 channels and 100 accounts: peers (direct and group/channel),
 * wildcards, guild+roles, guild, team, account and channel tiers, with some AND
 * combinations (peer+guild, guild+team), default-account and `*` bindings, per-binding
 * dmScope overrides, 20 agents and a few identity links.
 */
export function createLargeConfig(seed = 1, bindingCount = 1000): LargeConfigFixture {
  const random = createRandom(seed);
  const agents = Array.from({ length: 20 }, (_, index) => ({
    id: index === 0 ? 'main' : `agent-${index}`,
    default: index === 0 ? true : undefined,
    name: `Agent ${index}`,
    workspace: `~/.switchboard/workspace-${index}`,
  }));
  const guilds = Array.from({ length: 10 }, (_, index) => `${900000000000000000 + index * 7919}`);
  const teams = Array.from({ length: 30 }, (_, index) => `T0${(index * 104729).toString(36).toUpperCase()}`);
  const roles = Array.from({ length: 12 }, (_, index) => `${800000000000000000 + index * 104723}`);
  const directPeers = new Map<string, string[]>();
  const groupPeers = new Map<string, string[]>();
  const bindings: AgentBinding[] = [];

  for (let index = 0; index < bindingCount; index += 1) {
    const channel = pick(random, CHANNELS);
    const roll = random();
    const accountRoll = random();
    const accountId =
      accountRoll < 0.8 ? pick(random, accountsOf(channel)) : accountRoll < 0.9 ? '*' : undefined;
    const agentId = pick(random, agents).id;
    let match: AgentBinding['match'];
    if (roll < 0.22) {
      const id =
        channel === 'telegram' ? `${Math.floor(random() * 1e9)}` : `+1555${Math.floor(random() * 1e7)}`;
      const list = directPeers.get(channel) ?? [];
      list.push(id);
      directPeers.set(channel, list);
      match = { channel, accountId, peer: { kind: random() < 0.1 ? 'dm' : 'direct', id } };
    } else if (roll < 0.42) {
      const id =
        channel === 'signal'
          ? `Grp${Math.floor(random() * 1e9).toString(36)}Q==`
          : channel === 'matrix'
            ? `!Room${Math.floor(random() * 1e9).toString(36)}:matrix.org`
            : `C${Math.floor(random() * 1e12)
                .toString(36)
                .toUpperCase()}`;
      const list = groupPeers.get(channel) ?? [];
      list.push(id);
      groupPeers.set(channel, list);
      const kind = random() < 0.5 ? 'group' : 'channel';
      const guildId = hasGuilds(channel) && random() < 0.3 ? pick(random, guilds) : undefined;
      match = { channel, accountId, peer: { kind, id }, guildId };
    } else if (roll < 0.43) {
      match = {
        channel,
        accountId: accountId === '*' ? undefined : accountId,
        peer: { kind: random() < 0.5 ? 'direct' : 'group', id: '*' },
      };
    } else if (roll < 0.55) {
      const guildId = hasGuilds(channel) ? pick(random, guilds) : undefined;
      const teamId = guildId === undefined && hasTeams(channel) ? pick(random, teams) : undefined;
      match = {
        channel,
        accountId,
        guildId,
        teamId,
        roles: [pick(random, roles), ...(random() < 0.4 ? [pick(random, roles)] : [])],
      };
    } else if (roll < 0.67) {
      const guildId = hasGuilds(channel) || random() < 0.3 ? pick(random, guilds) : undefined;
      match = {
        channel,
        accountId,
        guildId,
        teamId: guildId !== undefined && random() < 0.1 ? pick(random, teams) : undefined,
      };
    } else if (roll < 0.85) {
      match = { channel, accountId, teamId: pick(random, teams) };
    } else if (roll < 0.93) {
      match = { channel, accountId: accountId === '*' ? undefined : accountId };
    } else if (roll < 0.95) {
      match = { channel, accountId: pick(random, ['*', ' * ']), roles: [pick(random, roles)] };
    } else {
      // Channel-wide catch-alls exist only on some channels, so unbound traffic elsewhere
      // reaches the default agent.
      match = { channel: pick(random, CHANNELS.slice(0, 3)), accountId: '*' };
    }
    const dmScope =
      random() < 0.05 ? pick(random, ['main', 'per-peer', 'per-account-channel-peer'] as const) : undefined;
    bindings.push({
      agentId: random() < 0.05 ? agentId.toUpperCase() : agentId,
      comment: `binding ${index}`,
      match: stripUndefined(match),
      session: dmScope === undefined ? undefined : { dmScope },
    });
  }

  const linkedTelegram = directPeers.get('telegram')?.slice(0, 3) ?? [];
  const linkedWhatsapp = directPeers.get('whatsapp')?.slice(0, 3) ?? [];
  return {
    config: {
      agents: { defaults: { model: 'anthropic/claude' }, list: agents },
      bindings,
      session: {
        dmScope: 'per-channel-peer',
        identityLinks: {
          alice: [...linkedTelegram.map((id) => `telegram:${id}`), ...linkedWhatsapp.slice(0, 1)],
          bob: linkedWhatsapp.slice(1).map((id) => `whatsapp:${id}`),
        },
        reset: { mode: 'daily', atHour: 4 },
      },
    },
    directPeers,
    groupPeers,
    guilds,
    teams,
    roles,
  };
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

/** Every key of the resolver input present (possibly undefined), as one dispatcher builds them. */
interface DispatcherInput {
  config: RoutingConfig;
  channel: string;
  accountId: string | undefined;
  peer: RoutePeer | undefined;
  parentPeer: RoutePeer | undefined;
  guildId: string | undefined;
  teamId: string | undefined;
  memberRoleIds: string[] | undefined;
}

/**
 * An inbound message as a channel would describe it: mostly the configured accounts,
 * DMs and group messages, bound and unbound peers, Discord guilds with roles, Slack
 * teams, threads with parent peers, and some odd spellings (case, whitespace, `dm`).
 */
export function sampleInput(
  fixture: LargeConfigFixture,
  random: () => number,
  uniquePeer?: string,
): ResolveAgentRouteInput {
  const channel = pick(random, CHANNELS);
  const accountRoll = random();
  const accountId =
    accountRoll < 0.85
      ? pick(random, accountsOf(channel))
      : accountRoll < 0.93
        ? undefined
        : accountRoll < 0.97
          ? ` ${pick(random, accountsOf(channel)).toUpperCase()} `
          : 'unlisted-bot';
  const isDirect = random() < 0.5;
  const known = (isDirect ? fixture.directPeers : fixture.groupPeers).get(channel) ?? [];
  let id: string;
  if (uniquePeer !== undefined) id = uniquePeer;
  else if (known.length > 0 && random() < 0.4) id = pick(random, known);
  else id = isDirect ? `+1999${Math.floor(random() * 2000)}` : `G${Math.floor(random() * 2000)}`;
  const kind = isDirect ? (random() < 0.05 ? 'dm' : 'direct') : random() < 0.5 ? 'group' : 'channel';
  // One object shape for every input, as a channel dispatcher builds them.
  const input: DispatcherInput = {
    config: fixture.config,
    channel: random() < 0.05 ? channel.toUpperCase() : channel,
    accountId,
    peer: { kind, id },
    parentPeer: undefined,
    guildId: undefined,
    teamId: undefined,
    memberRoleIds: undefined,
  };
  if (!isDirect && random() < 0.15) {
    input.parentPeer = { kind: 'channel', id: known.length > 0 ? pick(random, known) : 'C0' };
  }
  if (channel === 'discord' && !isDirect) {
    input.guildId = pick(random, fixture.guilds);
    input.memberRoleIds = Array.from({ length: Math.floor(random() * 5) }, () => pick(random, fixture.roles));
  }
  if ((channel === 'slack' || channel === 'msteams') && random() < 0.9)
    input.teamId = pick(random, fixture.teams);
  return input;
}
