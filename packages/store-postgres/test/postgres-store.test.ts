// What the PostgreSQL store adds to the conformance suite: migrations under the advisory
// lock, bad URLs and unreachable servers, the lost instance lock, and the replica listing.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createPostgresSessionStore, type PostgresSessionStore, StorePostgresError } from '../src/index.ts';
import { asSuperuser, freshDatabase, useCluster, waitFor } from './cluster.ts';

const cluster = useCluster();

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error & { code?: string }) => error,
  );
}

describe('PostgreSQL store', () => {
  it('migrates a fresh database once when several replicas start together', async () => {
    const url = await freshDatabase(cluster());
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => createPostgresSessionStore({ url, poolSize: 2 })),
    );
    try {
      const applied = await asSuperuser<{ version: number }>(
        url,
        "SELECT version FROM switchboard_schema_migrations WHERE component = 'sessions' ORDER BY version",
      );
      expect(applied.map((row) => row.version)).toEqual([1, 2, 3]);
      const instances = await stores[0]!.listInstances();
      expect(instances.map((instance) => instance.ownerId).sort()).toEqual(
        stores.map((store) => store.ownerId).sort(),
      );
      expect(instances.every((instance) => instance.alive && instance.pid === process.pid)).toBe(true);
      await stores[1]!.close();
      const after = await stores[0]!.listInstances();
      expect(after.map((instance) => instance.ownerId)).not.toContain(stores[1]!.ownerId);
    } finally {
      for (const store of stores) await store.close();
    }
  });

  it('refuses a database migrated by a newer Switchboard', async () => {
    const url = await freshDatabase(cluster());
    const store = await createPostgresSessionStore({ url });
    await store.close();
    await asSuperuser(
      url,
      "INSERT INTO switchboard_schema_migrations (component, version, name, applied_at) VALUES ('sessions', 99, 'future', 0)",
    );
    const error = await rejection(createPostgresSessionStore({ url }));
    expect(error).toBeInstanceOf(StorePostgresError);
    expect(error.code).toBe('STORE_POSTGRES_SCHEMA_TOO_NEW');
    expect(error.message).toContain('schema version 99');
  });

  it('names a bad URL, and an unreachable server, without showing the password', async () => {
    const bad = await rejection(createPostgresSessionStore({ url: 'mysql://root:pw@localhost/db' }));
    expect(bad.code).toBe('STORE_POSTGRES_INVALID_URL');
    expect(bad.message).toContain('postgres://');
    expect(bad.message).not.toContain(':pw@');
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
      });
    });
    const unreachable = await rejection(
      createPostgresSessionStore({
        url: `postgres://bot:hunter2@127.0.0.1:${port}/switchboard`,
        connectTimeoutMs: 2000,
      }),
    );
    expect(unreachable.code).toBe('STORE_POSTGRES_UNREACHABLE');
    expect(unreachable.message).toContain(`127.0.0.1:${port}`);
    expect(unreachable.message).not.toContain('hunter2');
  });

  it('stops working with SESSIONS_LOCK_LOST when its instance lock connection is cut', async () => {
    const url = await freshDatabase(cluster());
    const errors: Error[] = [];
    const lockLost: (Error & { code?: string })[] = [];
    const store: PostgresSessionStore = await createPostgresSessionStore({
      url,
      onConnectionError: (error) => errors.push(error),
      onLockLost: (error) => lockLost.push(error),
    });
    try {
      await store.putState('ns', 'k', 1);
      const [lock] = await asSuperuser<{ pid: number }>(
        url,
        "SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objid = $1::oid AND l.objsubid = 2",
        [store.instanceId],
      );
      expect(lock).toBeDefined();
      await asSuperuser(url, 'SELECT pg_terminate_backend($1)', [lock!.pid]);
      await waitFor('the store to notice', async () => {
        const outcome = await store.getState('ns', 'k').then(
          () => undefined,
          (error: Error & { code?: string }) => error.code,
        );
        return outcome === 'SESSIONS_LOCK_LOST';
      });
      const [alive] = await asSuperuser<{ alive: boolean }>(
        url,
        'SELECT switchboard_owner_alive($1) AS alive',
        [store.ownerId],
      );
      expect(alive?.alive).toBe(false);
      expect(errors.length).toBeGreaterThan(0);
      // Told once, so the gateway can stop and start afresh.
      expect(lockLost.map((error) => error.code)).toEqual(['SESSIONS_LOCK_LOST']);
    } finally {
      await store.close();
    }
  });

  it('keeps its lock through a start-up that starves the event loop, and is held to the short timeout once started', async () => {
    const url = await freshDatabase(cluster());
    const store = await createPostgresSessionStore({
      url,
      livenessTimeoutMs: 1000,
      startupLivenessTimeoutMs: 30_000,
    });
    /** Keeps the event loop busy, as loading a gateway's plugins does on a loaded host. */
    const starve = (ms: number): void => {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        // busy
      }
    };
    try {
      starve(2500);
      // Silent for longer than livenessTimeoutMs: one round trip shows the lock is still held.
      await store.putState('ns', 'k', 1);
      await store.started();
      starve(2500);
      const error = await store.putState('ns', 'k', 2).then(
        () => undefined,
        (failure: Error & { code?: string }) => failure,
      );
      expect(error?.code).toBe('SESSIONS_LOCK_LOST');
      expect(error?.message).toContain('did not answer');
    } finally {
      await store.close();
    }
  });

  it('refuses to close a journal record once the database no longer lists its instance as alive, before it noticed itself', async () => {
    // The soak of decision 0021 lost messages this way: a replica cut off from PostgreSQL
    // reconnected its pool and marked records `replied` whose replies its fenced sends never
    // made, before its lock connection reported the cut. Deleting its instance row makes the
    // database answer "not alive" while its own lock connection still looks healthy.
    const url = await freshDatabase(cluster());
    const store = await createPostgresSessionStore({ url });
    const other = await createPostgresSessionStore({ url });
    try {
      const ref = { channel: 'telegram', accountId: 'polling', messageId: '7:1' };
      await store.journalInbound({ ...ref, sessionKey: 'agent:main:one', payload: { text: 'hi' } });
      await asSuperuser(url, 'DELETE FROM store_instances WHERE owner_id = $1', [store.ownerId]);
      const refused = await store.updateInbound(ref, 'replied').then(
        () => undefined,
        (error: Error & { code?: string }) => error,
      );
      expect(refused?.code).toBe('SESSIONS_LOCK_LOST');
      expect(refused?.message).toContain('updateInbound');
      // Every later operation is refused too, without asking the database again.
      const next = await store.getState('ns', 'k').then(
        () => undefined,
        (error: Error & { code?: string }) => error.code,
      );
      expect(next).toBe('SESSIONS_LOCK_LOST');
      // The record is still open, and another replica takes it over to answer it.
      const taken = await other.listUnfinishedInbound();
      expect(taken.map((record) => [record.messageId, record.state])).toEqual([['7:1', 'received']]);
    } finally {
      await store.close();
      await other.close();
    }
  });

  it.each([
    ['a store operation', 'try'],
    ['the check before a platform send (confirmLockHeld)', 'confirm'],
  ])(
    'hands a paused replica’s work to another after the liveness timeout; when it wakes, %s is refused',
    async (_what, first) => {
      const url = await freshDatabase(cluster());
      const watcher = await createPostgresSessionStore({ url });
      const child = spawn(
        process.execPath,
        [
          '--conditions=@switchboard/source',
          join(import.meta.dirname, 'fixtures', 'replica.ts'),
          url,
          '1500',
        ],
        { stdio: ['pipe', 'pipe', 'inherit'] },
      );
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      const nextLine = async (): Promise<string> => String((await lines.next()).value);
      try {
        expect(await nextLine()).toMatch(/^ready /);
        expect(await watcher.listUnfinishedInbound()).toEqual([]);
        child.stdin!.write('confirm\n');
        expect(await nextLine()).toBe('ok held');
        const pausedAt = Date.now();
        child.kill('SIGSTOP');
        await waitFor(
          'the record to be taken over',
          async () => (await watcher.listUnfinishedInbound()).length === 1,
        );
        const takeoverMs = Date.now() - pausedAt;
        expect(takeoverMs).toBeLessThan(20_000);
        child.kill('SIGCONT');
        // Its first request after waking: the lock connection has been silent for longer than
        // the timeout, so it asks once, finds the session ended by the server, and fences itself.
        child.stdin!.write(`${first}\n`);
        expect(await nextLine()).toBe('error SESSIONS_LOCK_LOST');
        child.stdin!.write(`${first === 'try' ? 'confirm' : 'try'}\n`);
        expect(await nextLine()).toBe('error SESSIONS_LOCK_LOST');
      } finally {
        child.kill('SIGKILL');
        await watcher.close();
      }
    },
  );
  it('records a send that went out after its lock was lost, so the replica taking over does not send it again', async () => {
    // A replica cut off from PostgreSQL (its connections terminated) may still finish a send it
    // had claimed; the record of it is what the taking-over replica's claim finds.
    const url = await freshDatabase(cluster());
    const cut = await createPostgresSessionStore({ url, onConnectionError: () => undefined });
    const survivor = await createPostgresSessionStore({ url });
    try {
      const details = { channel: 'telegram', accountId: 'polling', to: '7' };
      expect((await cut.claimDelivery('reply-sent', details)).status).toBe('claimed');
      expect((await cut.claimDelivery('reply-taken', details)).status).toBe('claimed');
      await asSuperuser(
        url,
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [`switchboard:${cut.ownerId}`],
      );
      await waitFor(
        'the cut store to notice',
        async () =>
          (await rejection(cut.getState('ns', 'k')).catch(() => undefined))?.code === 'SESSIONS_LOCK_LOST',
      );
      // Taken over before the cut replica's send returned: that claim is the survivor's now.
      const taken = await survivor.claimDelivery('reply-taken', details);
      expect(taken).toMatchObject({ status: 'claimed', recovered: true });
      // The send the cut replica made is recorded all the same…
      expect((await cut.recordDelivery('reply-sent', 'platform-1')).state).toBe('sent');
      expect(await survivor.claimDelivery('reply-sent', details)).toMatchObject({ status: 'already-sent' });
      // …but a claim another replica took over is not the cut replica's to complete.
      expect((await rejection(cut.recordDelivery('reply-taken', 'platform-2'))).code).toBe(
        'SESSIONS_LOCK_LOST',
      );
      expect((await survivor.getDelivery('reply-taken'))?.state).toBe('claimed');
      // Nothing else is written after the loss.
      expect((await rejection(cut.claimDelivery('reply-new', details))).code).toBe('SESSIONS_LOCK_LOST');
      expect((await rejection(cut.failDelivery('reply-sent', 'x'))).code).toBe('SESSIONS_LOCK_LOST');
    } finally {
      await cut.close();
      await survivor.close();
    }
  });

  it('refuses to record a send whose claim another replica took over, even before it noticed its lock is gone', async () => {
    const url = await freshDatabase(cluster());
    const store = await createPostgresSessionStore({ url });
    const other = await createPostgresSessionStore({ url });
    try {
      const details = { channel: 'telegram', accountId: 'polling', to: '7' };
      await store.claimDelivery('reply', details);
      // The database no longer lists `store` as alive, though its own lock connection is fine.
      await asSuperuser(url, 'DELETE FROM store_instances WHERE owner_id = $1', [store.ownerId]);
      expect(await other.claimDelivery('reply', details)).toMatchObject({
        status: 'claimed',
        recovered: true,
      });
      expect((await rejection(store.recordDelivery('reply', 'platform-1'))).code).toBe('SESSIONS_LOCK_LOST');
      expect((await other.recordDelivery('reply', 'platform-2')).platformMessageId).toBe('platform-2');
    } finally {
      await store.close();
      await other.close();
    }
  });

  it('replaces a pooled connection the server ended before the pool noticed, instead of failing the operation', async () => {
    // pg_terminate_backend of the pool's idle connections (not the lock's): the next operations
    // are checked out onto connections the server has closed, some before the pool has read
    // the close. Each must start again on a fresh connection rather than fail.
    const url = await freshDatabase(cluster());
    const store = await createPostgresSessionStore({ url, poolSize: 8, onConnectionError: () => undefined });
    try {
      const details = { channel: 'telegram', accountId: 'polling', to: '7' };
      for (let round = 0; round < 20; round += 1) {
        // Eight idle pooled connections.
        await Promise.all(
          Array.from({ length: 8 }, (_, index) => store.claimDelivery(`warm-${round}-${index}`, details)),
        );
        const [killed] = await asSuperuser<{ killed: number }>(
          url,
          `SELECT count(pg_terminate_backend(pid))::int AS killed FROM pg_stat_activity
           WHERE application_name = $1
             AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)`,
          [`switchboard:${store.ownerId}`],
        );
        expect(killed?.killed).toBeGreaterThan(0);
        // Transactions (claims) and single statements (reads) alike.
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, (_, index) =>
            index % 2 === 0
              ? store.claimDelivery(`after-${round}-${index}`, details).then(
                  (claim) => claim.status,
                  (error: Error) => error.message,
                )
              : store.getDelivery(`warm-${round}-${index}`).then(
                  (receipt) => (receipt?.state === 'claimed' ? 'claimed' : String(receipt)),
                  (error: Error) => error.message,
                ),
          ),
        );
        expect(outcomes).toEqual(outcomes.map(() => 'claimed'));
      }
      // The lock connection was left alone: the store is still usable.
      expect(await store.getState('ns', 'k')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('survives its connections being cut mid-traffic: operations fail with a named error, nothing crashes, another instance takes over once', async () => {
    const url = await freshDatabase(cluster());
    const cut = await createPostgresSessionStore({ url, poolSize: 4, onConnectionError: () => undefined });
    const survivor = await createPostgresSessionStore({ url });
    try {
      await cut.ensureSession('agent:main:cut', { agentId: 'main' });
      for (let index = 0; index < 5; index += 1) {
        await cut.journalInbound({ channel: 'telegram', accountId: 'default', messageId: `cut-${index}` });
      }
      let stop = false;
      const traffic = Array.from({ length: 8 }, async () => {
        const codes: string[] = [];
        while (!stop) {
          const outcome = await cut
            .appendEntries('agent:main:cut', [{ type: 'custom', customType: 'tick' }])
            .then(
              () => 'ok',
              (error: Error & { code?: string }) => error.code ?? error.message,
            );
          codes.push(outcome);
          if (outcome === 'SESSIONS_LOCK_LOST') break;
        }
        return codes;
      });
      await waitFor(
        'traffic to flow',
        async () =>
          ((await cut.getTranscript((await cut.getSession('agent:main:cut'))!.sessionId))?.entryCount ?? 0) >
          10,
      );
      await asSuperuser(
        url,
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [`switchboard:${cut.ownerId}`],
      );
      const settled = await Promise.race([
        Promise.all(traffic),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('traffic did not stop')), 30_000),
        ),
      ]);
      stop = true;
      const codes = new Set(settled.flat());
      for (const code of codes)
        expect(['ok', 'STORE_POSTGRES_QUERY_FAILED', 'SESSIONS_LOCK_LOST']).toContain(code);
      expect(codes.has('SESSIONS_LOCK_LOST')).toBe(true);
      const taken = await survivor.listUnfinishedInbound();
      expect(taken.map((record) => record.messageId).sort()).toEqual([
        'cut-0',
        'cut-1',
        'cut-2',
        'cut-3',
        'cut-4',
      ]);
      await expect(cut.listUnfinishedInbound()).rejects.toMatchObject({ code: 'SESSIONS_LOCK_LOST' });
    } finally {
      await cut.close();
      await survivor.close();
    }
  });
});
