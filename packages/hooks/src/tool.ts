import type { z } from 'zod';
import type { ImageContent, TextContent } from './messages.ts';

/**
 * What a tool returns: the content the model sees, optional structured `details` for
 * programs (stored in the transcript, not sent to the model), and whether it is an error
 * result. Throwing from `execute` is allowed too: the agent loop turns the exception into
 * an error result.
 */
export interface ToolResult<Details = unknown> {
  readonly content: ReadonlyArray<TextContent | ImageContent>;
  readonly details?: Details;
  readonly isError?: boolean;
}

/** Called by a long-running tool to report progress (forwarded to operators as tool updates). */
export type ToolUpdateCallback<Details = unknown> = (partial: ToolResult<Details>) => void;

/**
 * The structural shape of an agent tool. A plugin registers it with `api.registerTool`;
 * core-loop's own tool definition satisfies it, so tools move between the two unchanged.
 *
 * The agent loop validates the model's arguments against `parameters` before calling
 * `execute`, so `args` is already the parsed output of the schema.
 */
export interface PluginTool<Parameters extends z.ZodType = z.ZodType, Details = unknown> {
  /** Unique across all plugins; what the model calls. `[A-Za-z0-9_-]`, at most 64 characters. */
  readonly name: string;
  /** A short human label for operator UIs; defaults to `name`. */
  readonly label?: string;
  /** Tells the model when and how to use the tool. */
  readonly description: string;
  /** The arguments, as a zod schema (sent to the model as JSON Schema). */
  readonly parameters: Parameters;
  /**
   * Runs the tool. `signal` aborts when the run is aborted; honour it. `onUpdate` reports
   * progress for long-running tools.
   */
  execute(
    toolCallId: string,
    args: z.output<Parameters>,
    signal: AbortSignal,
    onUpdate: ToolUpdateCallback<Details>,
  ): Promise<ToolResult<Details>>;
}

/** Who and where a tool is being made for, passed to {@link PluginToolFactory.create}. */
export interface ToolContext {
  readonly agentId: string;
  readonly sessionKey: string;
  /** The channel id of the conversation (`telegram`, ...), when the run came from a channel. */
  readonly channel?: string;
  readonly accountId?: string;
  /** The platform id of the sender whose message started the run. */
  readonly senderId?: string;
  /** The agent's workspace folder. */
  readonly workspaceDir?: string;
}

/**
 * A tool that needs to know the session it serves (to key its own state by session, or to
 * offer itself only to some agents). The gateway calls `create` when it assembles the
 * tools of a run; returning `undefined` leaves the tool out of that run. The returned tool
 * must carry the same `name`.
 */
export interface PluginToolFactory {
  readonly name: string;
  create(context: ToolContext): PluginTool | undefined;
}
