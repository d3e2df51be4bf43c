import { type AnyAgentTool, defineTool } from '@switchboard/core-loop';
import { z } from 'zod';
import type { SendMessage } from '../extensions/tool-registry.ts';
import { type WebFetchOptions, webFetch } from './web-fetch.ts';
import type { WorkspaceFiles } from './workspace-files.ts';

const text = (value: string) => [{ type: 'text' as const, text: value }];

// Schemas live at module level: tools are rebuilt per run, and core-loop caches each schema's
// JSON Schema by object, so the conversion happens once per process.
const readParameters = z.object({
  path: z.string().describe('Path relative to the workspace'),
  offset: z.number().int().positive().optional(),
  limit: z.number().int().positive().optional(),
});
const writeParameters = z.object({ path: z.string(), content: z.string() });
const editParameters = z.object({ path: z.string(), oldText: z.string(), newText: z.string() });
const listParameters = z.object({ path: z.string().default('.') });
const webFetchParameters = z.object({ url: z.string() });
const messageParameters = z.object({
  text: z.string().min(1),
  channel: z.string().optional(),
  accountId: z.string().optional(),
  to: z.string().optional(),
  threadId: z.string().optional(),
});

export interface BuiltinToolsOptions {
  readonly workspace: WorkspaceFiles;
  readonly webFetch?: WebFetchOptions & { readonly enabled?: boolean };
  /** Sends text for the `message` tool; resolves with the platform message ids. Absent: no message tool. */
  readonly sendMessage?: SendMessage;
}

/** The gateway's own tools, confined as ARCHITECTURE §6 requires. */
export function createBuiltinTools(options: BuiltinToolsOptions): AnyAgentTool[] {
  const { workspace } = options;
  const tools: AnyAgentTool[] = [
    defineTool({
      name: 'read',
      description: 'Read a text file from your workspace. Optional 1-based line offset and line limit.',
      parameters: readParameters,
      async execute(_id, args) {
        const result = await workspace.read(args.path, {
          offset: args.offset,
          limit: args.limit,
        });
        return {
          content: text(result.truncated ? `${result.text}\n[truncated]` : result.text),
          // The text goes to the model once, in content; details keep only the facts (no copy).
          details: { path: result.path, characters: result.text.length, truncated: result.truncated },
        };
      },
    }),
    defineTool({
      name: 'write',
      description: 'Create or overwrite a text file in your workspace.',
      parameters: writeParameters,
      async execute(_id, args) {
        const result = await workspace.write(args.path, args.content);
        return { content: text(`Wrote ${result.bytes} bytes to ${result.path}`), details: result };
      },
    }),
    defineTool({
      name: 'edit',
      description: 'Replace one exact, unique piece of text in a workspace file.',
      parameters: editParameters,
      async execute(_id, args) {
        const result = await workspace.edit(args.path, args.oldText, args.newText);
        return { content: text(`Edited ${result.path}`), details: result };
      },
    }),
    defineTool({
      name: 'ls',
      description: 'List a directory of your workspace.',
      parameters: listParameters,
      async execute(_id, args) {
        const result = await workspace.list(args.path);
        const lines = result.entries.map(
          (entry) => `${entry.type === 'directory' ? `${entry.name}/` : entry.name}\t${entry.size}`,
        );
        return { content: text(lines.join('\n') || '(empty)'), details: result };
      },
    }),
  ];

  if (options.webFetch?.enabled !== false) {
    const fetchOptions = options.webFetch ?? {};
    tools.push(
      defineTool({
        name: 'web_fetch',
        description: 'Fetch a public web page (http or https) and return its text.',
        parameters: webFetchParameters,
        async execute(_id, args) {
          const result = await webFetch(args.url, fetchOptions);
          return {
            content: text(
              `${result.status} ${result.url}\n\n${result.text}${result.truncated ? '\n[truncated]' : ''}`,
            ),
            details: {
              url: result.url,
              status: result.status,
              contentType: result.contentType,
              truncated: result.truncated,
            },
          };
        },
      }),
    );
  }

  const sendMessage = options.sendMessage;
  if (sendMessage !== undefined) {
    tools.push(
      defineTool({
        name: 'message',
        description:
          'Send a message now: to the current conversation (no target), or to another conversation (channel and to). Your final answer is delivered anyway; do not repeat what you sent.',
        parameters: messageParameters,
        async execute(_id, args, signal) {
          if ((args.channel === undefined) !== (args.to === undefined)) {
            return {
              content: text('Give both channel and to for another conversation, or neither for this one.'),
              isError: true,
            };
          }
          const target =
            args.channel === undefined || args.to === undefined
              ? undefined
              : {
                  channel: args.channel,
                  to: args.to,
                  accountId: args.accountId,
                  threadId: args.threadId,
                };
          const messageIds = await sendMessage(args.text, target, signal);
          return {
            content: text(`Sent (${messageIds.length} message${messageIds.length === 1 ? '' : 's'}).`),
            details: { messageIds, target },
          };
        },
      }),
    );
  }
  return tools;
}
