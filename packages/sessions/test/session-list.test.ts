import { describe, expect, it } from 'vitest';
import { createClock, openStore } from './helpers.ts';

/**
 * `listSessions` with an offset seeks by activity minute before reading rows
 * (src/sqlite/session-list.ts). These tests check that every page it returns is exactly the
 * slice of the full ordering, whatever the offset, filter, cursor and spread of sessions
 * over minutes (many in one minute, one per minute, empty minutes between).
 */
describe('listSessions pages at an offset', () => {
  async function seeded() {
    const clock = createClock();
    const store = await openStore({ now: clock.now, durability: 'normal' });
    // Minute sizes: a crowded minute (25 sessions), single ones, gaps of empty minutes.
    const minuteSizes = [3, 1, 25, 0, 0, 1, 4, 1, 1, 0, 12, 2, 1, 1, 6];
    let index = 0;
    for (const size of minuteSizes) {
      for (let slot = 0; slot < size; slot += 1) {
        const agentId = index % 3 === 0 ? 'ops' : 'main';
        await store.ensureSession(`agent:${agentId}:s-${String(index).padStart(3, '0')}`, { agentId });
        index += 1;
        // Every other session shares its millisecond with the previous one: ties break by key.
        if (index % 2 === 0) clock.advance(1);
      }
      clock.advance(60_000);
    }
    return { store, clock, total: index };
  }

  it('returns the same rows as the full ordering at every offset, with hasMore and a cursor that continues', async () => {
    const { store, total } = await seeded();
    const everything = (await store.listSessions({ limit: 1000 })).sessions.map((session) => session.key);
    expect(everything).toHaveLength(total);
    for (const limit of [1, 7]) {
      for (let offset = 0; offset <= total + 2; offset += 1) {
        const page = await store.listSessions({ limit, offset, includeTotal: true });
        const expected = everything.slice(offset, offset + limit);
        expect(
          page.sessions.map((session) => session.key),
          `limit ${limit} offset ${offset}`,
        ).toEqual(expected);
        expect(page.hasMore).toBe(offset + limit < total);
        expect(page.totalCount).toBe(total);
        if (page.nextCursor !== undefined) {
          const next = await store.listSessions({ limit: 1, cursor: page.nextCursor });
          expect(next.sessions[0]?.key).toBe(everything[offset + limit]);
        }
      }
    }
  });

  it('applies filters and a cursor before the offset', async () => {
    const { store } = await seeded();
    const ops = (await store.listSessions({ agentId: 'ops', limit: 1000 })).sessions.map(
      (session) => session.key,
    );
    expect(ops.length).toBeGreaterThan(10);
    for (let offset = 0; offset <= ops.length; offset += 1) {
      const page = await store.listSessions({ agentId: 'ops', limit: 4, offset });
      expect(page.sessions.map((session) => session.key)).toEqual(ops.slice(offset, offset + 4));
      expect(page.sessions.every((session) => session.agentId === 'ops')).toBe(true);
    }
    const everything = (await store.listSessions({ limit: 1000 })).sessions.map((session) => session.key);
    const first = await store.listSessions({ limit: 10 });
    const afterCursor = await store.listSessions({ limit: 5, offset: 8, cursor: first.nextCursor });
    expect(afterCursor.sessions.map((session) => session.key)).toEqual(everything.slice(18, 23));
    const search = await store.listSessions({ search: 'S-01', offset: 2, limit: 3 });
    const searched = everything.filter((key) => key.includes('s-01'));
    expect(search.sessions.map((session) => session.key)).toEqual(searched.slice(2, 5));
  });

  it('stays exact after activity moves sessions into newer minutes', async () => {
    const { store, clock } = await seeded();
    // A crowded newest minute: ten sessions touched within it, in an order unlike their keys.
    for (const index of [40, 3, 27, 8, 51, 12, 33, 0, 19, 44]) {
      const agentId = index % 3 === 0 ? 'ops' : 'main';
      await store.patchSession(`agent:${agentId}:s-${String(index).padStart(3, '0')}`, {
        displayName: `touched ${index}`,
      });
      clock.advance(3);
    }
    const everything = (await store.listSessions({ limit: 1000 })).sessions;
    expect(everything[0]?.displayName).toBe('touched 44');
    const keys = everything.map((session) => session.key);
    for (let offset = 0; offset < keys.length; offset += 3) {
      const page = await store.listSessions({ limit: 6, offset });
      expect(page.sessions.map((session) => session.key)).toEqual(keys.slice(offset, offset + 6));
    }
  });
});
