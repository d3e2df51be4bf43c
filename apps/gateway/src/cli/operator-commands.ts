import { createWriteStream, existsSync, readFileSync, statSync, watch } from 'node:fs';
import type { CliGatewayClient } from './gateway-client.ts';
import type { CliIo } from './main.ts';

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
}

type Values = Record<string, string | boolean | undefined>;

function ago(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)}m`;
  return `${Math.round(ms / 3_600_000)}h`;
}

/** `status`, `sessions …`, `doctor`, `logs`. Returns an exit code. */
export async function operatorCommand(
  words: readonly string[],
  values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  switch (words[0]) {
    case 'status':
      return helpers.withClient(async (client) => {
        const status = await client.request('status');
        helpers.print(status, () => formatStatus(status));
        return 0;
      });
    case 'sessions':
      return sessions(words, values, io, helpers);
    case 'doctor': {
      const { runDoctor } = await import('./doctor.ts');
      return runDoctor(values, io, helpers);
    }
    case 'logs':
      return logs(values, io);
    default:
      return 2;
  }
}

function formatStatus(status: Record<string, unknown>): string {
  const runs = status.runs as { running: number; waiting: number; queuedMessages: number };
  const channels = (status.channels ?? []) as Array<{
    channel: string;
    accountId: string;
    status: { state: string; detail?: string; error?: string };
  }>;
  const plugins = status.plugins as {
    loaded: string[];
    failed: Array<{ plugin?: string; source: string; error: string }>;
  };
  const profiles = (status.authProfiles ?? []) as Array<{
    profileId: string;
    model?: string;
    state: string;
    reason?: string;
    remainingMs?: number;
  }>;
  const lines = [
    `Switchboard ${String(status.runtimeVersion)} on Node ${String(status.node)}, up ${ago(Number(status.uptimeMs))}, ${Math.round(Number((status.memory as { rssBytes: number }).rssBytes) / 1_048_576)} MB`,
    `Runs: ${runs.running} running, ${runs.waiting} waiting, ${runs.queuedMessages} queued`,
    `Channels:${channels.length === 0 ? ' none configured' : ''}`,
    ...channels.map(
      (channel) =>
        `  ${channel.channel}/${channel.accountId}: ${channel.status.state}${channel.status.detail ? ` (${channel.status.detail})` : ''}${channel.status.error ? ` — ${channel.status.error}` : ''}`,
    ),
    `Plugins: ${plugins.loaded.length === 0 ? 'none' : plugins.loaded.join(', ')}`,
    ...plugins.failed.map((failure) => `  failed: ${failure.plugin ?? failure.source}: ${failure.error}`),
    `Credential profiles:${profiles.length === 0 ? ' none cooling down' : ''}`,
    ...profiles.map(
      (profile) =>
        `  ${profile.profileId}${profile.model ? ` (${profile.model})` : ''}: ${profile.state}${profile.reason ? `, ${profile.reason}` : ''}${profile.remainingMs ? `, ${ago(profile.remainingMs)} left` : ''}`,
    ),
  ];
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
  if (action !== 'list' && key === undefined) {
    io.error(`usage: switchboard sessions ${action} <session-key>\n`);
    return 2;
  }
  return helpers.withClient(async (client) => {
    switch (action) {
      case 'list': {
        const result = await client.request('sessions.list', { limit: 100 });
        const rows = (result.sessions ?? []) as Array<{
          key: string;
          updatedAt: number;
          model?: string;
          inputTokens: number;
          outputTokens: number;
          hasActiveRun: boolean;
        }>;
        helpers.print(result, () =>
          rows.length === 0
            ? 'No sessions.'
            : rows
                .map(
                  (row) =>
                    `${row.key}\t${ago(Date.now() - row.updatedAt)} ago\t${row.model ?? '-'}\t${row.inputTokens}/${row.outputTokens} tokens${row.hasActiveRun ? '\trunning' : ''}`,
                )
                .join('\n'),
        );
        return 0;
      }
      case 'show': {
        const history = await client.request('chat.history', { sessionKey: key, limit: 50 });
        const messages = (history.messages ?? []) as Array<{ role: string; content: unknown }>;
        helpers.print(
          history,
          () =>
            messages
              .map((message) => {
                const text =
                  typeof message.content === 'string'
                    ? message.content
                    : (message.content as Array<{ type: string; text?: string }>)
                        .map((block) => block.text ?? `[${block.type}]`)
                        .join('');
                return `${message.role}: ${text}`;
              })
              .join('\n') || 'No messages.',
        );
        return 0;
      }
      case 'reset':
      case 'delete': {
        const result = await client.request(`sessions.${action}`, { key });
        helpers.print(
          result,
          () =>
            `${action === 'reset' ? 'Reset' : 'Deleted'} ${String(result.key)} (the old transcript is archived).`,
        );
        return 0;
      }
      case 'export': {
        const result = await client.request('sessions.export', { key });
        const entries = (result.entries ?? []) as unknown[];
        const lines = entries.map((entry) => JSON.stringify(entry)).join('\n');
        if (typeof values.out === 'string') {
          const stream = createWriteStream(values.out, { mode: 0o600 });
          let written = 0;
          for (const entry of entries) {
            stream.write(`${JSON.stringify(entry)}\n`);
            written += 1;
            if (written % 1000 === 0) io.error(`exported ${written}/${entries.length} entries\r`);
          }
          await new Promise<void>((resolve) => stream.end(resolve));
          io.error(`exported ${entries.length} entries to ${values.out}\n`);
        } else {
          io.out(`${lines}\n`);
        }
        return 0;
      }
      default:
        io.error(`unknown sessions command: ${action}\n`);
        return 2;
    }
  });
}

async function logs(values: Values, io: CliIo): Promise<number> {
  const { loadConfig } = await import('../config/load.ts');
  const { resolveStateDirectory } = await import('../state/state-directory.ts');
  const state =
    typeof values['state-dir'] === 'string' ? values['state-dir'] : resolveStateDirectory(io.environment);
  const file = loadConfig({ stateDirectory: state, environment: io.environment }).config.logging.file;
  if (file === undefined || !existsSync(file)) {
    io.error('the gateway logs to stderr only; set logging.file in the config to keep a log file\n');
    return 1;
  }
  let offset = 0;
  const dump = () => {
    const size = statSync(file).size;
    if (size < offset) offset = 0;
    if (size === offset) return;
    io.out(readFileSync(file).subarray(offset, size).toString('utf8'));
    offset = size;
  };
  dump();
  if (values.follow !== true) return 0;
  await new Promise<void>(() => {
    watch(file, () => dump());
  });
  return 0;
}
