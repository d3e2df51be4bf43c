// Session leases (decision 0021): one live replica runs a session; the others hand their
// messages to it and wake it with NOTIFY; a gone owner's lease and records are taken over.
import { describe, expect, it } from 'vitest';
import { createPostgresSessionStore, type PostgresSessionStore, workChannel } from '../src/index.ts';
import { freshDatabase, useCluster, waitFor } from './cluster.ts';

const cluster = useCluster();

const ref = (messageId: string) => ({ channel: 'gateway', accountId: 'default', messageId });

async function journal(store: PostgresSessionStore, messageId: string, sessionKey: string, at: number) {
  await store.journalInbound({ ...ref(messageId), sessionKey, receivedAt: at, payload: { text: messageId } });
}

describe('session leases', () => {
  it('gives a session to one replica; the other hands its messages over, in order', async () => {
    const url = await freshDatabase(cluster());
    const first = await createPostgresSessionStore({ url, poolSize: 3 });
    const second = await createPostgresSessionStore({ url, poolSize: 3 });
    const woken: string[] = [];
    const listener = await first.listen([workChannel], (_channel, payload) => woken.push(payload));
    try {
      await journal(first, 'm1', 's', 1);
      const taken = await first.admitToSession('s', [{ ref: ref('m1') }]);
      expect(taken.owner).toBe('self');

      await journal(second, 'm2', 's', 2);
      const handed = await second.admitToSession('s', [
        { ref: ref('m2'), payload: { text: 'm2 as a turn' } },
      ]);
      expect(handed).toEqual({ owner: 'other', ownerId: first.ownerId });
      const record = await first.getInbound(ref('m2'));
      expect(record?.payload).toEqual({ text: 'm2 as a turn' });
      await waitFor('the owner is woken', async () => woken.includes(`${first.ownerId} s`));

      // The owner's next admission returns both, oldest first.
      await journal(first, 'm3', 's', 3);
      const again = await first.admitToSession('s', [{ ref: ref('m3') }]);
      expect(again.owner === 'self' && again.pending.map((entry) => entry.messageId)).toEqual([
        'm1',
        'm2',
        'm3',
      ]);

      // Not released while records are unfinished; released once they are answered.
      expect(await first.releaseSession('s')).toBe(false);
      for (const id of ['m1', 'm2', 'm3']) await first.updateInbound(ref(id), 'replied');
      expect((await first.listSessionLeases()).map((lease) => lease.ownerId)).toEqual([first.ownerId]);
      expect((await second.getSessionLease('s'))?.ownerId).toBe(first.ownerId);
      expect(await first.releaseSession('s')).toBe(true);
      expect(await first.listSessionLeases()).toEqual([]);
      expect(await second.getSessionLease('s')).toBeUndefined();
      await journal(second, 'm4', 's', 4);
      expect((await second.admitToSession('s', [{ ref: ref('m4') }])).owner).toBe('self');
    } finally {
      await listener.close();
      await first.close();
      await second.close();
    }
  });

  it('takes over the lease and the unfinished records of a replica that is gone', async () => {
    const url = await freshDatabase(cluster());
    const first = await createPostgresSessionStore({ url, poolSize: 3 });
    const second = await createPostgresSessionStore({ url, poolSize: 3 });
    try {
      await journal(first, 'a1', 't', 1);
      expect((await first.admitToSession('t', [{ ref: ref('a1') }])).owner).toBe('self');
      await first.close();
      await journal(second, 'a2', 't', 2);
      const taken = await second.admitToSession('t', [{ ref: ref('a2') }]);
      expect(taken.owner === 'self' && taken.pending.map((entry) => entry.messageId)).toEqual(['a1', 'a2']);
      expect((await second.getInbound(ref('a1')))?.state).toBe('received');
      expect((await second.listSessionLeases()).map((lease) => lease.ownerId)).toEqual([second.ownerId]);
    } finally {
      await second.close();
    }
  });

  it('refuses NOTIFY payloads PostgreSQL would reject', async () => {
    const url = await freshDatabase(cluster());
    const store = await createPostgresSessionStore({ url, poolSize: 2 });
    try {
      await expect(store.notify('switchboard_run_events', 'x'.repeat(8000))).rejects.toThrow(
        /less than 8000/,
      );
    } finally {
      await store.close();
    }
  });
});
