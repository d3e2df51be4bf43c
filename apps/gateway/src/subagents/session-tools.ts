// The session tools for agent-to-agent work (OpenClaw's names and parameters):
// `sessions_list`, `sessions_history`, `sessions_send`, `session_status`, `agents_list`.
// Scope: an agent sees its own agent's sessions, and another agent's only where its
// `subagents.allowAgents` names that agent (decision 0017). `sessions_send` enters a turn in
// the target session through the inbound journal (like a subagent announcement), so a crash
// neither loses nor repeats it.
import { createHash } from 'node:crypto';
import { type AnyAgentTool, defineTool } from '@switchboard/core-loop';
import type { SessionEntry, SessionStore } from '@switchboard/sessions';
import { z } from 'zod';
import type { GatewayConfig } from '../config/schema.ts';
import type { ExtensionRuntime } from '../extensions/extension.ts';
import { resolveModelReference, resolveThinkingLevel } from '../runtime/model-selection.ts';
import type { RunOutcome } from '../runtime/run/outcome.ts';
import { historyLimits, readHistoryPage } from './session-history.ts';
import {
  configuredAgents,
  mayVisit,
  type SessionKind,
  sessionKindOf,
  sessionKinds,
  visibleAgentsOf,
} from './session-scope.ts';

/** The names of the session tools, for policies and operators. */
export const sessionToolNames = [
  'sessions_list',
  'sessions_history',
  'sessions_send',
  'session_status',
  'agents_list',
] as const;

/** Any one tool answer is cut to this many characters. */
const maxToolOutputChars = 20_000;

export interface SessionToolsScope {
  readonly config: GatewayConfig;
  readonly sessionKey: string;
  readonly agentId: string;
  /** The calling run (part of `sessions_send`'s idempotency key). */
  readonly runId: string;
}

export interface SessionToolsDependencies {
  readonly store: SessionStore;
  /** The running gateway; undefined before it listens. */
  readonly runtime: () => ExtensionRuntime | undefined;
  readonly now: () => number;
}

const listParameters = z.object({
  kinds: z.array(z.enum(sessionKinds as [SessionKind, ...SessionKind[]])).optional(),
  limit: z.number().int().min(1).max(100).optional().describe('Rows (default 20).'),
  activeMinutes: z.number().positive().optional().describe('Only sessions active within N minutes.'),
  messageLimit: z.number().int().min(0).max(5).optional().describe('Include the last N messages (0-5).'),
});

const historyParameters = z.object({
  sessionKey: z.string().min(1).describe('A key from sessions_list ("main" is your main session).'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(historyLimits.maxMessages)
    .optional()
    .describe(`Messages (default ${historyLimits.defaultMessages}).`),
  before: z.number().int().positive().optional().describe('Page back: the nextBefore of the last answer.'),
  includeTools: z.boolean().optional().describe('Include tool results (default false).'),
});

const sendParameters = z.object({
  sessionKey: z.string().min(1),
  message: z.string().min(1).max(20_000),
  timeoutSeconds: z
    .number()
    .min(0)
    .max(300)
    .optional()
    .describe('Wait this long for the reply (default 30); 0 sends without waiting.'),
});

const statusParameters = z.object({
  sessionKey: z.string().min(1).optional().describe('Default: this session.'),
});

/** No parameters; defined once, like the others (a schema built per turn is converted per turn). */
const agentsListParameters = z.object({});

function answer(value: unknown, isError = false) {
  let text = JSON.stringify(value);
  if (text.length > maxToolOutputChars)
    text = `${text.slice(0, maxToolOutputChars)}… [cut at ${maxToolOutputChars} characters]`;
  return { content: [{ type: 'text' as const, text }], ...(isError ? { isError: true } : {}) };
}

function iso(time: number | undefined): string | undefined {
  return time === undefined ? undefined : new Date(time).toISOString();
}

/** The reply text of a run's outcome, and how it ended. */
function replyOf(outcome: RunOutcome): { status: 'ok' | 'error'; reply?: string; error?: string } {
  switch (outcome.status) {
    case 'ok':
      return { status: 'ok', reply: outcome.replies.join('\n\n') };
    case 'compacted':
      return { status: 'ok', reply: outcome.text };
    case 'error':
      return { status: 'error', error: outcome.message ?? 'the run ended: failed' };
    case 'interrupted':
      return { status: 'error', error: 'the gateway shut down during the run; it resumes after the restart' };
    case 'aborted':
      return { status: 'error', error: `the run ended: ${outcome.reason ?? 'aborted'}` };
  }
}

/** The text the target session's agent reads: marked as internal, never a directive. */
function agentMessageText(from: { sessionKey: string; agentId: string }, message: string): string {
  return `[Message from session ${from.sessionKey} (agent ${from.agentId}): internal, not from the user. Your reply goes back to it.]\n${message}`;
}

export function sessionTools(
  dependencies: SessionToolsDependencies,
  scope: SessionToolsScope,
): AnyAgentTool[] {
  const { store, now } = dependencies;
  const { config } = scope;
  /** How often this turn sent each (target, message): part of the send's idempotency key. */
  const sends = new Map<string, number>();

  /** Resolves a key (or `main`) and checks the caller may see it. */
  async function target(
    requested: string,
  ): Promise<{ session: SessionEntry } | { error: string; sessionKey: string }> {
    const runtime = dependencies.runtime();
    const sessionKey =
      runtime === undefined ? requested : runtime.inbound.resolveSession(requested, scope.agentId).sessionKey;
    const session = await store.getSession(sessionKey);
    // A session the caller may not see answers like a missing one: its existence is not disclosed.
    if (session === undefined || !mayVisit(config, scope.agentId, session.agentId))
      return { sessionKey, error: `no session ${sessionKey} that agent "${scope.agentId}" may see` };
    return { session };
  }

  async function row(session: SessionEntry, messageLimit: number) {
    const route = session.lastRoute;
    const kind = sessionKindOf(session);
    return {
      key: session.key,
      kind,
      agentId: session.agentId,
      channel:
        kind === 'subagent' || kind === 'cron'
          ? 'internal'
          : (session.channel ?? route?.channel ?? 'unknown'),
      label: session.label,
      displayName: session.displayName,
      sessionId: session.sessionId,
      updatedAt: iso(session.updatedAt),
      model: resolveModelReference(config, session.agentId, session),
      totalTokens: session.tokens.input + session.tokens.output,
      contextTokens: session.tokens.context,
      lastChannel: route?.channel,
      lastTo: route?.to,
      ...(messageLimit > 0
        ? {
            messages: (await readHistoryPage(store, { sessionId: session.sessionId, limit: messageLimit }))
              .messages,
          }
        : {}),
    };
  }

  return [
    defineTool({
      name: 'sessions_list',
      description:
        "List sessions you may see (your agent's, and agents you may spawn), newest first: key, kind, channel, model, tokens.",
      parameters: listParameters,
      async execute(_id, args) {
        const limit = args.limit ?? 20;
        const visible = visibleAgentsOf(config, scope.agentId);
        const updatedSince =
          args.activeMinutes === undefined ? undefined : now() - args.activeMinutes * 60_000;
        const kinds = args.kinds === undefined ? undefined : new Set(args.kinds);
        const agents = visible === '*' ? [undefined] : [...visible];
        const found: SessionEntry[] = [];
        for (const agentId of agents) {
          let cursor: string | undefined;
          let taken = 0;
          // Pages until `limit` rows of the asked kinds (a kind filter cannot go to the store).
          for (let page = 0; page < 20 && taken < limit; page += 1) {
            const result = await store.listSessions({
              agentId,
              updatedSince,
              limit: 100,
              cursor,
            });
            for (const session of result.sessions) {
              if (taken >= limit) break;
              if (kinds !== undefined && !kinds.has(sessionKindOf(session))) continue;
              found.push(session);
              taken += 1;
            }
            if (!result.hasMore || result.nextCursor === undefined) break;
            cursor = result.nextCursor;
          }
        }
        const newest = found.sort((left, right) => right.updatedAt - left.updatedAt).slice(0, limit);
        const rows = [];
        for (const session of newest) rows.push(await row(session, args.messageLimit ?? 0));
        return answer({ count: rows.length, sessions: rows });
      },
    }),
    defineTool({
      name: 'sessions_history',
      description:
        'Read part of a session transcript, newest page first (at most 50 messages per call; page back with before).',
      parameters: historyParameters,
      async execute(_id, args) {
        const found = await target(args.sessionKey);
        if ('error' in found) return answer({ error: found.error }, true);
        const page = await readHistoryPage(store, {
          sessionId: found.session.sessionId,
          before: args.before,
          limit: args.limit,
          includeTools: args.includeTools,
        });
        return answer({ sessionKey: found.session.key, sessionId: found.session.sessionId, ...page });
      },
    }),
    defineTool({
      name: 'sessions_send',
      description:
        'Send a message into another session; its agent answers in a turn there. Waits for the reply up to timeoutSeconds (default 30; 0: do not wait).',
      parameters: sendParameters,
      async execute(_id, args) {
        const runtime = dependencies.runtime();
        if (runtime === undefined) return answer({ error: 'the gateway is not running yet' }, true);
        const found = await target(args.sessionKey);
        if ('error' in found) return answer({ error: found.error }, true);
        if (found.session.key === scope.sessionKey)
          return answer({ error: 'sessions_send cannot send into your own session' }, true);
        // Journaled under a key of the calling run and what it sends (and how often this turn
        // sent it): when the run is resumed after a crash and sends the same again, the journal
        // knows it, and the call waits for the first one's reply instead of sending twice.
        const digest = createHash('sha256').update(`${found.session.key}\n${args.message}`).digest('hex');
        const occurrence = (sends.get(digest) ?? 0) + 1;
        sends.set(digest, occurrence);
        const admission = await runtime.inbound.submitRpc({
          message: agentMessageText(scope, args.message),
          idempotencyKey: `session-send:${scope.runId}:${digest.slice(0, 32)}:${occurrence}`,
          sessionKey: found.session.key,
          agentId: found.session.agentId,
          deliver: false,
          // The subagent lane: a sender waiting in the main lane never holds the slot its target needs.
          lane: 'subagent',
          channel: 'agent',
        });
        const runId = admission.runId;
        if (admission.status === 'directive') return answer({ runId, status: 'ok', reply: admission.reply });
        if (admission.status === 'finished') return answer({ runId, ...replyOf(admission.outcome) });
        const timeoutSeconds = args.timeoutSeconds ?? 30;
        if (timeoutSeconds === 0) return answer({ runId, status: 'accepted', sessionKey: found.session.key });
        const ended = await runtime.runs.wait(runId, timeoutSeconds * 1000);
        if (ended?.outcome === undefined)
          return answer({
            runId,
            status: 'timeout',
            error: `no reply within ${timeoutSeconds} s; the turn goes on: read it later with sessions_history`,
          });
        const result = replyOf(ended.outcome);
        return answer({ runId, ...result }, result.status === 'error');
      },
    }),
    defineTool({
      name: 'session_status',
      description:
        'The status of a session (default: this one): model, thinking, tokens, whether a run is active.',
      parameters: statusParameters,
      async execute(_id, args) {
        const found = await target(args.sessionKey ?? scope.sessionKey);
        if ('error' in found) return answer({ error: found.error }, true);
        const session = found.session;
        const lane = dependencies.runtime()?.dispatcher.status(session.key);
        return answer({
          sessionKey: session.key,
          kind: sessionKindOf(session),
          agentId: session.agentId,
          sessionId: session.sessionId,
          model: resolveModelReference(config, session.agentId, session),
          thinking: resolveThinkingLevel(config, session.agentId, session),
          tokens: {
            input: session.tokens.input,
            output: session.tokens.output,
            context: session.tokens.context,
            costUsd: session.tokens.costUsd,
          },
          run: lane?.active === undefined ? 'idle' : lane.active.phase,
          queued: lane?.queued ?? 0,
          compactions: session.compactionCount,
          updatedAt: iso(session.updatedAt),
          lastChannel: session.lastRoute?.channel,
          lastTo: session.lastRoute?.to,
        });
      },
    }),
    defineTool({
      name: 'agents_list',
      description: 'The agents you may spawn with sessions_spawn (agentId) and whose sessions you may see.',
      parameters: agentsListParameters,
      async execute() {
        const visible = visibleAgentsOf(config, scope.agentId);
        const own = scope.agentId.toLowerCase();
        const agents = configuredAgents(config).filter(
          (agent) => visible === '*' || visible.has(agent.id) || agent.id === own,
        );
        if (!agents.some((agent) => agent.id === own)) agents.unshift({ id: own });
        return answer({
          requester: own,
          allowAny: visible === '*',
          agents: agents.map((agent) => ({ ...agent, self: agent.id === own })),
        });
      },
    }),
  ];
}
