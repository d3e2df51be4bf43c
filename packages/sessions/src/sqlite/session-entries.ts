/** Sessions on SQLite: the `sessions` table. */
import {
  applySessionPatch,
  createSessionEntry,
  requireKey,
  resetSessionEntry,
  validateSessionPatch,
} from '../session-entry.ts';
import type { SessionEntryStore } from '../session-store.ts';
import { sessionValues } from '../store-rows.ts';
import type {
  CreateSessionInput,
  DeleteSessionOptions,
  DeleteSessionResult,
  EnsureSessionResult,
  ResetSessionOptions,
  ResetSessionResult,
  SessionEntry,
  SessionListQuery,
  SessionPage,
  SessionPatch,
} from '../types.ts';
import { listSessionPage } from './session-list.ts';
import type { SqliteStoreContext } from './store-context.ts';

export function createSqliteSessionEntries(context: SqliteStoreContext): SessionEntryStore {
  const {
    now,
    createId,
    statement,
    sql,
    run,
    write,
    getSessionRow,
    requireSession,
    checkExpected,
    writeSession,
    archive,
  } = context;
  return {
    async getSession(key: string): Promise<SessionEntry | undefined> {
      return run('getSession', () => getSessionRow(requireKey(key, 'key')));
    },

    async ensureSession(key: string, init: CreateSessionInput): Promise<EnsureSessionResult> {
      // Nearly always the session exists: a read (behind any queued write, so it sees them)
      // answers without a transaction of its own or a wait for the next group commit.
      const found = await run('ensureSession', () => {
        requireKey(key, 'key');
        validateSessionPatch(init, 'init');
        requireKey(init.agentId, 'init.agentId');
        return getSessionRow(key);
      });
      if (found !== undefined) return { entry: found, created: false };
      return write('ensureSession', () => {
        requireKey(key, 'key');
        validateSessionPatch(init, 'init');
        requireKey(init.agentId, 'init.agentId');
        const existing = getSessionRow(key);
        if (existing !== undefined) return { entry: existing, created: false };
        const at = now();
        const entry = createSessionEntry(key, init, createId(), at);
        statement(sql.insertTranscript).run(entry.sessionId, key, entry.agentId, at);
        statement(sql.insertSession).run(...sessionValues(entry));
        return { entry, created: true };
      });
    },

    async patchSession(key: string, patch: SessionPatch, options = {}): Promise<SessionEntry> {
      return write('patchSession', () => {
        requireKey(key, 'key');
        validateSessionPatch(patch);
        const current = requireSession(key, options.expectedSessionId);
        const entry = applySessionPatch(current, patch, now());
        writeSession(entry, current);
        return entry;
      });
    },

    async listSessions(query: SessionListQuery = {}): Promise<SessionPage> {
      return run('listSessions', () => listSessionPage(statement, query));
    },

    async resetSession(key: string, options: ResetSessionOptions = {}): Promise<ResetSessionResult> {
      return write('resetSession', () => {
        requireKey(key, 'key');
        const current = requireSession(key, options.expectedSessionId);
        const at = now();
        archive(current.sessionId, options.reason ?? 'reset', at);
        const entry = resetSessionEntry(current, createId(), at);
        statement(sql.insertTranscript).run(entry.sessionId, key, entry.agentId, at);
        writeSession(entry, current);
        return { entry, previousSessionId: current.sessionId };
      });
    },

    async deleteSession(key: string, options: DeleteSessionOptions = {}): Promise<DeleteSessionResult> {
      return write('deleteSession', () => {
        requireKey(key, 'key');
        const current = getSessionRow(key);
        if (current === undefined) return { deleted: false, archivedSessionId: undefined };
        checkExpected(current, options.expectedSessionId);
        archive(current.sessionId, 'deleted', now());
        statement(sql.deleteSession).run(key);
        return { deleted: true, archivedSessionId: current.sessionId };
      });
    },
  };
}
