// `switchboard memory status|search|reindex [--agent ID]`: the running gateway's long-term
// memory indexes over the `memory.*` methods (decision 0018).
import type { CliGatewayClient } from './gateway-client.ts';
import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
}

type Values = Record<string, string | boolean | undefined>;

interface AgentStatus {
  agentId: string;
  files: number;
  chunks: number;
  mode: string;
  note?: string;
  databasePath: string;
  workspaceDir: string;
  watching: boolean;
  embeddings?: {
    provider: string;
    model: string;
    embeddedChunks: number;
    pendingChunks: number;
    lastError?: string;
  };
}

interface SearchResult {
  citation: string;
  score: number;
  heading: string;
  snippet: string;
}

const usage = `usage: switchboard memory status [--agent ID] | search QUERY [--agent ID] | reindex [--agent ID]
`;

function formatStatus(result: { enabled?: boolean; agents?: AgentStatus[] }): string {
  if (result.enabled !== true) return 'Memory is off (memory.search.enabled is false).';
  return (result.agents ?? [])
    .map((agent) => {
      const vectors =
        agent.embeddings === undefined
          ? ''
          : `\n  embeddings: ${agent.embeddings.provider} ${agent.embeddings.model}, ${agent.embeddings.embeddedChunks} embedded, ${agent.embeddings.pendingChunks} pending${agent.embeddings.lastError === undefined ? '' : `, last error: ${agent.embeddings.lastError}`}`;
      return (
        `${agent.agentId}: ${agent.files} files, ${agent.chunks} chunks, ${agent.mode} search${agent.note === undefined ? '' : ` (${agent.note})`}` +
        `\n  workspace ${agent.workspaceDir}; index ${agent.databasePath}; watcher ${agent.watching ? 'on' : 'off'}${vectors}`
      );
    })
    .join('\n');
}

function formatResults(result: { results?: SearchResult[]; mode?: string; note?: string }): string {
  const results = result.results ?? [];
  const header = `${results.length} result${results.length === 1 ? '' : 's'} (${result.mode} search${result.note === undefined ? '' : `; ${result.note}`})`;
  return [
    header,
    ...results.map(
      (item) =>
        `${item.citation}  score ${item.score.toFixed(2)}${item.heading === '' ? '' : `  ${item.heading}`}\n  ${item.snippet.replaceAll('\n', '\n  ')}`,
    ),
  ].join('\n');
}

/** `memory …`. Returns an exit code. */
export async function memoryCommand(
  words: readonly string[],
  values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const action = words[1] ?? 'status';
  const query = words.slice(2).join(' ');
  if (!['status', 'search', 'reindex'].includes(action) || (action === 'search' && query.trim() === '')) {
    io.error(usage);
    return exitCodes.usage;
  }
  const agent = typeof values.agent === 'string' ? { agentId: values.agent } : {};
  return helpers.withClient(async (client) => {
    if (action === 'status') {
      const result = await client.request('memory.status', agent, { timeoutMs: readTimeoutMs });
      helpers.print(result, () => formatStatus(result as { enabled?: boolean; agents?: AgentStatus[] }));
    } else if (action === 'search') {
      const result = await client.request('memory.search', { ...agent, query }, { timeoutMs: readTimeoutMs });
      helpers.print(result, () => formatResults(result as { results?: SearchResult[] }));
    } else {
      const result = await client.request('memory.reindex', agent, { timeoutMs: 10 * 60_000 });
      helpers.print(
        result,
        () =>
          `Re-indexed ${String(result.checked)} files (${String(result.indexed)} chunked, ${String(result.removed)} removed) in ${Math.round(Number(result.durationMs))} ms.`,
      );
    }
    return exitCodes.ok;
  });
}
