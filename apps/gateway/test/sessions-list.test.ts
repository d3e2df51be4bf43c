// `sessions.list` paging over a real store: OpenClaw's `offset` and Switchboard's `cursor`
// walk the same list; a bad cursor is refused with an error naming it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteSessionStore } from '@switchboard/sessions';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { payloadOf } from './protocol-client.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

interface ListPayload {
  count: number;
  totalCount: number;
  hasMore: boolean;
  nextOffset: number | null;
  nextCursor: string | null;
  sessions: Array<{ key: string; updatedAt: number }>;
}

/** A state directory whose store holds `count` sessions spread unevenly over past minutes. */
async function seededState(count: number): Promise<string> {
  const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-sessions-list-'));
  let clock = Date.now() - 24 * 60 * 60_000;
  const store = await createSqliteSessionStore({
    stateDirectory,
    durability: 'normal',
    lock: { heartbeatMs: 0 },
    now: () => clock,
  });
  for (let index = 0; index < count; index += 1) {
    await store.ensureSession(`agent:main:seeded-${String(index).padStart(3, '0')}`, { agentId: 'main' });
    // Some minutes hold one session, some a dozen.
    clock += index % 13 === 0 ? 60_000 : 7;
  }
  await store.close();
  return stateDirectory;
}

describe('sessions.list paging', () => {
  it('pages by offset and by cursor through the same list, with totals', async () => {
    const total = 90;
    const harness = await startTestGateway({ stateDirectory: await seededState(total) });
    running.push(harness);
    const client = await harness.connect({ scopes: ['operator.read'] });
    const everything = payloadOf<ListPayload>(await client.request('sessions.list', { limit: 1000 }));
    expect(everything.totalCount).toBe(total);
    expect(everything.hasMore).toBe(false);
    expect(everything.nextCursor).toBeNull();
    const keys = everything.sessions.map((session) => session.key);
    expect(new Set(keys).size).toBe(total);

    const byOffset: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: ListPayload = payloadOf<ListPayload>(
        await client.request('sessions.list', { limit: 8, offset }),
      );
      expect(page.totalCount).toBe(total);
      byOffset.push(...page.sessions.map((session) => session.key));
      expect(page.hasMore).toBe(page.nextOffset !== null);
      offset = page.nextOffset;
    }
    expect(byOffset).toEqual(keys);

    const byCursor: string[] = [];
    let cursor: string | null | undefined;
    do {
      const page: ListPayload = payloadOf<ListPayload>(
        await client.request('sessions.list', { limit: 8, ...(cursor ? { cursor } : {}) }),
      );
      byCursor.push(...page.sessions.map((session) => session.key));
      // Cursor pages carry no offset: it would count from the start, not from the cursor.
      if (cursor) expect(page.nextOffset).toBeNull();
      expect(page.hasMore).toBe(page.nextCursor !== null);
      cursor = page.nextCursor;
    } while (cursor);
    expect(byCursor).toEqual(keys);

    // A deep offset returns the same rows as the full list.
    const deep = payloadOf<ListPayload>(await client.request('sessions.list', { limit: 5, offset: 61 }));
    expect(deep.sessions.map((session) => session.key)).toEqual(keys.slice(61, 66));
    expect(deep.nextOffset).toBe(66);
  });

  it('refuses a cursor it did not issue, naming the cursor', async () => {
    const harness = await startTestGateway({ stateDirectory: await seededState(3) });
    running.push(harness);
    const client = await harness.connect({ scopes: ['operator.read'] });
    const refused = await client.request('sessions.list', { cursor: 'not-a-cursor' });
    expect(refused.error?.code).toBe('INVALID_REQUEST');
    expect(refused.error?.message).toContain('cursor');
    expect(refused.error?.details?.code).toBe('SESSIONS_INVALID_ARGUMENT');
  });
});
