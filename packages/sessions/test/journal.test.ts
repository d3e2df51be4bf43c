import { describe, expect, it } from 'vitest';
import { type InboundState, SessionsError } from '../src/index.ts';
import { inboundTransitions } from '../src/journal.ts';
import { createClock, openStore, temporaryDirectory } from './helpers.ts';

const ref = { channel: 'telegram', accountId: 'default', messageId: '1001' };

async function expectCode(promise: Promise<unknown>, code: string): Promise<SessionsError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(SessionsError);
  expect((error as SessionsError).code).toBe(code);
  return error as SessionsError;
}

describe('inbound journal', () => {
  it('journals a message once; every later delivery of the same id is a duplicate', async () => {
    const clock = createClock();
    const store = await openStore({ now: clock.now });
    const first = await store.journalInbound({
      ...ref,
      sessionKey: 'agent:main:main',
      payload: { text: 'hello', sender: { id: '42' } },
    });
    expect(first.duplicate).toBe(false);
    expect(first.record).toEqual({
      ...ref,
      state: 'received',
      sessionKey: 'agent:main:main',
      receivedAt: clock.now(),
      updatedAt: clock.now(),
      attempts: 0,
      error: undefined,
      payload: { text: 'hello', sender: { id: '42' } },
    });
    const again = await store.journalInbound({ ...ref, payload: { text: 'changed' } });
    expect(again.duplicate).toBe(true);
    expect(again.record.payload).toEqual({ text: 'hello', sender: { id: '42' } });
    // The same message id on another account or channel is another message.
    expect((await store.journalInbound({ ...ref, accountId: 'second' })).duplicate).toBe(false);
    expect((await store.journalInbound({ ...ref, channel: 'discord' })).duplicate).toBe(false);

    for (const state of ['queued', 'running', 'replied'] as const) await store.updateInbound(ref, state);
    const afterReply = await store.journalInbound(ref);
    expect(afterReply).toMatchObject({ duplicate: true, record: { state: 'replied' } });
  });

  it('concurrent deliveries of one id: exactly one is new', async () => {
    const store = await openStore();
    const results = await Promise.all(Array.from({ length: 10 }, () => store.journalInbound(ref)));
    expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
  });

  it('follows received → queued → running → replied | failed, counting attempts', async () => {
    const clock = createClock();
    const store = await openStore({ now: clock.now });
    await store.journalInbound(ref);
    clock.advance(10);
    expect(await store.updateInbound(ref, 'queued', { sessionKey: 'agent:main:main' })).toMatchObject({
      state: 'queued',
      updatedAt: clock.now(),
      sessionKey: 'agent:main:main',
      attempts: 0,
    });
    expect((await store.updateInbound(ref, 'running')).attempts).toBe(1);
    // Staying in a state is a harmless no-op (retried updates).
    expect((await store.updateInbound(ref, 'running')).attempts).toBe(1);
    // An interrupted run goes back to the queue and is counted again when it runs.
    await store.updateInbound(ref, 'queued');
    expect((await store.updateInbound(ref, 'running')).attempts).toBe(2);
    const failed = await store.updateInbound(ref, 'failed', { error: 'model overloaded' });
    expect(failed).toMatchObject({ state: 'failed', error: 'model overloaded' });
    const error = await expectCode(
      store.updateInbound(ref, 'replied'),
      'SESSIONS_JOURNAL_INVALID_TRANSITION',
    );
    expect(error.message).toContain('telegram/default/1001');
    expect(error.message).toContain('from failed to replied');
    expect(await store.getInbound(ref)).toMatchObject({ state: 'failed', error: 'model overloaded' });
    await expectCode(
      store.updateInbound({ ...ref, messageId: 'nope' }, 'queued'),
      'SESSIONS_JOURNAL_NOT_FOUND',
    );
    await expectCode(store.updateInbound(ref, 'done' as InboundState), 'SESSIONS_INVALID_ARGUMENT');
    await expectCode(store.journalInbound({ ...ref, messageId: '' }), 'SESSIONS_INVALID_ARGUMENT');
  });

  it('enforces the whole transition table', async () => {
    const store = await openStore();
    const states: InboundState[] = ['received', 'queued', 'running', 'replied', 'failed'];
    const paths: Record<InboundState, InboundState[]> = {
      received: [],
      queued: ['queued'],
      running: ['running'],
      replied: ['replied'],
      failed: ['failed'],
    };
    let counter = 0;
    for (const from of states) {
      for (const to of states) {
        const message = { ...ref, messageId: `t-${counter++}` };
        await store.journalInbound(message);
        for (const step of paths[from]) await store.updateInbound(message, step);
        const allowed = from === to || inboundTransitions[from].includes(to);
        const outcome = await store.updateInbound(message, to).then(
          (record) => record.state,
          (error: SessionsError) => error.code,
        );
        expect(outcome, `${from} → ${to}`).toBe(allowed ? to : 'SESSIONS_JOURNAL_INVALID_TRANSITION');
      }
    }
  });

  it('after a restart lists every message that never reached replied or failed, oldest first', async () => {
    const directory = temporaryDirectory();
    const clock = createClock();
    const store = await openStore({ stateDirectory: directory, now: clock.now });
    const states: Array<[string, InboundState[]]> = [
      ['a', []],
      ['b', ['queued']],
      ['c', ['queued', 'running']],
      ['d', ['queued', 'running', 'replied']],
      ['e', ['failed']],
      ['f', ['running']],
    ];
    for (const [messageId, steps] of states) {
      clock.advance(1000);
      await store.journalInbound({ ...ref, messageId, payload: { messageId } });
      for (const step of steps) await store.updateInbound({ ...ref, messageId }, step);
    }
    await store.close();
    const reopened = await openStore({ stateDirectory: directory, now: clock.now });
    const unfinished = await reopened.listUnfinishedInbound();
    expect(unfinished.map((record) => [record.messageId, record.state])).toEqual([
      ['a', 'received'],
      ['b', 'queued'],
      ['c', 'running'],
      ['f', 'running'],
    ]);
    expect(unfinished[0]!.payload).toEqual({ messageId: 'a' });
    const recent = await reopened.listUnfinishedInbound({ receivedSince: clock.now() - 3500 });
    expect(recent.map((record) => record.messageId)).toEqual(['c', 'f']);
    expect(await reopened.listUnfinishedInbound({ limit: 1 })).toHaveLength(1);
  });

  it('prunes finished records after the retention, never unfinished ones', async () => {
    const clock = createClock();
    const store = await openStore({ now: clock.now });
    await store.journalInbound({ ...ref, messageId: 'done' });
    await store.updateInbound({ ...ref, messageId: 'done' }, 'replied');
    await store.journalInbound({ ...ref, messageId: 'waiting' });
    await store.claimDelivery('sent-key');
    await store.recordDelivery('sent-key', 'p-1');
    await store.claimDelivery('open-key');
    clock.advance(8 * 86_400_000);
    const report = await store.prune({ journalRetentionMs: 7 * 86_400_000 });
    expect(report.journalRecordsDeleted).toBe(1);
    expect(report.deliveryReceiptsDeleted).toBe(1);
    expect(await store.getInbound({ ...ref, messageId: 'done' })).toBeUndefined();
    expect(await store.getInbound({ ...ref, messageId: 'waiting' })).toBeDefined();
    expect(await store.getDelivery('open-key')).toBeDefined();
  });
});

describe('delivery receipts', () => {
  it('a retried delivery never sends twice', async () => {
    const clock = createClock();
    const store = await openStore({ now: clock.now });
    const details = { channel: 'telegram', accountId: 'default', to: '42', runId: 'run-1', inbound: ref };
    const claim = await store.claimDelivery('run-1:chunk-0', details);
    expect(claim).toMatchObject({
      status: 'claimed',
      recovered: false,
      receipt: { state: 'claimed', attempts: 1, details },
    });
    // A concurrent attempt in the same process sees the send in flight.
    expect((await store.claimDelivery('run-1:chunk-0')).status).toBe('in-progress');
    clock.advance(20);
    const receipt = await store.recordDelivery('run-1:chunk-0', 'tg-555');
    expect(receipt).toMatchObject({ state: 'sent', platformMessageId: 'tg-555', sentAt: clock.now() });
    const retry = await store.claimDelivery('run-1:chunk-0');
    expect(retry).toMatchObject({ status: 'already-sent', receipt: { platformMessageId: 'tg-555' } });
    // Recording the same id again is idempotent; a different id is a conflict.
    expect((await store.recordDelivery('run-1:chunk-0', 'tg-555')).platformMessageId).toBe('tg-555');
    const conflict = await expectCode(
      store.recordDelivery('run-1:chunk-0', 'tg-556'),
      'SESSIONS_DELIVERY_CONFLICT',
    );
    expect(conflict.message).toContain('tg-555');
    await expectCode(store.failDelivery('run-1:chunk-0', 'late'), 'SESSIONS_DELIVERY_CONFLICT');
    await expectCode(store.recordDelivery('never-claimed', 'x'), 'SESSIONS_DELIVERY_NOT_FOUND');
    await expectCode(store.failDelivery('never-claimed', 'x'), 'SESSIONS_DELIVERY_NOT_FOUND');
    expect(await store.getDelivery('never-claimed')).toBeUndefined();
  });

  it('a failed send can be claimed again; a claim left by a dead process is recovered', async () => {
    const directory = temporaryDirectory();
    const store = await openStore({ stateDirectory: directory });
    await store.claimDelivery('k');
    const failed = await store.failDelivery('k', '429 Too Many Requests');
    expect(failed).toMatchObject({ state: 'failed', error: '429 Too Many Requests' });
    const again = await store.claimDelivery('k');
    expect(again).toMatchObject({
      status: 'claimed',
      recovered: false,
      receipt: { attempts: 2, error: undefined },
    });
    await store.claimDelivery('interrupted', { to: '42' });
    await store.close();

    // The next gateway finds the claim of the previous one, which never recorded an outcome.
    const next = await openStore({ stateDirectory: directory });
    const recovered = await next.claimDelivery('interrupted', { runId: 'run-9' });
    expect(recovered).toMatchObject({
      status: 'claimed',
      recovered: true,
      receipt: { attempts: 2, details: { to: '42', runId: 'run-9' } },
    });
    expect((await next.claimDelivery('interrupted')).status).toBe('in-progress');
    expect((await next.recordDelivery('interrupted', 'p-1')).state).toBe('sent');
  });
});

describe('state records', () => {
  it('stores JSON under (namespace, key), lists by prefix, expires, and survives a reopen', async () => {
    const directory = temporaryDirectory();
    const clock = createClock();
    const store = await openStore({ stateDirectory: directory, now: clock.now });
    const final = { runId: 'run-1', status: 'ok', text: 'done' };
    expect(
      await store.putState('agent-finals', 'run-1', final, { expiresAt: clock.now() + 300_000 }),
    ).toEqual({
      namespace: 'agent-finals',
      key: 'run-1',
      value: final,
      updatedAt: clock.now(),
      expiresAt: clock.now() + 300_000,
    });
    await store.putState('agent-finals', 'run-2', { status: 'error' });
    await store.putState('pairing', 'telegram:42', { code: 'ABC123' });
    await store.putState('agent-finals', 'run-2', { status: 'ok' });
    expect((await store.listState('agent-finals')).map((record) => [record.key, record.value])).toEqual([
      ['run-1', final],
      ['run-2', { status: 'ok' }],
    ]);
    expect((await store.listState('agent-finals', { prefix: 'run-2' })).map((record) => record.key)).toEqual([
      'run-2',
    ]);
    expect(await store.listState('pairing', { prefix: 'discord:' })).toEqual([]);
    await store.close();

    const reopened = await openStore({ stateDirectory: directory, now: clock.now });
    expect((await reopened.getState('agent-finals', 'run-1'))?.value).toEqual(final);
    clock.advance(300_000);
    expect(await reopened.getState('agent-finals', 'run-1')).toBeUndefined();
    expect((await reopened.listState('agent-finals')).map((record) => record.key)).toEqual(['run-2']);
    const report = await reopened.prune({});
    expect(report.stateRecordsDeleted).toBe(1);
    expect(await reopened.deleteState('pairing', 'telegram:42')).toBe(true);
    expect(await reopened.deleteState('pairing', 'telegram:42')).toBe(false);
    expect((await reopened.diskUsage()).stateRecords).toBe(1);
    await expectCode(reopened.putState('x', 'y', { big: 1n }), 'SESSIONS_INVALID_ARGUMENT');
    await expectCode(reopened.putState('x', 'y', undefined), 'SESSIONS_INVALID_ARGUMENT');
    await expectCode(reopened.getState('', 'y'), 'SESSIONS_INVALID_ARGUMENT');
  });
});
