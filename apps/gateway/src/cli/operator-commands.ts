import { createWriteStream, existsSync, readFileSync, statSync, type WriteStream, watch } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { formatReplicas } from '../replicas/replica-status.ts';
import type { CliGatewayClient } from './gateway-client.ts';
import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
  /** The gateway's WebSocket address and the token the CLI would present. */
  target(): Promise<{ url: string; token: string | undefined }>;
}

type Values = Record<string, string | boolean | undefined>;

const read = { timeoutMs: readTimeoutMs };

/** "42s", "5m", "3h" for a duration. */
function duration(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))}s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)}m`;
  if (ms < 172_800_000) return `${Math.round(ms / 3_600_000)}h`;
  return `${Math.round(ms / 86_400_000)}d`;
}

/** Lines of cells padded into columns. */
function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  return rows
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `status`, `sessions …`, `doctor`, `logs`, `webchat`. Returns an exit code. */
export async function operatorCommand(
  words: readonly string[],
  values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  switch (words[0]) {
    case 'status':
      return helpers.withClient(async (client) => {
        const status = await client.request('status', {}, read);
        helpers.print(status, () => formatStatus(status));
        return exitCodes.ok;
      });
    case 'sessions':
      return sessions(words, values, io, helpers);
    case 'doctor': {
      const { runDoctor } = await import('./doctor.ts');
      return runDoctor(values, io, helpers);
    }
    case 'logs':
      return logs(values, io);
    case 'webchat':
      return webchat(values, helpers);
    default:
      return exitCodes.usage;
  }
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
        heartbeat: Array<{
          agentId: string;
          day: string;
          runs: number;
          skipped: number;
          totalTokens: number;
        }>;
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

async function sessions(
  words: readonly string[],
  values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const action = words[1] ?? 'list';
  const key = words[2];
  if (!['list', 'show', 'reset', 'delete', 'export', 'compact'].includes(action)) {
    io.error(`unknown sessions command: ${action}; use list, show, reset, delete, export or compact\n`);
    return exitCodes.usage;
  }
  if (action !== 'list' && key === undefined) {
    io.error(`usage: switchboard sessions ${action} <session-key>\n`);
    return exitCodes.usage;
  }
  return helpers.withClient(async (client) => {
    switch (action) {
      case 'list': {
        const result = await client.request('sessions.list', { limit: 1000 }, read);
        const rows = (result.sessions ?? []) as Array<{
          key: string;
          updatedAt: number;
          channel?: string;
          model?: string;
          inputTokens: number;
          outputTokens: number;
          hasActiveRun: boolean;
        }>;
        helpers.print(result, () =>
          rows.length === 0
            ? 'No sessions yet.'
            : table([
                ['KEY', 'UPDATED', 'CHANNEL', 'MODEL', 'TOKENS IN/OUT', ''],
                ...rows.map((row) => [
                  row.key,
                  `${duration(Date.now() - row.updatedAt)} ago`,
                  row.channel ?? '-',
                  row.model ?? '-',
                  `${row.inputTokens}/${row.outputTokens}`,
                  row.hasActiveRun ? 'running' : '',
                ]),
              ]),
        );
        return exitCodes.ok;
      }
      case 'show': {
        const history = await client.request('chat.history', { sessionKey: key, limit: 1000 }, read);
        const messages = (history.messages ?? []) as Array<{
          role: string;
          content: unknown;
          toolName?: string;
          errorMessage?: string;
        }>;
        if (history.sessionId === null || history.sessionId === undefined) {
          if (values.json === true) helpers.print(history, () => '');
          else io.error(`no session ${String(history.sessionKey ?? key)}; see: switchboard sessions list\n`);
          return exitCodes.notFound;
        }
        helpers.print(history, () => {
          const lines = messages.map((message) => {
            const blocks =
              typeof message.content === 'string'
                ? [message.content]
                : (message.content as Array<{ type: string; text?: string; name?: string }>).map((block) =>
                    block.type === 'text'
                      ? (block.text ?? '')
                      : block.type === 'toolCall'
                        ? `[tool ${block.name ?? ''}]`
                        : `[${block.type}]`,
                  );
            const text = blocks.filter((part) => part !== '').join(' ');
            if (message.role === 'toolResult')
              return `  (${message.toolName ?? 'tool'} result) ${text.slice(0, 200)}`;
            return `${message.role}: ${text}${message.errorMessage ? ` [failed: ${message.errorMessage.split('\n')[0]}]` : ''}`;
          });
          const more =
            history.hasMore === true
              ? [`(the last ${messages.length} of ${String(history.totalMessages)})`]
              : [];
          return [...more, ...lines].join('\n') || 'No messages.';
        });
        return exitCodes.ok;
      }
      case 'reset':
      case 'delete': {
        const result = await client.request(`sessions.${action}`, { key }, read);
        if (action === 'delete' && result.deleted === false) {
          if (values.json === true) helpers.print(result, () => '');
          else io.error(`no session ${String(result.key ?? key)} to delete\n`);
          return exitCodes.notFound;
        }
        helpers.print(
          result,
          () =>
            `${action === 'reset' ? 'Reset' : 'Deleted'} ${String(result.key)} (the old transcript is archived).`,
        );
        return exitCodes.ok;
      }
      case 'compact':
        return compact(client, String(key), io, helpers);
      default:
        return exportSession(client, String(key), values, io, helpers);
    }
  });
}

/** Shows that something long is still going: a line on stderr every `everyMs`. */
function progressTicker(io: CliIo, label: string, everyMs = 2000): () => void {
  const started = Date.now();
  const timer = setInterval(() => io.error(`${label}… ${duration(Date.now() - started)}\n`), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

async function compact(client: CliGatewayClient, key: string, io: CliIo, helpers: Helpers): Promise<number> {
  io.error(`compacting ${key} (the model summarizes older turns; this can take a minute)\n`);
  const stop = progressTicker(io, 'still compacting');
  let result: Record<string, unknown>;
  try {
    result = await client.request('sessions.compact', { key });
  } finally {
    stop();
  }
  helpers.print(result, () => {
    if (result.compacted === true)
      return `Compacted ${String(result.key)}: ${String(result.messagesBefore)} messages became ${String(result.messagesAfter)}, about ${String(result.tokensBefore)} → ${String(result.tokensAfter)} tokens.`;
    if (typeof result.error === 'string') return result.error;
    return `Nothing to compact in ${String(result.key)}${typeof result.reason === 'string' ? ` (${result.reason})` : ''}.`;
  });
  return typeof result.error === 'string' ? exitCodes.failed : exitCodes.ok;
}

/** Entries per request when the gateway pages exports (`sessions.export` with `limit`). */
const exportPageSize = 2000;

/**
 * Writes a session's transcript as JSONL to `--out` (or stdout), page by page when the
 * gateway pages (`nextSequence` in the answer), with progress on stderr.
 */
async function exportSession(
  client: CliGatewayClient,
  key: string,
  values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const file = typeof values.out === 'string' ? values.out : undefined;
  let stream: WriteStream | undefined;
  const write = async (text: string): Promise<void> => {
    if (stream === undefined) {
      io.out(text);
      return;
    }
    if (!stream.write(text)) await new Promise<void>((resolveDrain) => stream?.once('drain', resolveDrain));
  };
  let written = 0;
  let total: number | undefined;
  let fromSequence: number | undefined;
  let sessionId: string | undefined;
  let resolvedKey = key;
  try {
    for (;;) {
      const page = await client.request(
        'sessions.export',
        {
          key,
          limit: exportPageSize,
          ...(fromSequence === undefined ? {} : { fromSequence }),
          ...(sessionId === undefined ? {} : { sessionId }),
        },
        { timeoutMs: 120_000 },
      );
      if (stream === undefined && file !== undefined) {
        stream = createWriteStream(file, { mode: 0o600 });
        await new Promise<void>((resolveOpen, rejectOpen) => {
          stream?.once('open', () => resolveOpen());
          stream?.once('error', rejectOpen);
        });
      }
      sessionId ??= typeof page.sessionId === 'string' ? page.sessionId : undefined;
      if (typeof page.key === 'string') resolvedKey = page.key;
      const entries = (page.entries ?? []) as unknown[];
      if (typeof page.totalEntries === 'number') total = page.totalEntries;
      let chunk = '';
      for (const entry of entries) chunk += `${JSON.stringify(entry)}\n`;
      await write(chunk);
      written += entries.length;
      const next = typeof page.nextSequence === 'number' ? page.nextSequence : undefined;
      if (next !== undefined && entries.length > 0) {
        io.error(
          `exported ${written}${total === undefined ? '' : `/${total}`} entries${total ? ` (${Math.floor((written / total) * 100)}%)` : ''}\n`,
        );
      }
      if (next === undefined || entries.length === 0) break;
      fromSequence = next;
    }
  } finally {
    if (stream !== undefined) await new Promise<void>((resolveEnd) => stream?.end(resolveEnd));
  }
  const summary = {
    ok: true,
    key: resolvedKey,
    sessionId: sessionId ?? null,
    entries: written,
    file: file ?? null,
  };
  if (file !== undefined)
    helpers.print(summary, () => `Exported ${written} entries of ${resolvedKey} to ${file}.`);
  else io.error(`exported ${written} entries of ${resolvedKey}\n`);
  return exitCodes.ok;
}

/** One log line as data: `time LEVEL message key=value…`. */
function parseLogLine(line: string): Record<string, string> {
  const match = /^(\S+) (DEBUG|INFO|WARN|ERROR)\s+(.*)$/.exec(line);
  return match === null
    ? { text: line }
    : { time: match[1] ?? '', level: (match[2] ?? '').toLowerCase(), text: match[3] ?? '' };
}

async function logs(values: Values, io: CliIo): Promise<number> {
  const { loadConfig } = await import('../config/load.ts');
  const { resolveStateDirectory } = await import('../state/state-directory.ts');
  const state =
    typeof values['state-dir'] === 'string' ? values['state-dir'] : resolveStateDirectory(io.environment);
  const loaded = loadConfig({
    stateDirectory: state,
    environment: io.environment,
    ...(typeof values.config === 'string' ? { path: values.config } : {}),
  });
  const configured = loaded.config.logging.file;
  if (configured === undefined) {
    io.error(
      'the gateway logs to stderr only; set logging.file in the config to keep a log file (then: switchboard logs --follow)\n',
    );
    return exitCodes.failed;
  }
  // The gateway opens the path as written, relative to where it runs; try that, then beside the config.
  const candidates = [resolve(configured)];
  if (!isAbsolute(configured) && loaded.path !== undefined)
    candidates.push(resolve(loaded.path, '..', configured));
  const file = candidates.find((candidate) => existsSync(candidate));
  if (file === undefined && values.follow !== true) {
    io.error(`the log file ${candidates[0]} does not exist yet (the gateway creates it when it logs)\n`);
    return exitCodes.notFound;
  }
  const path = file ?? candidates[0] ?? configured;
  let offset = 0;
  let partial = '';
  const emit = (text: string) => {
    if (values.json !== true) {
      io.out(text);
      return;
    }
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line !== '') io.out(`${JSON.stringify(parseLogLine(line))}\n`);
  };
  const dump = () => {
    if (!existsSync(path)) return;
    const size = statSync(path).size;
    if (size < offset) offset = 0;
    if (size === offset) return;
    emit(readFileSync(path).subarray(offset, size).toString('utf8'));
    offset = size;
  };
  dump();
  if (values.follow !== true) return exitCodes.ok;
  await new Promise<void>((resolveFollow) => {
    // fs.watch misses appends on some file systems; a short poll backs it up.
    const watcher = existsSync(path) ? watch(path, () => dump()) : undefined;
    const poll = setInterval(dump, 250);
    const stop = () => {
      watcher?.close();
      clearInterval(poll);
      dump();
      resolveFollow();
    };
    if (io.signal !== undefined) {
      if (io.signal.aborted) stop();
      io.signal.addEventListener('abort', stop, { once: true });
    } else {
      // Ctrl-C ends following quietly, with exit 0.
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }
  });
  return exitCodes.ok;
}

async function webchat(values: Values, helpers: Helpers): Promise<number> {
  const target = await helpers.target();
  const httpUrl = `${target.url.replace(/^ws/, 'http').replace(/\/+$/, '')}/`;
  await helpers.withClient((client) => client.request('health', {}, read));
  const withToken = values['with-token'] === true && target.token !== undefined;
  const link = withToken ? `${httpUrl}#token=${encodeURIComponent(target.token ?? '')}` : httpUrl;
  helpers.print({ url: httpUrl, ...(withToken ? { signInUrl: link } : {}) }, () =>
    withToken
      ? `Open ${link}\n(the link signs this browser in; it contains the gateway token, so do not share it)`
      : `Open ${httpUrl} and paste the gateway token (or run: switchboard webchat --with-token).`,
  );
  return exitCodes.ok;
}
