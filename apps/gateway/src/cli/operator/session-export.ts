// `switchboard sessions export KEY [--out FILE]`: a session's whole transcript as JSONL, page
// by page, with progress on stderr.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { CommandValues } from '../arguments.ts';
import type { CommandHelpers } from '../command-context.ts';
import type { CliGatewayClient } from '../gateway-client.ts';
import { type CliIo, exitCodes } from '../io.ts';

/** Entries per request when the gateway pages exports (`sessions.export` with `limit`). */
const exportPageSize = 2000;

/**
 * Writes a session's transcript as JSONL to `--out` (or stdout), page by page when the
 * gateway pages (`nextSequence` in the answer), with progress on stderr.
 */
export async function exportSession(
  client: CliGatewayClient,
  key: string,
  values: CommandValues,
  io: CliIo,
  helpers: CommandHelpers,
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
          fromSequence,
          sessionId,
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
