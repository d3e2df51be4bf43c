import type { SessionEntry } from '@switchboard/sessions';
import { z } from 'zod';
import { GatewayError } from '../gateway-error.ts';
import { defineMethod, type GatewayMethod } from '../protocol/method-contract.ts';
import type { MethodServices } from './context.ts';

function row(entry: SessionEntry, activeRunIds: readonly string[]): Record<string, unknown> {
  return {
    key: entry.key,
    sessionId: entry.sessionId,
    agentId: entry.agentId,
    updatedAt: entry.updatedAt,
    createdAt: entry.createdAt,
    chatType: entry.chatType,
    channel: entry.channel,
    label: entry.label,
    displayName: entry.displayName,
    modelProvider: entry.modelProvider,
    model: entry.model,
    thinkingLevel: entry.thinkingLevel,
    inputTokens: entry.tokens.input,
    outputTokens: entry.tokens.output,
    contextTokens: entry.tokens.context,
    compactionCount: entry.compactionCount,
    hasActiveRun: activeRunIds.length > 0,
    ...(activeRunIds.length === 0 ? {} : { activeRunIds }),
  };
}

/** Longest session label `sessions.patch` stores, after trimming (as OpenClaw's gateway). */
const sessionLabelMaxLength = 64;

/**
 * `sessions.list`, `sessions.patch` (the label), `sessions.reset`, `sessions.delete`,
 * `sessions.compact`, plus `sessions.export`.
 */
export function sessionMethods(services: MethodServices): GatewayMethod[] {
  const resolve = (key: string, agentId?: string) => services.inbound.resolveSession(key, agentId);
  return [
    defineMethod({
      name: 'sessions.list',
      scope: 'operator.read',
      params: z.looseObject({
        limit: z.number().int().min(1).max(1000).optional(),
        offset: z.number().int().nonnegative().optional(),
        /**
         * A Switchboard addition to OpenClaw's params: the `nextCursor` of the previous page.
         * The page continues after that row however sessions moved meanwhile (an offset can
         * repeat or skip rows when sessions are updated between pages); `offset` then counts
         * from the cursor.
         */
        cursor: z.string().min(1).optional(),
        agentId: z.string().optional(),
        search: z.string().optional(),
        label: z.string().optional(),
        activeMinutes: z.number().positive().optional(),
      }),
      async handle(params) {
        const limit = params.limit ?? 50;
        const page = await services.store.listSessions({
          limit,
          offset: params.offset,
          cursor: params.cursor,
          agentId: params.agentId,
          search: params.search,
          label: params.label,
          updatedSince:
            params.activeMinutes === undefined ? undefined : services.now() - params.activeMinutes * 60_000,
          includeTotal: true,
        });
        const sessions = page.sessions.map((entry) =>
          row(
            entry,
            services.runs.activeForSession(entry.key).map((run) => run.runId),
          ),
        );
        return {
          ts: services.now(),
          path: services.store.location,
          count: sessions.length,
          totalCount: page.totalCount,
          limitApplied: limit,
          hasMore: page.hasMore,
          // An offset counts from the start of the list only when no cursor was sent.
          nextOffset:
            page.hasMore && params.cursor === undefined ? (params.offset ?? 0) + sessions.length : null,
          nextCursor: page.nextCursor ?? null,
          sessions,
        };
      },
    }),
    defineMethod({
      // OpenClaw's sessions.patch takes more fields (thinkingLevel, model, …); only the label
      // is supported here, and any other field is refused rather than silently ignored.
      name: 'sessions.patch',
      scope: 'operator.write',
      params: z.strictObject({
        key: z.string().min(1),
        agentId: z.string().optional(),
        /** A name for the session (WebChat shows it as the chat title); `null` clears it. */
        label: z
          .string()
          .trim()
          .min(1, 'label must not be empty (send null to clear it)')
          .max(sessionLabelMaxLength, `label must be at most ${sessionLabelMaxLength} characters`)
          .nullable()
          .optional(),
      }),
      async handle(params) {
        const { sessionKey } = resolve(params.key, params.agentId);
        if ((await services.store.getSession(sessionKey)) === undefined)
          throw new GatewayError('NOT_FOUND', `session ${sessionKey} does not exist`);
        const entry = await services.store.patchSession(
          sessionKey,
          params.label === undefined ? {} : { label: params.label },
        );
        return {
          ok: true,
          path: services.store.location,
          key: sessionKey,
          entry: row(
            entry,
            services.runs.activeForSession(sessionKey).map((run) => run.runId),
          ),
        };
      },
    }),
    defineMethod({
      name: 'sessions.reset',
      scope: 'operator.admin',
      params: z.looseObject({
        key: z.string().min(1),
        agentId: z.string().optional(),
        reason: z.enum(['new', 'reset']).optional(),
        expectedSessionId: z.string().optional(),
      }),
      async handle(params) {
        const { sessionKey, agentId } = resolve(params.key, params.agentId);
        if ((await services.store.getSession(sessionKey)) === undefined)
          throw new GatewayError('NOT_FOUND', `session ${sessionKey} does not exist`);
        services.dispatcher.abort(sessionKey, { clearQueue: true });
        const reason = params.reason ?? 'reset';
        if (services.hooks.has('before_reset')) {
          const context = await services.store.buildContext(sessionKey);
          await services.hooks.run('before_reset', {
            sessionKey,
            agentId,
            reason,
            messages: context.messages,
          });
        }
        const result = await services.store.resetSession(sessionKey, {
          reason,
          expectedSessionId: params.expectedSessionId,
        });
        if (services.hooks.has('session_end'))
          void services.hooks.run('session_end', {
            sessionKey,
            agentId,
            sessionId: result.previousSessionId,
            reason,
          });
        if (services.hooks.has('session_start'))
          void services.hooks.run('session_start', {
            sessionKey,
            agentId,
            sessionId: result.entry.sessionId,
          });
        return {
          ok: true,
          key: sessionKey,
          entry: { sessionId: result.entry.sessionId, previousSessionId: result.previousSessionId },
        };
      },
    }),
    defineMethod({
      name: 'sessions.delete',
      scope: 'operator.admin',
      params: z.looseObject({
        key: z.string().min(1),
        agentId: z.string().optional(),
        expectedSessionId: z.string().optional(),
      }),
      async handle(params) {
        const { sessionKey, agentId } = resolve(params.key, params.agentId);
        services.dispatcher.abort(sessionKey, { clearQueue: true });
        const result = await services.store.deleteSession(sessionKey, {
          expectedSessionId: params.expectedSessionId,
        });
        if (result.deleted && result.archivedSessionId !== undefined && services.hooks.has('session_end')) {
          void services.hooks.run('session_end', {
            sessionKey,
            agentId,
            sessionId: result.archivedSessionId,
            reason: 'deleted',
          });
        }
        return {
          ok: true,
          key: sessionKey,
          deleted: result.deleted,
          archived: result.archivedSessionId === undefined ? [] : [result.archivedSessionId],
        };
      },
    }),
    defineMethod({
      name: 'sessions.compact',
      scope: 'operator.admin',
      params: z.looseObject({ key: z.string().min(1), agentId: z.string().optional() }),
      async handle(params) {
        const { sessionKey, agentId } = resolve(params.key, params.agentId);
        if ((await services.store.getSession(sessionKey)) === undefined)
          throw new GatewayError('NOT_FOUND', `session ${sessionKey} does not exist`);
        return { ok: true, key: sessionKey, ...(await services.compactSession(sessionKey, agentId)) };
      },
    }),
    defineMethod({
      name: 'sessions.export',
      scope: 'operator.read',
      params: z.looseObject({
        key: z.string().min(1),
        agentId: z.string().optional(),
        sessionId: z.string().optional(),
        /** Page size; without it the whole transcript comes in one answer. */
        limit: z.number().int().min(1).max(10_000).optional(),
        fromSequence: z.number().int().min(1).optional(),
      }),
      async handle(params) {
        const { sessionKey } = resolve(params.key, params.agentId);
        const session = await services.store.getSession(sessionKey);
        const sessionId = params.sessionId ?? session?.sessionId;
        if (sessionId === undefined)
          throw new GatewayError('NOT_FOUND', `session ${sessionKey} does not exist`);
        if (params.limit === undefined && params.fromSequence === undefined) {
          const entries = [];
          for await (const entry of services.store.streamTranscript(sessionId)) entries.push(entry);
          return { key: sessionKey, sessionId, entries };
        }
        const info = await services.store.getTranscript(sessionId);
        if (info === undefined) throw new GatewayError('NOT_FOUND', `transcript ${sessionId} does not exist`);
        const entries = await services.store.readTranscript(sessionId, {
          fromSequence: params.fromSequence ?? 1,
          limit: params.limit ?? 2000,
        });
        const last = entries.at(-1)?.sequence;
        const nextSequence = last !== undefined && last < info.lastSequence ? last + 1 : null;
        return { key: sessionKey, sessionId, entries, totalEntries: info.entryCount, nextSequence };
      },
    }),
  ];
}
