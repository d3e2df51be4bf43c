import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PromptSection } from '../extensions/prompt-sections.ts';

/** Bootstrap files read from an agent workspace, in prompt order. */
const bootstrapFileNames = ['AGENTS.md', 'SOUL.md', 'USER.md', 'TOOLS.md'] as const;

/** @public (a seam contract) */
export interface BootstrapFile {
  readonly name: string;
  readonly text: string;
  readonly truncated: boolean;
}

/** Reads an agent's bootstrap files (cached; see {@link createBootstrapLoader}). */
export type BootstrapLoader = (workspace: string) => Promise<BootstrapFile[]>;

/**
 * The gateway's own prompt sections. None holds anything that changes between turns of a
 * session on the same day (no clock time, no counters, no message ids), so the provider's
 * prompt cache hits.
 */
export function coreSections(loadBootstrap: BootstrapLoader): PromptSection[] {
  return [
    {
      id: 'identity',
      order: 100,
      render: (context) =>
        `You are ${context.agentName ?? context.agentId}, an assistant reached through Switchboard. Answer in the user's language. Be direct and concise.`,
    },
    { id: 'date', order: 200, render: (context) => `Today is ${context.date} (${context.timeZone}).` },
    {
      id: 'channel',
      order: 300,
      render({ channel }) {
        if (channel === undefined) return undefined;
        const where = channel.chatType === 'direct' ? 'a direct conversation' : `a ${channel.chatType} chat`;
        return `You are talking on ${channel.name}, in ${where}. Your reply is sent there automatically; use the message tool only to reach another conversation or to send before you finish.`;
      },
    },
    {
      id: 'tools',
      order: 400,
      render: ({ tools }) =>
        tools.length === 0
          ? undefined
          : `Tools:\n${tools.map((tool) => `- ${tool.name}: ${tool.description}`).join('\n')}`,
    },
    {
      id: 'reply-rules',
      order: 500,
      render: () =>
        'If nothing needs saying (for example in a group where you were not asked anything), reply with exactly NO_REPLY.',
    },
    {
      id: 'bootstrap-files',
      order: 900,
      async render({ workspaceDir }) {
        const files = await loadBootstrap(workspaceDir);
        if (files.length === 0) return undefined;
        return files
          .map((file) => `## ${file.name}\n${file.text}${file.truncated ? '\n[truncated]' : ''}`)
          .join('\n\n');
      },
    },
  ];
}

interface CachedFile {
  readonly modified: number;
  readonly size: number;
  readonly file: BootstrapFile | undefined;
}

/**
 * Reads an agent's bootstrap files, caching by modification time and size so a turn costs
 * four `stat` calls and the text stays identical until a file changes.
 */
export function createBootstrapLoader(
  maxCharsPerFile = 4000,
  options: { readonly recheckMs?: number; readonly now?: () => number } = {},
): BootstrapLoader {
  const cache = new Map<string, CachedFile>();
  const recheckMs = options.recheckMs ?? 2000;
  const now = options.now ?? Date.now;
  const recent = new Map<string, { readonly at: number; readonly files: BootstrapFile[] }>();

  async function load(workspace: string): Promise<BootstrapFile[]> {
    const files = await Promise.all(
      bootstrapFileNames.map(async (name) => {
        const path = join(workspace, name);
        const info = await stat(path).catch(() => undefined);
        if (info === undefined || !info.isFile()) {
          cache.delete(path);
          return undefined;
        }
        const cached = cache.get(path);
        if (cached !== undefined && cached.modified === info.mtimeMs && cached.size === info.size)
          return cached.file;
        const text = (await readFile(path, 'utf8')).trim();
        const file =
          text.length === 0
            ? undefined
            : { name, text: text.slice(0, maxCharsPerFile), truncated: text.length > maxCharsPerFile };
        cache.set(path, { modified: info.mtimeMs, size: info.size, file });
        return file;
      }),
    );
    return files.filter((file): file is BootstrapFile => file !== undefined);
  }

  return async (workspace) => {
    // A busy session does not re-stat the files on every turn; a change shows within recheckMs.
    const last = recent.get(workspace);
    if (last !== undefined && now() - last.at < recheckMs) return last.files;
    const files = await load(workspace);
    recent.set(workspace, { at: now(), files });
    return files;
  };
}

/** Rough token estimate used for the prompt budget check (4 characters per token). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
