// The agent's memory tools: memory_search (hybrid search with citations) and memory_get (a
// bounded excerpt of one memory file). A MemoryError thrown here reaches the model as an error
// tool result it can correct (a bad path, an empty query).
import { type AnyAgentTool, defineTool } from '@switchboard/core-loop';
import { z } from 'zod';
import type { MemoryExcerpt, MemoryIndex, MemorySearchResponse } from './memory-index.ts';

const searchParameters = z.object({
  query: z.string().min(1).describe('What to look for, in words likely to appear in the note.'),
  maxResults: z.number().int().min(1).max(50).optional().describe('At most this many results (default 6).'),
  minScore: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('Drop results scoring below this (0 to 1, default 0.35).'),
});

const getParameters = z.object({
  path: z
    .string()
    .min(1)
    .describe('A memory file path as memory_search cites it, e.g. memory/2026-01-31.md or MEMORY.md#12.'),
  from: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('First line to return (1-based; default 1, or the line of a citation).'),
  lines: z
    .number()
    .int()
    .min(1)
    .max(300)
    .optional()
    .describe('How many lines to return (default 60, at most 300).'),
});

/** The text the model reads for a search response. */
function formatSearchResponse(query: string, response: MemorySearchResponse): string {
  const header =
    response.results.length === 0
      ? `No memory matched ${JSON.stringify(query)}.`
      : `${response.results.length} memory result${response.results.length === 1 ? '' : 's'} for ${JSON.stringify(query)}:`;
  const note = response.note === undefined ? '' : `\n(${response.note})`;
  const body = response.results
    .map((result, index) => {
      const heading = result.heading.length > 0 ? ` — ${result.heading}` : '';
      return `\n${index + 1}. ${result.citation} (score ${result.score.toFixed(2)})${heading}\n${result.snippet}`;
    })
    .join('\n');
  return `${header}${note}${body}`;
}

function formatExcerpt(excerpt: MemoryExcerpt): string {
  const more = excerpt.truncated ? `\n[more: memory_get path=${excerpt.path} from=${excerpt.to + 1}]` : '';
  return `${excerpt.path} lines ${excerpt.from}-${excerpt.to} of ${excerpt.totalLines}:\n${excerpt.text}${more}`;
}

/**
 * memory_search and memory_get over one agent's index. `index` is called when a tool runs,
 * so the index opens (and syncs) on first use rather than when the tools are listed.
 */
export function createMemoryTools(index: () => Promise<MemoryIndex>): AnyAgentTool[] {
  const search = defineTool({
    name: 'memory_search',
    label: 'Search memory',
    description:
      'Search your long-term memory (MEMORY.md and the notes in memory/) for earlier decisions, facts, people, preferences, dates and todos. Returns scored snippets cited as path#lines.',
    parameters: searchParameters,
    async execute(_toolCallId, args, signal) {
      const response = await (await index()).search(args.query, {
        maxResults: args.maxResults,
        minScore: args.minScore,
        signal,
      });
      return {
        content: [{ type: 'text', text: formatSearchResponse(args.query, response) }],
        details: response,
      };
    },
  });
  const get = defineTool({
    name: 'memory_get',
    label: 'Read memory',
    description:
      'Read lines of a memory file (MEMORY.md or memory/*.md), for example around a memory_search citation.',
    parameters: getParameters,
    async execute(_toolCallId, args) {
      const excerpt = await (await index()).read(args.path, {
        from: args.from,
        lines: args.lines,
      });
      return { content: [{ type: 'text', text: formatExcerpt(excerpt) }], details: excerpt };
    },
  });
  return [search, get];
}
