// What a feature package plugs into (decision 0013). A gateway extension is the gateway-side
// adapter of one capability (providers, sandbox, skills, memory, MCP, schedules, subagents):
// it reads its config section and registers tools, prompt sections and model APIs. The run
// orchestrator never learns about a feature; adding one is a file here and a line in
// builtin-extensions.ts.
import type { HookRunner, Logger, PluginRegistry } from '@switchboard/hooks';
import type { SessionDispatcher, SessionStore } from '@switchboard/sessions';
import type { GatewayConfig } from '../config/schema.ts';
import type { Inbound } from '../runtime/inbound.ts';
import type { SendOutbound } from '../runtime/outbound.ts';
import type { RunRegistry } from '../runtime/runs.ts';
import type { TurnInput } from '../runtime/turn-input.ts';
import type { ModelProviderRegistry } from './model-providers.ts';
import type { PromptSectionRegistry } from './prompt-sections.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** The running gateway, for extensions that start turns or send on their own (schedules, subagents). */
export interface ExtensionRuntime {
  /** Enters a turn the way `chat.send` does (journal, queue, run). */
  readonly inbound: Inbound;
  readonly runs: RunRegistry;
  /** Sends to a channel with delivery receipts. */
  readonly send: SendOutbound;
  /** Sends an event to operator clients. */
  broadcast(event: string, payload: unknown): void;
  /** The session queues: abort a session's run (`abort`), inspect them (`stats`). */
  readonly dispatcher: SessionDispatcher<TurnInput>;
}

/**
 * What `setup` receives. Contract: `setup` registers and returns quickly; it does no network
 * or disk work for a feature the config leaves off (a gateway that does not use a feature
 * must not pay for it), and defers connections to `onStart` or to first use.
 */
export interface ExtensionContext {
  /** The config in force; a reload swaps it, so read it when you use it. */
  readonly config: () => GatewayConfig;
  readonly stateDirectory: string;
  readonly store: SessionStore;
  readonly logger: Logger;
  readonly hooks: HookRunner;
  /** The plugins' registrations (their tools, commands, skill folders…). */
  readonly plugins: PluginRegistry;
  readonly now: () => number;
  readonly tools: ToolRegistry;
  readonly promptSections: PromptSectionRegistry;
  readonly modelProviders: ModelProviderRegistry;
  readonly workspaceFor: (agentId: string) => string;
  /** Runs once the gateway is listening and recovery has been queued. */
  onStart(callback: (runtime: ExtensionRuntime) => void | Promise<void>): void;
  /** Runs at close, after running turns drained, in reverse order of registration. */
  onStop(callback: () => void | Promise<void>): void;
}

export interface GatewayExtension {
  /** Unique; names the extension in logs. */
  readonly id: string;
  setup(context: ExtensionContext): void | Promise<void>;
}
