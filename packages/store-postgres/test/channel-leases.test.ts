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

  it('checks the token in the same transaction as the journal write and the delivery claim', async () => {
    const url = await freshDatabase(cluster());
    const first = await createPostgresSessionStore({ url, poolSize: 2 });
    const second = await createPostgresSessionStore({ url, poolSize: 2 });
    try {
      const held = (await first.acquireChannelLease('telegram', 'bot1'))!;
      const journaled = await first.journalInboundFenced(held, {
        channel: 'telegram',
        accountId: 'bot1',
        messageId: 'm1',
        payload: { text: 'one' },
      });
      expect(journaled.duplicate).toBe(false);
      const claim = await first.claimDeliveryFenced(held, 'reply-1', {
        channel: 'telegram',
        accountId: 'bot1',
      });
      expect(claim.status).toBe('claimed');

      await first.close();
      const taken = (await second.acquireChannelLease('telegram', 'bot1'))!;
      expect(taken.fencingToken).toBe(held.fencingToken + 1);
      // The stale token (the first replica's, replayed by the second's store) is refused for
      // both side effects, and nothing was written.
      for (const attempt of [
        () =>
          second.journalInboundFenced(held, {
            channel: 'telegram',
            accountId: 'bot1',
            messageId: 'm2',
            payload: { text: 'two' },
          }),
        () => second.claimDeliveryFenced(held, 'reply-2', { channel: 'telegram', accountId: 'bot1' }),
      ]) {
        const error = await attempt().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect((error as StorePostgresError).code).toBe('STORE_POSTGRES_FENCED');
        expect((error as Error).message).toMatch(/telegram account bot1 \(fencing token 1\)/);
      }
      expect(
        await second.getInbound({ channel: 'telegram', accountId: 'bot1', messageId: 'm2' }),
      ).toBeUndefined();
      expect(await second.getDelivery('reply-2')).toBeUndefined();
      // Under the current token both go through; the gone owner's claim is recovered.
      const reclaimed = await second.claimDeliveryFenced(taken, 'reply-1');
      expect(reclaimed).toMatchObject({ status: 'claimed', recovered: true });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("leaves a gone replica's messages of a leased account to the replica holding the account", async () => {
    const url = await freshDatabase(cluster());
    const gone = await createPostgresSessionStore({ url, poolSize: 2 });
    const holder = await createPostgresSessionStore({ url, poolSize: 2 });
    const bystander = await createPostgresSessionStore({ url, poolSize: 2 });
    try {
      const lease = (await gone.acquireChannelLease('telegram', 'polling'))!;
      await gone.journalInboundFenced(lease, {
        channel: 'telegram',
        accountId: 'polling',
        messageId: 'p1',
        sessionKey: 'agent:main:telegram:1',
      });
      await gone.journalInbound({ channel: 'telegram', accountId: 'webhook', messageId: 'w1' });
      await gone.close();
      // Before anyone takes the account over, a bystander takes only the webhook account's record.
      expect((await bystander.listUnfinishedInbound()).map((record) => record.messageId)).toEqual(['w1']);
      expect((await holder.acquireChannelLease('telegram', 'polling'))?.fencingToken).toBe(2);
      // Neither a poll (its own webhook record only) nor an admission of the session gives the
      // bystander the polling record.
      expect((await bystander.listUnfinishedInbound()).map((record) => record.messageId)).toEqual(['w1']);
      const admitted = await bystander.admitToSession('agent:main:telegram:1', []);
      expect(admitted).toEqual({ owner: 'self', pending: [] });
      await bystander.releaseSession('agent:main:telegram:1');
      expect((await holder.listUnfinishedInbound()).map((record) => record.messageId)).toEqual(['p1']);
    } finally {
      await gone.close();
      await holder.close();
      await bystander.close();
    }
  });
});
