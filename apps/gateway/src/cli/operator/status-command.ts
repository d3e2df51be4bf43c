// `switchboard status`: the running gateway's channels, turns and queue, what it decided not
// to answer, schedules, replicas, plugins and credential cooldowns, as text or JSON.
import type { HeartbeatUsageDay } from '../../extensions/scheduler/heartbeat.ts';
import { formatReplicas } from '../../replicas/replica-status.ts';
import type { CommandValues } from '../arguments.ts';
import type { CommandHelpers } from '../command-context.ts';
import { type CliIo, exitCodes, readTimeoutMs } from '../io.ts';
import { duration } from './format.ts';

export async function statusCommand(
  _words: readonly string[],
  _values: CommandValues,
  _io: CliIo,
  helpers: CommandHelpers,
): Promise<number> {
  return helpers.withClient(async (client) => {
    const status = await client.request('status', {}, { timeoutMs: readTimeoutMs });
    helpers.print(status, () => formatStatus(status));
    return exitCodes.ok;
  });
}

interface StatusProfile {
  id: string;
  provider: string;
  state: 'ready' | 'cooling' | 'disabled' | 'no_credential';
  disabled?: { reason: string; remainingMs: number };
  models?: Array<{ model: string; reason: string; remainingMs: number }>;
}

/** The queue policy and what the gateway decided not to answer, for `status`. */
function formatQueue(status: Record<string, unknown>): string[] {
  const queue = status.queue as { mode: string; cap: number; drop: string; debounceMs: number } | undefined;
  const notAnswered = status.notAnswered as
    | {
        counts: Record<string, number>;
        recent: Array<{
          at: number;
          reason: string;
          detail: string;
          channel: string;
          chatId?: string;
          note?: string;
        }>;
      }
    | undefined;
  const lines: string[] = [];
  if (queue !== undefined)
    lines.push(
      `Queue: ${queue.mode}, at most ${queue.cap} waiting per session, then ${queue.drop === 'summarize' ? 'the oldest are summarized into the next turn' : `the ${queue.drop}est is dropped and its sender told`} (messages.queue)`,
    );
  const counts = Object.entries(notAnswered?.counts ?? {});
  if (counts.length > 0) {
    lines.push(
      `Not answered since start: ${counts.map(([reason, count]) => `${reason} ${count}`).join(', ')}`,
    );
    for (const entry of (notAnswered?.recent ?? []).slice(0, 5))
      lines.push(
        `  ${new Date(entry.at).toISOString()} ${entry.channel}${entry.chatId === undefined ? '' : ` chat ${entry.chatId}`}: ${entry.reason} (${entry.detail})${entry.note === undefined ? '' : ` - ${entry.note}`}`,
      );
  }
  return lines;
}

/** Scheduled jobs and today's heartbeat tokens, for `status` (decision 0019). */
function formatSchedules(status: Record<string, unknown>): string[] {
  const schedules = status.schedules as
    | {
        enabled: boolean;
        jobs: number;
        nextWakeAt?: string;
        heartbeat: HeartbeatUsageDay[];
      }
    | undefined;
  if (schedules === undefined) return [];
  const today = new Date().toISOString().slice(0, 10);
  return [
    `Schedules: ${schedules.enabled ? `${schedules.jobs} jobs${schedules.nextWakeAt === undefined ? '' : `, next ${schedules.nextWakeAt}`}` : 'off (cron.enabled)'}`,
    ...schedules.heartbeat
      .filter((day) => day.day === today)
      .map(
        (day) =>
          `  heartbeat ${day.agentId} today: ${day.runs} runs, ${day.skipped} skipped, ${day.totalTokens} tokens`,
      ),
  ];
}

/** The `status` payload for people. */
export function formatStatus(status: Record<string, unknown>): string {
  const runs = (status.runs ?? {}) as { running?: number; waiting?: number; queuedMessages?: number };
  const channels = (status.channels ?? []) as Array<{
    channel: string;
    accountId: string;
    status: { state: string; detail?: string; error?: string; since?: number };
  }>;
  const plugins = (status.plugins ?? { loaded: [], failed: [] }) as {
    loaded: string[];
    failed: Array<{ plugin?: string; source: string; error: string }>;
  };
  const auth = (status.authProfiles ?? {}) as { profiles?: StatusProfile[] };
  const profiles = auth.profiles ?? [];
  const memory = Math.round(
    Number((status.memory as { rssBytes?: number } | undefined)?.rssBytes ?? 0) / 1_048_576,
  );
  const sessionsInfo = status.sessions as { count?: number; durability?: string } | undefined;
  const lines = [
    `Switchboard ${String(status.runtimeVersion)} on Node ${String(status.node)}, up ${duration(Number(status.uptimeMs))}, ${memory} MB${status.shuttingDown === true ? ' (shutting down)' : ''}`,
    `Turns: ${runs.running ?? 0} running, ${runs.waiting ?? 0} waiting for a slot, ${runs.queuedMessages ?? 0} messages queued` +
      `${Number(status.pendingInbound ?? 0) > 0 ? `, ${String(status.pendingInbound)} received and not yet answered` : ''}`,
    `Sessions: ${sessionsInfo?.count ?? 0}${sessionsInfo?.durability === 'full' ? ' (commits fsynced: session.durability "full")' : ''}`,
    ...formatQueue(status),
    ...formatSchedules(status),
    ...formatReplicas(status.replicas),
    `Channels:${channels.length === 0 ? ' none configured' : ''}`,
    ...channels.map(
      (channel) =>
        `  ${channel.channel}/${channel.accountId}: ${channel.status.state}${channel.status.detail ? ` (${channel.status.detail})` : ''}${channel.status.error ? ` - ${channel.status.error}` : ''}`,
    ),
    `Plugins: ${plugins.loaded.length === 0 ? 'none loaded' : plugins.loaded.join(', ')}`,
    ...plugins.failed.map((failure) => `  failed: ${failure.plugin ?? failure.source}: ${failure.error}`),
    `Credentials:${profiles.length === 0 ? ' no profiles configured (provider keys from models.providers)' : ''}`,
  ];
  for (const profile of profiles) {
    const cooling = (profile.models ?? []).filter((window) => window.remainingMs > 0);
    let state: string = profile.state;
    if (profile.state === 'disabled' && profile.disabled !== undefined)
      state = `disabled (${profile.disabled.reason}), ${duration(profile.disabled.remainingMs)} left`;
    else if (profile.state === 'no_credential') state = 'no credential';
    lines.push(`  ${profile.id}: ${state}`);
    for (const window of cooling)
      lines.push(
        `    ${window.model}: cooling down (${window.reason}), ${duration(window.remainingMs)} left`,
      );
  }
  return lines.join('\n');
}
