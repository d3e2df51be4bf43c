// `switchboard sessions list|show|reset|delete|compact|export`: the running gateway's
// sessions, newest first; one session's conversation; starting one over or removing it (the
// transcript is archived); summarizing older turns now; the whole transcript as JSONL.
import type { CommandValues } from '../arguments.ts';
import type { CommandHelpers } from '../command-context.ts';
import type { CliGatewayClient } from '../gateway-client.ts';
import { type CliIo, exitCodes, readTimeoutMs } from '../io.ts';
import { duration, table } from './format.ts';
import { exportSession } from './session-export.ts';

const read = { timeoutMs: readTimeoutMs };

export async function sessionsCommand(
  words: readonly string[],
  values: CommandValues,
  io: CliIo,
  helpers: CommandHelpers,
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

async function compact(
  client: CliGatewayClient,
  key: string,
  io: CliIo,
  helpers: CommandHelpers,
): Promise<number> {
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
