/**
 * The hook runner: holds the handlers of every hook, sorted by priority, and runs them by
 * the rules of the hook's kind (see hook-types.ts). The registry owns one; the gateway
 * calls `run` / `runSync` at each hook point and `has` to skip work when nobody listens.
 */
import {
  type AsyncHookName,
  type BeforeAgentStartResult,
  type BeforeMessageWriteOutcome,
  type BeforeToolCallOutcome,
  type HookContext,
  type HookEvent,
  type HookHandler,
  type HookName,
  type HookOutcome,
  hookDefinitions,
  type InboundClaimOutcome,
  isHookName,
  type MessageSendingOutcome,
  type SyncHookName,
  type ToolResultPersistOutcome,
} from './hook-types.ts';
import { type Logger, noopLogger } from './logger.ts';
import type { Message, ToolResultMessage } from './messages.ts';
import { PluginError, type PluginErrorCode } from './plugin-error.ts';

/** What the gateway calls at each hook point. */
export interface HookRunner {
  /** True when at least one handler is registered for the hook. O(1); call it on hot paths. */
  has(hook: HookName): boolean;
  /**
   * Runs the handlers of an asynchronous hook and resolves with the merged outcome. Never
   * rejects: handler failures are logged (and, for `before_tool_call`, turned into a block).
   */
  run<Name extends AsyncHookName>(hook: Name, event: HookEvent<Name>): Promise<HookOutcome<Name>>;
  /** Runs the handlers of a sync hook (`tool_result_persist`, `before_message_write`). Never throws. */
  runSync<Name extends SyncHookName>(hook: Name, event: HookEvent<Name>): HookOutcome<Name>;
}

/** A registered handler as the runner sees it, for status and introspection. */
export interface HookHandlerInfo {
  readonly hook: HookName;
  readonly plugin: string;
  readonly priority: number;
  /** The effective timeout in ms; `undefined` for sync hooks. */
  readonly timeoutMs: number | undefined;
}

/** Options of {@link HookBus.add}. */
export interface AddHookHandlerOptions {
  /** The plugin the handler belongs to: named in logs, and what `removePlugin` removes. */
  readonly plugin: string;
  readonly priority?: number;
  /** The effective timeout; defaults to the hook's default. Ignored for sync hooks. */
  readonly timeoutMs?: number;
}

/** Why a handler did not produce a result. */
export type HookFailureKind = 'error' | 'timeout' | 'promise-in-sync-hook';

/** A failed handler, reported to {@link CreateHookBusOptions.onFailure}. */
export interface HookFailure {
  readonly hook: HookName;
  readonly plugin: string;
  readonly kind: HookFailureKind;
  readonly error?: unknown;
}

/** The runner plus the means to add and remove handlers. */
export interface HookBus extends HookRunner {
  /** Adds a handler; returns a function that removes exactly this handler. */
  add<Name extends HookName>(
    hook: Name,
    handler: HookHandler<Name>,
    options: AddHookHandlerOptions,
  ): () => void;
  /** Removes every handler of a plugin; returns how many were removed. */
  removePlugin(plugin: string): number;
  /** The handlers of a hook (or of every hook), in the order they run. */
  handlers(hook?: HookName): readonly HookHandlerInfo[];
}

export interface CreateHookBusOptions {
  /** Where handler failures and warnings go. Defaults to a no-op logger. */
  readonly logger?: Logger;
  /** Called for every failed handler (the registry counts them per plugin). */
  readonly onFailure?: (failure: HookFailure) => void;
}

type AnyHandler = (event: unknown, context: HookContext) => unknown;

interface Registration extends HookHandlerInfo {
  readonly handler: AnyHandler;
  readonly sequence: number;
}

type Settled = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

const neverAborted: AbortSignal = new AbortController().signal;
const resolvedVoid: Promise<void> = Promise.resolve();
const emptyList: readonly Registration[] = Object.freeze([]);

class HandlerContext implements HookContext {
  readonly hook: HookName;
  readonly plugin: string;
  private controller: AbortController | undefined;

  constructor(hook: HookName, plugin: string) {
    this.hook = hook;
    this.plugin = plugin;
  }

  // Created on first use: most handlers never look at their signal.
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    this.controller ??= new AbortController();
    this.controller.abort(reason);
  }
}

class SyncHandlerContext implements HookContext {
  readonly hook: HookName;
  readonly plugin: string;
  readonly signal: AbortSignal = neverAborted;

  constructor(hook: HookName, plugin: string) {
    this.hook = hook;
    this.plugin = plugin;
  }
}

/**
 * Creates a hook bus. Handlers are kept per hook in arrays sorted by priority (higher
 * first, then registration order) and replaced on every change, so a run that is under
 * way keeps the list it started with.
 */
export function createHookBus(options: CreateHookBusOptions = {}): HookBus {
  const logger = options.logger ?? noopLogger;
  const onFailure = options.onFailure;
  const table = new Map<HookName, readonly Registration[]>();
  let sequence = 0;

  const listFor = (hook: HookName): readonly Registration[] => table.get(hook) ?? emptyList;

  const report = (registration: Registration, kind: HookFailureKind, error?: unknown): void => {
    const fields = { plugin: registration.plugin, hook: registration.hook };
    if (kind === 'error') {
      logger.error(`Hook handler of plugin "${registration.plugin}" failed in ${registration.hook}`, {
        ...fields,
        code: 'PLUGIN_HOOK_FAILED' satisfies PluginErrorCode,
        error,
      });
    } else if (kind === 'timeout') {
      logger.warn(
        `Hook handler of plugin "${registration.plugin}" timed out after ${registration.timeoutMs} ms in ${registration.hook}`,
        {
          ...fields,
          code: 'PLUGIN_HOOK_TIMEOUT' satisfies PluginErrorCode,
          timeoutMs: registration.timeoutMs,
        },
      );
    } else {
      logger.warn(
        `Hook handler of plugin "${registration.plugin}" returned a promise from the sync hook ${registration.hook}; its result is ignored`,
        fields,
      );
    }
    onFailure?.({ hook: registration.hook, plugin: registration.plugin, kind, error });
  };

  const warnResult = (registration: Registration, problem: string): void => {
    logger.warn(
      `Hook handler of plugin "${registration.plugin}" returned ${problem} in ${registration.hook}; ignored`,
      {
        plugin: registration.plugin,
        hook: registration.hook,
      },
    );
  };

  /** Calls an asynchronous-hook handler with its timeout; never rejects. */
  const invoke = (registration: Registration, event: unknown): Settled | Promise<Settled> => {
    const context = new HandlerContext(registration.hook, registration.plugin);
    let returned: unknown;
    try {
      returned = registration.handler(event, context);
    } catch (error) {
      report(registration, 'error', error);
      return { ok: false };
    }
    if (!isThenable(returned)) return { ok: true, value: returned };
    const timeoutMs = registration.timeoutMs;
    return new Promise<Settled>((resolve) => {
      let settled = false;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              if (settled) return;
              settled = true;
              const reason = new PluginError(
                'PLUGIN_HOOK_TIMEOUT',
                `Hook handler of plugin "${registration.plugin}" timed out after ${timeoutMs} ms in ${registration.hook}`,
                { details: { plugin: registration.plugin, hook: registration.hook, timeoutMs } },
              );
              context.abort(reason);
              report(registration, 'timeout', reason);
              resolve({ ok: false });
            }, timeoutMs);
      returned.then(
        (value) => {
          if (settled) return;
          settled = true;
          if (timer !== undefined) clearTimeout(timer);
          resolve({ ok: true, value });
        },
        (error: unknown) => {
          if (settled) {
            logger.debug(`Hook handler of plugin "${registration.plugin}" rejected after its timeout`, {
              plugin: registration.plugin,
              hook: registration.hook,
              error,
            });
            return;
          }
          settled = true;
          if (timer !== undefined) clearTimeout(timer);
          report(registration, 'error', error);
          resolve({ ok: false });
        },
      );
    });
  };

  /** Calls a sync-hook handler; a promise result is ignored with a warning. */
  const invokeSync = (registration: Registration, event: unknown): Settled => {
    let returned: unknown;
    try {
      returned = registration.handler(event, new SyncHandlerContext(registration.hook, registration.plugin));
    } catch (error) {
      report(registration, 'error', error);
      return { ok: false };
    }
    if (isThenable(returned)) {
      // Keep a late rejection from becoming an unhandled rejection.
      returned.then(undefined, (error: unknown) =>
        logger.debug(`Ignored promise of plugin "${registration.plugin}" rejected`, {
          plugin: registration.plugin,
          hook: registration.hook,
          error,
        }),
      );
      report(registration, 'promise-in-sync-hook');
      return { ok: false };
    }
    return { ok: true, value: returned };
  };

  // -------------------------------------------------------------------------------------
  // Per-hook runners
  // -------------------------------------------------------------------------------------

  const runObserve = (list: readonly Registration[], event: unknown): Promise<void> => {
    if (list.length === 0) return resolvedVoid;
    const pending: Array<Promise<Settled>> = [];
    for (const registration of list) {
      const settled = invoke(registration, event);
      if (settled instanceof Promise) pending.push(settled);
    }
    return pending.length === 0 ? resolvedVoid : Promise.all(pending).then(() => undefined);
  };

  const readString = (registration: Registration, result: object, key: string): string | undefined => {
    const value = (result as Record<string, unknown>)[key];
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    warnResult(registration, `a non-string "${key}"`);
    return undefined;
  };

  const readResult = (registration: Registration, settled: Settled): object | undefined => {
    if (!settled.ok || settled.value === undefined || settled.value === null) return undefined;
    if (typeof settled.value === 'object') return settled.value;
    warnResult(registration, `a ${typeof settled.value} instead of an object`);
    return undefined;
  };

  const modelFields = ['modelOverride', 'providerOverride'] as const;
  const promptContextFields = [
    'prependContext',
    'appendContext',
    'prependSystemContext',
    'appendSystemContext',
  ] as const;

  /** Merges modify results: model fields and systemPrompt first-set-wins; contexts joined. */
  const runModify = async (
    list: readonly Registration[],
    event: unknown,
    fields: { model: boolean; prompt: boolean },
  ): Promise<BeforeAgentStartResult> => {
    const merged: Record<string, string> = {};
    const contexts: Record<string, string[]> = {};
    for (const registration of list) {
      const result = readResult(registration, await invoke(registration, event));
      if (result === undefined) continue;
      if (fields.model) {
        for (const key of modelFields) {
          const value = readString(registration, result, key);
          if (value !== undefined && merged[key] === undefined) merged[key] = value;
        }
      }
      if (fields.prompt) {
        const systemPrompt = readString(registration, result, 'systemPrompt');
        if (systemPrompt !== undefined && merged.systemPrompt === undefined)
          merged.systemPrompt = systemPrompt;
        for (const key of promptContextFields) {
          const value = readString(registration, result, key);
          if (value === undefined || value === '') continue;
          const parts = contexts[key];
          if (parts === undefined) contexts[key] = [value];
          else parts.push(value);
        }
      }
    }
    for (const [key, parts] of Object.entries(contexts)) merged[key] = parts.join('\n\n');
    return merged;
  };

  const runInboundClaim = async (
    list: readonly Registration[],
    event: unknown,
  ): Promise<InboundClaimOutcome> => {
    for (const registration of list) {
      const result = readResult(registration, await invoke(registration, event));
      if (result === undefined || (result as { handled?: unknown }).handled !== true) continue;
      const reply = readString(registration, result, 'reply');
      return reply === undefined
        ? { handled: true, plugin: registration.plugin }
        : { handled: true, plugin: registration.plugin, reply };
    }
    return { handled: false };
  };

  const runMessageSending = async (
    list: readonly Registration[],
    event: HookEvent<'message_sending'>,
  ): Promise<MessageSendingOutcome> => {
    let current = event;
    for (const registration of list) {
      const result = readResult(registration, await invoke(registration, current));
      if (result === undefined) continue;
      if ((result as { cancel?: unknown }).cancel === true) {
        const reason = readString(registration, result, 'cancelReason');
        return reason === undefined
          ? { cancel: true, plugin: registration.plugin }
          : { cancel: true, plugin: registration.plugin, reason };
      }
      const text = readString(registration, result, 'text');
      if (text === undefined) continue;
      const message =
        current.message.kind === 'text'
          ? { ...current.message, text }
          : { ...current.message, caption: text };
      current = { ...current, message };
    }
    return { cancel: false, message: current.message };
  };

  const runBeforeToolCall = async (
    list: readonly Registration[],
    event: HookEvent<'before_tool_call'>,
  ): Promise<BeforeToolCallOutcome> => {
    let current = event;
    for (const registration of list) {
      const settled = await invoke(registration, current);
      if (!settled.ok) {
        // Fail closed: a policy plugin that crashed or hung must not let the call through.
        return {
          block: true,
          plugin: registration.plugin,
          reason: `Tool call blocked: the policy hook of plugin "${registration.plugin}" failed`,
        };
      }
      const result = readResult(registration, settled);
      if (result === undefined) continue;
      if ((result as { block?: unknown }).block === true) {
        return {
          block: true,
          plugin: registration.plugin,
          reason: readString(registration, result, 'blockReason') ?? 'Tool call blocked by a policy hook',
        };
      }
      const params = (result as { params?: unknown }).params;
      if (params === undefined) continue;
      if (!isRecord(params)) {
        warnResult(registration, 'non-object "params"');
        continue;
      }
      current = { ...current, params };
    }
    return { block: false, params: current.params };
  };

  const runToolResultPersist = (
    list: readonly Registration[],
    event: HookEvent<'tool_result_persist'>,
  ): ToolResultPersistOutcome => {
    let current = event;
    for (const registration of list) {
      const result = readResult(registration, invokeSync(registration, current));
      const message = (result as { message?: unknown } | undefined)?.message;
      if (message === undefined) continue;
      if (!isSameToolResult(message, current.message)) {
        warnResult(registration, 'a message with another role, toolCallId or toolName');
        continue;
      }
      current = { ...current, message };
    }
    return { message: current.message };
  };

  const runBeforeMessageWrite = (
    list: readonly Registration[],
    event: HookEvent<'before_message_write'>,
  ): BeforeMessageWriteOutcome => {
    let current = event;
    for (const registration of list) {
      const result = readResult(registration, invokeSync(registration, current));
      if (result === undefined) continue;
      if ((result as { block?: unknown }).block === true) return { block: true, plugin: registration.plugin };
      const message = (result as { message?: unknown }).message;
      if (message === undefined) continue;
      if (!isRecord(message) || message.role !== current.message.role) {
        warnResult(registration, 'a message with another role');
        continue;
      }
      current = { ...current, message: message as unknown as Message };
    }
    return { block: false, message: current.message };
  };

  // -------------------------------------------------------------------------------------

  const run = (hook: AsyncHookName, event: unknown): Promise<unknown> => {
    const list = listFor(hook);
    switch (hook) {
      case 'inbound_claim':
        return list.length === 0 ? Promise.resolve({ handled: false }) : runInboundClaim(list, event);
      case 'message_sending': {
        const sending = event as HookEvent<'message_sending'>;
        return list.length === 0
          ? Promise.resolve({ cancel: false, message: sending.message })
          : runMessageSending(list, sending);
      }
      case 'before_tool_call': {
        const call = event as HookEvent<'before_tool_call'>;
        return list.length === 0
          ? Promise.resolve({ block: false, params: call.params })
          : runBeforeToolCall(list, call);
      }
      case 'before_model_resolve':
        return list.length === 0
          ? Promise.resolve({})
          : runModify(list, event, { model: true, prompt: false });
      case 'before_prompt_build':
        return list.length === 0
          ? Promise.resolve({})
          : runModify(list, event, { model: false, prompt: true });
      case 'before_agent_start':
        return list.length === 0
          ? Promise.resolve({})
          : runModify(list, event, { model: true, prompt: true });
      default:
        return runObserve(list, event);
    }
  };

  const runSync = (hook: SyncHookName, event: unknown): unknown => {
    const list = listFor(hook);
    if (hook === 'tool_result_persist') {
      const persist = event as HookEvent<'tool_result_persist'>;
      return list.length === 0 ? { message: persist.message } : runToolResultPersist(list, persist);
    }
    const write = event as HookEvent<'before_message_write'>;
    return list.length === 0 ? { block: false, message: write.message } : runBeforeMessageWrite(list, write);
  };

  const bus: HookBus = {
    has: (hook) => listFor(hook).length > 0,

    run: run as HookRunner['run'],

    runSync: runSync as HookRunner['runSync'],

    add(hook, handler, addOptions) {
      if (!isHookName(hook)) {
        throw new PluginError(
          'PLUGIN_UNKNOWN_HOOK',
          `Plugin "${addOptions.plugin}" listens to unknown hook "${String(hook)}"`,
          {
            details: { plugin: addOptions.plugin, hook: String(hook) },
          },
        );
      }
      if (typeof handler !== 'function') {
        throw new PluginError(
          'PLUGIN_INVALID_REGISTRATION',
          `Plugin "${addOptions.plugin}" registered a ${typeof handler} as its ${hook} handler; expected a function`,
          { details: { plugin: addOptions.plugin, hook } },
        );
      }
      const definition = hookDefinitions[hook];
      const registration: Registration = {
        hook,
        plugin: addOptions.plugin,
        priority: addOptions.priority ?? 0,
        timeoutMs: definition.kind === 'sync' ? undefined : (addOptions.timeoutMs ?? definition.timeoutMs),
        handler: handler as AnyHandler,
        sequence: sequence++,
      };
      const next = [...listFor(hook), registration].sort(
        (left, right) => right.priority - left.priority || left.sequence - right.sequence,
      );
      table.set(hook, next);
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        const remaining = listFor(hook).filter((entry) => entry !== registration);
        if (remaining.length === 0) table.delete(hook);
        else table.set(hook, remaining);
      };
    },

    removePlugin(plugin) {
      let count = 0;
      for (const [hook, list] of table) {
        const remaining = list.filter((entry) => entry.plugin !== plugin);
        count += list.length - remaining.length;
        if (remaining.length === 0) table.delete(hook);
        else if (remaining.length !== list.length) table.set(hook, remaining);
      }
      return count;
    },

    handlers(hook) {
      const lists = hook === undefined ? [...table.values()] : [listFor(hook)];
      return lists.flat().map(({ hook: name, plugin, priority, timeoutMs }) => ({
        hook: name,
        plugin,
        priority,
        timeoutMs,
      }));
    },
  };
  return bus;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSameToolResult(candidate: unknown, original: ToolResultMessage): candidate is ToolResultMessage {
  return (
    isRecord(candidate) &&
    candidate.role === 'toolResult' &&
    candidate.toolCallId === original.toolCallId &&
    candidate.toolName === original.toolName
  );
}
