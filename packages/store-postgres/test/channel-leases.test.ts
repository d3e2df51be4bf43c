// Channel-account leases (decision 0021): one live replica consumes an account; a take-over
// after the owner is gone raises the fencing token, and writes under a stale token are refused.
import { describe, expect, it } from 'vitest';
import { createPostgresSessionStore, StorePostgresError } from '../src/index.ts';
import { freshDatabase, useCluster } from './cluster.ts';

const cluster = useCluster();

describe('channel leases', () => {
  it('gives an account to one replica, hands it over with a new token, and fences the old one', async () => {
    const url = await freshDatabase(cluster());
    const first = await createPostgresSessionStore({ url, poolSize: 2 });
    const second = await createPostgresSessionStore({ url, poolSize: 2 });
    try {
      const held = await first.acquireChannelLease('telegram', 'bot1');
      expect(held).toEqual({ channel: 'telegram', accountId: 'bot1', fencingToken: 1 });
      expect(await second.acquireChannelLease('telegram', 'bot1')).toBeUndefined();
      // Renewing keeps the token; another account is independent.
      expect(await first.acquireChannelLease('telegram', 'bot1')).toEqual(held);
      expect((await second.acquireChannelLease('telegram', 'bot2'))?.fencingToken).toBe(1);
      await first.putStateFenced(held!, 'telegram-offsets', 'bot1', { updateId: 10 });
      expect((await second.listChannelLeases()).map((lease) => [lease.accountId, lease.ownerId])).toEqual([
        ['bot1', first.ownerId],
        ['bot2', second.ownerId],
      ]);

      // The owner goes away (its instance lock is released): the next replica takes over.
      await first.close();
      const taken = await second.acquireChannelLease('telegram', 'bot1');
      expect(taken?.fencingToken).toBe(2);
      await second.putStateFenced(taken!, 'telegram-offsets', 'bot1', { updateId: 20 });
      // A write still carrying the old token (a replica that woke up late) is refused.
      const stale = await second.putStateFenced(held!, 'telegram-offsets', 'bot1', { updateId: 11 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(stale).toBeInstanceOf(StorePostgresError);
      expect((stale as StorePostgresError).code).toBe('STORE_POSTGRES_FENCED');
      expect((await second.getState('telegram-offsets', 'bot1'))?.value).toEqual({ updateId: 20 });

      await second.releaseChannelLease(taken!);
      expect((await second.listChannelLeases()).map((lease) => lease.accountId)).toEqual(['bot2']);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
