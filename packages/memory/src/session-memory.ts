// What the agent is told about its memory at the start of a session: when to search (the
// "memory recall" text) and the curated MEMORY.md itself, within a character budget, plus the
// names of today's and yesterday's daily notes when they exist (offered, not pasted).
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { memoryDirectoryName, memoryFileName } from './memory-files.ts';

/** The instruction of the "memory recall" prompt section. */
export const memoryRecallText: string = [
  '## Memory Recall',
  'You have long-term memory in Markdown files in your workspace: MEMORY.md (curated, durable facts) and memory/YYYY-MM-DD.md (daily notes).',
  'Before answering anything about prior work, decisions, dates, people, preferences or todos, call memory_search, then memory_get for more lines around a result; cite what you use as path#lines.',
  'To remember something, write it with your file tools: durable facts in MEMORY.md, the rest in memory/<today>.md. If memory_search finds nothing, say you checked.',
].join('\n');

export interface SessionMemoryOptions {
  readonly workspaceDir: string;
  /** Most characters of MEMORY.md to include (default 8000). */
  readonly maxChars?: number;
  /** Today's date as YYYY-MM-DD in the agent's time zone. */
  readonly today: string;
}

function previousDay(date: string): string {
  const time = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(time)) return date;
  return new Date(time - 86_400_000).toISOString().slice(0, 10);
}

/**
 * The session-start memory text: MEMORY.md (cut at `maxChars` with a pointer to the rest) and
 * the paths of today's and yesterday's notes. Undefined when there is neither. Depends only on
 * the files and the date, so it stays byte-identical between turns until a file changes.
 */
export async function renderSessionMemory(options: SessionMemoryOptions): Promise<string | undefined> {
  const maxChars = options.maxChars ?? 8000;
  const parts: string[] = [];
  const curated = await readFile(join(options.workspaceDir, memoryFileName), 'utf8').catch(() => undefined);
  const trimmed = curated?.trim() ?? '';
  if (trimmed.length > 0) {
    if (trimmed.length <= maxChars) parts.push(`## ${memoryFileName}\n${trimmed}`);
    else {
      const kept = trimmed.slice(0, maxChars);
      const nextLine = kept.split('\n').length;
      parts.push(
        `## ${memoryFileName}\n${kept}\n[truncated at ${maxChars} characters: memory_get path=${memoryFileName} from=${nextLine} for the rest]`,
      );
    }
  }
  const recent: string[] = [];
  for (const [day, label] of [
    [options.today, 'today'],
    [previousDay(options.today), 'yesterday'],
  ] as const) {
    const path = `${memoryDirectoryName}/${day}.md`;
    const info = await stat(join(options.workspaceDir, path)).catch(() => undefined);
    if (info?.isFile() === true) recent.push(`- ${path} (${label})`);
  }
  if (recent.length > 0) parts.push(`Recent daily notes (read with memory_get):\n${recent.join('\n')}`);
  return parts.length === 0 ? undefined : parts.join('\n\n');
}
