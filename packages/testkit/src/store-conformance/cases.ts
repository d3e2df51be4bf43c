// The store conformance cases: the behaviour every SessionStore backend shares. Each case
// opens its own stores through the harness and asserts with node:assert, so the suite runs
// under any test runner.
import assert from 'node:assert/strict';
import type { NewTranscriptEntry, SessionStore } from '@switchboard/sessions';
import {
  manualClock,
  rejectsWithCode,
  type StoreConformanceCase,
  type StoreConformanceHarness,
} from './harness.ts';

const key = 'agent:main:telegram:direct:42';

function user(text: string): NewTranscriptEntry {
  return { type: 'message', message: { role: 'user', content: text, timestamp: 1 } };
}

function textsOf(messages: readonly { content: unknown }[]): string[] {
  return messages.map((message) =>
    typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
  );
}

function ref(messageId: string): { channel: string; accountId: string; messageId: string } {
  return { channel: 'telegram', accountId: 'default', messageId };
}

async function sessionWithEntries(store: SessionStore, count: number): Promise<string> {
  const { entry } = await store.ensureSession(key, { agentId: 'main' });
  if (count > 0) {
    await store.appendEntries(
      key,
      Array.from({ length: count }, (_, index) => user(`m${index + 1}`)),
    );
  }
  return entry.sessionId;
}

const sessionCases: StoreConformanceCase[] = [
  {
    name: 'sessions: ensureSession creates a key once, also when calls race',
    async run(harness) {
      const store = await harness.open({ now: manualClock().now });
      const results = await Promise.all(
        Array.from({ length: 8 }, () => store.ensureSession(key, { agentId: 'main', label: 'Alice' })),
      );
      assert.equal(results.filter((result) => result.created).length, 1);
      assert.equal(new Set(results.map((result) => result.entry.sessionId)).size, 1);
      const stored = await store.getSession(key);
      assert.equal(stored?.label, 'Alice');
      assert.equal(stored?.agentId, 'main');
      assert.equal(stored?.revision, 1);
      assert.equal(await store.getSession('agent:main:missing'), undefined);
    },
  },
  {
    name: 'sessions: patches merge metadata, clear with null, add usage and refuse stale or missing keys',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      const { entry } = await store.ensureSession(key, {
        agentId: 'main',
        metadata: { keep: 1, drop: 2 },
        lastRoute: { channel: 'telegram', accountId: 'default', to: '42', peerKind: 'direct' },
        queue: { mode: 'steer', cap: 5 },
      });
      clock.advance(1000);
      const patched = await store.patchSession(key, {
        metadata: { drop: null, added: 'yes' },
        label: 'Bob',
        addUsage: { input: 10, output: 5, costUsd: 0.25 },
        contextTokens: 1234,
      });
      assert.deepEqual(patched.metadata, { keep: 1, added: 'yes' });
      assert.equal(patched.label, 'Bob');
      assert.equal(patched.tokens.input, 10);
      assert.equal(patched.tokens.costUsd, 0.25);
      assert.equal(patched.tokens.context, 1234);
      assert.equal(patched.updatedAt, entry.createdAt + 1000);
      const again = await store.patchSession(key, { addUsage: { input: 1 }, label: null, queue: null });
      assert.equal(again.tokens.input, 11);
      assert.equal(again.label, undefined);
      assert.deepEqual(again.queue, {});
      assert.deepEqual(await store.getSession(key), again);
      await rejectsWithCode(store.patchSession('agent:main:nobody', { label: 'x' }), 'SESSIONS_NOT_FOUND');
      await rejectsWithCode(
        store.patchSession(key, { label: 'x' }, { expectedSessionId: 'not-the-id' }),
        'SESSIONS_STALE_SESSION',
      );
      await rejectsWithCode(store.ensureSession('', { agentId: 'main' }), 'SESSIONS_INVALID_ARGUMENT');
    },
  },
  {
    name: 'sessions: listSessions orders by last update, pages without gaps or repeats, filters and counts',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      for (let index = 0; index < 7; index += 1) {
        await store.ensureSession(`agent:${index % 2 === 0 ? 'main' : 'other'}:s${index}`, {
          agentId: index % 2 === 0 ? 'main' : 'other',
          label: index === 3 ? 'Needle Label' : undefined,
        });
        clock.advance(90_000);
      }
      await store.patchSession('agent:main:s0', { displayName: 'touched' });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listSessions({ limit: 3, cursor });
        seen.push(...page.sessions.map((session) => session.key));
        cursor = page.nextCursor;
        assert.equal(page.hasMore, cursor !== undefined);
      } while (cursor !== undefined);
      assert.deepEqual(seen, [
        'agent:main:s0',
        'agent:main:s6',
        'agent:other:s5',
        'agent:main:s4',
        'agent:other:s3',
        'agent:main:s2',
        'agent:other:s1',
      ]);
      const main = await store.listSessions({ agentId: 'main', includeTotal: true, limit: 2 });
      assert.equal(main.totalCount, 4);
      assert.equal(main.sessions.length, 2);
      assert.ok(main.sessions.every((session) => session.agentId === 'main'));
      const search = await store.listSessions({ search: 'needle' });
      assert.deepEqual(
        search.sessions.map((session) => session.key),
        ['agent:other:s3'],
      );
      const offset = await store.listSessions({ offset: 5, limit: 10 });
      assert.deepEqual(
        offset.sessions.map((session) => session.key),
        ['agent:main:s2', 'agent:other:s1'],
      );
    },
  },
  {
    name: 'sessions: reset archives the transcript and starts a new one; delete archives and removes the key',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      const firstId = await sessionWithEntries(store, 3);
      await store.patchSession(key, { label: 'kept', addUsage: { input: 50 } });
      clock.advance(10);
      const reset = await store.resetSession(key, { reason: 'daily', expectedSessionId: firstId });
      assert.equal(reset.previousSessionId, firstId);
      assert.notEqual(reset.entry.sessionId, firstId);
      assert.equal(reset.entry.revision, 2);
      assert.equal(reset.entry.label, 'kept');
      assert.equal(reset.entry.tokens.input, 0);
      const archived = await store.getTranscript(firstId);
      assert.equal(archived?.archiveReason, 'daily');
      assert.equal(archived?.entryCount, 3);
      assert.equal((await store.readTranscript(firstId)).length, 3);
      await rejectsWithCode(
        store.resetSession(key, { expectedSessionId: firstId }),
        'SESSIONS_STALE_SESSION',
      );
      const appended = await store.appendEntries(key, [user('fresh')]);
      assert.equal(appended.firstSequence, 1);
      assert.equal(appended.sessionId, reset.entry.sessionId);
      const listed = await store.listTranscripts({ sessionKey: key });
      assert.equal(listed.length, 2);
      assert.deepEqual(
        (await store.listTranscripts({ sessionKey: key, archived: true })).map((info) => info.sessionId),
        [firstId],
      );
      const deleted = await store.deleteSession(key);
      assert.deepEqual(deleted, { deleted: true, archivedSessionId: reset.entry.sessionId });
      assert.equal(await store.getSession(key), undefined);
      assert.equal((await store.getTranscript(reset.entry.sessionId))?.archiveReason, 'deleted');
      assert.deepEqual(await store.deleteSession(key), { deleted: false, archivedSessionId: undefined });
      await rejectsWithCode(store.appendEntries(key, [user('late')]), 'SESSIONS_NOT_FOUND');
    },
  },
];

const transcriptCases: StoreConformanceCase[] = [
  {
    name: 'transcripts: entries keep their order; concurrent appends get gap-free sequences',
    async run(harness) {
      const store = await harness.open({ now: manualClock().now });
      const sessionId = await sessionWithEntries(store, 0);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.appendEntries(key, [user(`a${index}`), user(`b${index}`)]),
        ),
      );
      const firsts = results.map((result) => result.firstSequence).sort((a, b) => a - b);
      assert.deepEqual(
        firsts,
        Array.from({ length: 20 }, (_, index) => 1 + index * 2),
      );
      const entries = await store.readTranscript(sessionId);
      assert.deepEqual(
        entries.map((entry) => entry.sequence),
        Array.from({ length: 40 }, (_, index) => index + 1),
      );
      // Each append's two entries sit next to each other, in the order given.
      for (const result of results) {
        const [first, second] = result.entries;
        assert.equal(second?.sequence, (first?.sequence ?? 0) + 1);
        const stored = entries[(first?.sequence ?? 1) - 1];
        assert.deepEqual(stored, first);
      }
      const info = await store.getTranscript(sessionId);
      assert.equal(info?.entryCount, 40);
      assert.equal(info?.lastSequence, 40);
      assert.ok((info?.byteCount ?? 0) > 0);
    },
  },
  {
    name: 'transcripts: reads honour from, to, limit and types; streams page by page',
    async run(harness) {
      const store = await harness.open({ now: manualClock().now });
      const sessionId = await sessionWithEntries(store, 5);
      await store.appendEntries(key, [{ type: 'custom', customType: 'marker', data: { n: 1 } }, user('m6')]);
      const middle = await store.readTranscript(sessionId, { fromSequence: 2, toSequence: 4 });
      assert.deepEqual(
        middle.map((entry) => entry.sequence),
        [2, 3, 4],
      );
      assert.equal((await store.readTranscript(sessionId, { limit: 2 })).length, 2);
      const markers = await store.readTranscript(sessionId, { types: ['custom'] });
      assert.deepEqual(
        markers.map((entry) => [entry.sequence, entry.type]),
        [[6, 'custom']],
      );
      assert.deepEqual(await store.readTranscript(sessionId, { types: [] }), []);
      const streamed: number[] = [];
      for await (const entry of store.streamTranscript(sessionId, { batchSize: 3, fromSequence: 2 })) {
        streamed.push(entry.sequence);
      }
      assert.deepEqual(streamed, [2, 3, 4, 5, 6, 7]);
      await rejectsWithCode(store.readTranscript('no-such-session'), 'SESSIONS_TRANSCRIPT_NOT_FOUND');
      assert.equal(await store.getTranscript('no-such-session'), undefined);
    },
  },
  {
    name: 'transcripts: an append patches the session in the same transaction; a refused append changes nothing',
    async run(harness) {
      const store = await harness.open({ now: manualClock().now });
      const sessionId = await sessionWithEntries(store, 1);
      const result = await store.appendEntries(
        key,
        [{ type: 'model_change', provider: 'openai', model: 'gpt-5' }, user('after the switch')],
        { patch: { addUsage: { output: 7 } }, expectedSessionId: sessionId },
      );
      assert.equal(result.session.model, 'gpt-5');
      assert.equal(result.session.modelProvider, 'openai');
      assert.equal(result.session.tokens.output, 7);
      assert.deepEqual(await store.getSession(key), result.session);
      await rejectsWithCode(
        store.appendEntries(key, [user('stale')], { expectedSessionId: 'other-id' }),
        'SESSIONS_STALE_SESSION',
      );
      await rejectsWithCode(
        store.appendEntries(key, [user('ok'), { type: 'nonsense' } as unknown as NewTranscriptEntry]),
        'SESSIONS_INVALID_ENTRY',
      );
      assert.equal((await store.readTranscript(sessionId)).length, 3);
      assert.equal((await store.getSession(key))?.tokens.output, 7);
    },
  },
  {
    name: 'context: every append, compaction and reset shows in the next buildContext (no stale cache)',
    async run(harness) {
      const store = await harness.open({ now: manualClock().now });
      await sessionWithEntries(store, 2);
      const first = await store.buildContext(key);
      assert.deepEqual(textsOf(first.messages), ['m1', 'm2']);
      assert.equal(first.lastSequence, 2);
      await store.appendEntries(key, [user('m3')]);
      const second = await store.buildContext(key);
      assert.deepEqual(textsOf(second.messages), ['m1', 'm2', 'm3']);
      assert.deepEqual(second.sequences, [1, 2, 3]);
      await store.appendEntries(key, [
        {
          type: 'compaction',
          summary: 'earlier talk',
          firstKeptSequence: 3,
          tokensBefore: 900,
          tokensAfter: 100,
        },
        user('m5'),
      ]);
      const compacted = await store.buildContext(key, {
        formatSummary: (compaction) => ({
          role: 'user',
          content: `SUMMARY: ${compaction.summary}`,
          timestamp: 0,
        }),
      });
      assert.deepEqual(textsOf(compacted.messages), ['SUMMARY: earlier talk', 'm3', 'm5']);
      assert.equal(compacted.compaction?.sequence, 4);
      assert.equal(compacted.compaction?.tokensAfter, 100);
      assert.equal(compacted.fromSequence, 3);
      assert.equal((await store.getSession(key))?.compactionCount, 1);
      const { entry } = await store.resetSession(key);
      const fresh = await store.buildContext(key);
      assert.equal(fresh.sessionId, entry.sessionId);
      assert.deepEqual(fresh.messages, []);
      await store.appendEntries(key, [user('new start')]);
      assert.deepEqual(textsOf((await store.buildContext({ sessionId: entry.sessionId })).messages), [
        'new start',
      ]);
      await rejectsWithCode(store.buildContext('agent:main:nobody'), 'SESSIONS_NOT_FOUND');
    },
  },
];

const journalCases: StoreConformanceCase[] = [
  {
    name: 'journal: an inbound message is journaled once, also when deliveries race',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          store.journalInbound({ ...ref('100'), sessionKey: key, payload: { text: 'hi', n: [1, 2] } }),
        ),
      );
      assert.equal(results.filter((result) => !result.duplicate).length, 1);
      const record = await store.getInbound(ref('100'));
      assert.equal(record?.state, 'received');
      assert.equal(record?.sessionKey, key);
      assert.deepEqual(record?.payload, { text: 'hi', n: [1, 2] });
      assert.equal(record?.attempts, 0);
      assert.equal(record?.receivedAt, clock.now());
      const other = await store.journalInbound({ ...ref('100'), accountId: 'second' });
      assert.equal(other.duplicate, false);
      assert.equal(await store.getInbound(ref('missing')), undefined);
    },
  },
  {
    name: 'journal: transitions follow the state machine and count attempts',
    async run(harness) {
      const store = await harness.open({ now: manualClock().now });
      await store.journalInbound(ref('1'));
      await store.updateInbound(ref('1'), 'queued');
      const running = await store.updateInbound(ref('1'), 'running', { sessionKey: key });
      assert.equal(running.attempts, 1);
      assert.equal(running.sessionKey, key);
      assert.equal((await store.updateInbound(ref('1'), 'running')).attempts, 1);
      await store.updateInbound(ref('1'), 'queued');
      assert.equal((await store.updateInbound(ref('1'), 'running')).attempts, 2);
      const failed = await store.updateInbound(ref('1'), 'failed', { error: 'model down' });
      assert.equal(failed.error, 'model down');
      await rejectsWithCode(store.updateInbound(ref('1'), 'running'), 'SESSIONS_JOURNAL_INVALID_TRANSITION');
      await rejectsWithCode(store.updateInbound(ref('nope'), 'queued'), 'SESSIONS_JOURNAL_NOT_FOUND');
      await rejectsWithCode(store.updateInbound(ref('1'), 'bogus' as 'queued'), 'SESSIONS_INVALID_ARGUMENT');
      assert.deepEqual(await store.getInbound(ref('1')), failed);
    },
  },
  {
    name: 'journal: unfinished records list oldest first and survive a restart',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      for (const id of ['a', 'b', 'c', 'd']) {
        await store.journalInbound({ ...ref(id), payload: { id } });
        clock.advance(1000);
      }
      await store.updateInbound(ref('a'), 'replied');
      await store.updateInbound(ref('c'), 'running');
      const unfinished = await store.listUnfinishedInbound();
      assert.deepEqual(
        unfinished.map((record) => [record.messageId, record.state]),
        [
          ['b', 'received'],
          ['c', 'running'],
          ['d', 'received'],
        ],
      );
      const reopened = await harness.reopen(store, { now: clock.now });
      const resumed = await reopened.listUnfinishedInbound({ limit: 2 });
      assert.deepEqual(
        resumed.map((record) => record.messageId),
        ['b', 'c'],
      );
      assert.deepEqual(resumed[0]?.payload, { id: 'b' });
      const recent = await reopened.listUnfinishedInbound({ receivedSince: clock.now() - 1000 });
      assert.deepEqual(
        recent.map((record) => record.messageId),
        ['d'],
      );
    },
  },
];

const deliveryCases: StoreConformanceCase[] = [
  {
    name: 'receipts: claim, record and fail follow the receipt rules',
    async run(harness) {
      const store = await harness.open({ now: manualClock().now });
      const claim = await store.claimDelivery('chunk-1', { channel: 'telegram', to: '42' });
      assert.equal(claim.status, 'claimed');
      assert.equal(claim.status === 'claimed' && claim.recovered, false);
      assert.equal(claim.receipt.attempts, 1);
      assert.equal((await store.claimDelivery('chunk-1')).status, 'in-progress');
      const sent = await store.recordDelivery('chunk-1', 'platform-9');
      assert.equal(sent.state, 'sent');
      assert.equal(sent.platformMessageId, 'platform-9');
      assert.deepEqual(sent.details, { channel: 'telegram', to: '42' });
      const again = await store.claimDelivery('chunk-1');
      assert.equal(again.status, 'already-sent');
      assert.equal(again.receipt.platformMessageId, 'platform-9');
      assert.equal((await store.recordDelivery('chunk-1', 'platform-9')).state, 'sent');
      await rejectsWithCode(store.recordDelivery('chunk-1', 'platform-10'), 'SESSIONS_DELIVERY_CONFLICT');
      await rejectsWithCode(store.failDelivery('chunk-1', 'late'), 'SESSIONS_DELIVERY_CONFLICT');
      await rejectsWithCode(store.recordDelivery('never-claimed', 'x'), 'SESSIONS_DELIVERY_NOT_FOUND');
      await store.claimDelivery('chunk-2');
      const failed = await store.failDelivery('chunk-2', '429 too many requests');
      assert.equal(failed.state, 'failed');
      assert.equal(failed.error, '429 too many requests');
      const retry = await store.claimDelivery('chunk-2');
      assert.equal(retry.status, 'claimed');
      assert.equal(retry.receipt.attempts, 2);
      assert.equal(retry.receipt.error, undefined);
      assert.equal(await store.getDelivery('chunk-3'), undefined);
    },
  },
  {
    name: 'receipts: exactly one of racing claims sends',
    async run(harness) {
      const store = await harness.open({ now: manualClock().now });
      const claims = await Promise.all(Array.from({ length: 10 }, () => store.claimDelivery('race')));
      assert.equal(claims.filter((claim) => claim.status === 'claimed').length, 1);
      assert.equal(claims.filter((claim) => claim.status === 'in-progress').length, 9);
    },
  },
  {
    name: 'receipts: a claim left by a stopped instance is recovered by the next one',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      await store.claimDelivery('interrupted', { runId: 'run-1' });
      const reopened = await harness.reopen(store, { now: clock.now });
      const claim = await reopened.claimDelivery('interrupted', { to: '42' });
      assert.equal(claim.status, 'claimed');
      assert.equal(claim.status === 'claimed' && claim.recovered, true);
      assert.equal(claim.receipt.attempts, 2);
      assert.deepEqual(claim.receipt.details, { runId: 'run-1', to: '42' });
    },
  },
];

const stateCases: StoreConformanceCase[] = [
  {
    name: 'state: records are replaced, listed by key and prefix, expire by the clock and are deleted',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      await store.putState('pairing', 'telegram:b', { code: 'B' });
      await store.putState('pairing', 'telegram:a', { code: 'A' }, { expiresAt: clock.now() + 1000 });
      await store.putState('pairing', 'discord:c', ['C', 1, null, true]);
      await store.putState('other', 'telegram:z', 'z');
      const replaced = await store.putState('pairing', 'telegram:b', { code: 'B2' });
      assert.deepEqual(replaced.value, { code: 'B2' });
      assert.deepEqual((await store.getState('pairing', 'discord:c'))?.value, ['C', 1, null, true]);
      assert.deepEqual(
        (await store.listState('pairing', { prefix: 'telegram:' })).map((record) => record.key),
        ['telegram:a', 'telegram:b'],
      );
      assert.equal((await store.listState('pairing', { limit: 1 })).length, 1);
      clock.advance(1000);
      assert.equal(await store.getState('pairing', 'telegram:a'), undefined);
      assert.deepEqual(
        (await store.listState('pairing')).map((record) => record.key),
        ['discord:c', 'telegram:b'],
      );
      assert.equal(await store.deleteState('pairing', 'telegram:b'), true);
      assert.equal(await store.deleteState('pairing', 'telegram:b'), false);
      await rejectsWithCode(store.putState('pairing', 'x', undefined), 'SESSIONS_INVALID_ARGUMENT');
      await rejectsWithCode(store.putState('pairing', 'x', { big: 1n }), 'SESSIONS_INVALID_ARGUMENT');
      await rejectsWithCode(store.getState('', 'x'), 'SESSIONS_INVALID_ARGUMENT');
    },
  },
];

const durabilityCases: StoreConformanceCase[] = [
  {
    name: 'group commit: a failing write in a burst fails alone; every resolved write survives a restart',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      await sessionWithEntries(store, 0);
      const burst = await Promise.allSettled([
        store.appendEntries(key, [user('one')]),
        store.patchSession('agent:main:missing', { label: 'x' }),
        store.journalInbound(ref('j1')),
        store.appendEntries(key, [user('two')]),
        store.putState('ns', 'k', { v: 1 }),
        store.claimDelivery('d1'),
        store.appendEntries(key, [{ type: 'bad' } as unknown as NewTranscriptEntry]),
      ]);
      assert.deepEqual(
        burst.map((outcome) => outcome.status),
        ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected'],
      );
      const reopened = await harness.reopen(store, { now: clock.now });
      assert.deepEqual(textsOf((await reopened.buildContext(key)).messages), ['one', 'two']);
      assert.equal((await reopened.getInbound(ref('j1')))?.state, 'received');
      assert.deepEqual((await reopened.getState('ns', 'k'))?.value, { v: 1 });
      assert.equal((await reopened.getDelivery('d1'))?.state, 'claimed');
      assert.equal(await reopened.getSession('agent:main:missing'), undefined);
    },
  },
  {
    name: 'maintenance: prune removes old sessions, finished journal records, settled receipts and expired state',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      await store.ensureSession('agent:main:old', { agentId: 'main', chatType: 'direct' });
      await store.appendEntries('agent:main:old', [user('old')]);
      await store.ensureSession('agent:main:group', { agentId: 'main', chatType: 'group' });
      await store.journalInbound(ref('done'));
      await store.updateInbound(ref('done'), 'replied');
      await store.journalInbound(ref('open'));
      await store.claimDelivery('sent');
      await store.recordDelivery('sent', 'p1');
      await store.putState('ns', 'short', 1, { expiresAt: clock.now() + 10 });
      clock.advance(10 * 86_400_000);
      await store.ensureSession('agent:main:new', { agentId: 'main', chatType: 'direct' });
      const usageBefore = await store.diskUsage();
      assert.equal(usageBefore.sessions, 3);
      assert.equal(usageBefore.journalRecords, 2);
      const report = await store.prune({
        pruneAfterMs: 86_400_000,
        keepChatTypes: ['group'],
        journalRetentionMs: 86_400_000,
      });
      assert.equal(report.sessionsPruned, 1);
      assert.equal(report.journalRecordsDeleted, 1);
      assert.equal(report.deliveryReceiptsDeleted, 1);
      assert.equal(report.stateRecordsDeleted, 1);
      assert.equal(await store.getSession('agent:main:old'), undefined);
      assert.notEqual(await store.getSession('agent:main:group'), undefined);
      assert.equal((await store.getInbound(ref('open')))?.state, 'received');
      const archived = await store.listTranscripts({ archived: true });
      assert.equal(archived.length, 1);
      assert.equal(archived[0]?.archiveReason, 'pruned');
      const retention = await store.prune({ archiveRetentionMs: 0 });
      assert.equal(retention.transcriptsDeleted, 1);
      assert.equal(retention.entriesDeleted, 1);
      const usage = await store.diskUsage();
      assert.equal(usage.sessions, 2);
      assert.equal(usage.archivedTranscripts, 0);
      assert.equal(usage.journalRecords, 1);
      assert.equal(usage.stateRecords, 0);
      assert.equal(typeof usage.location, 'string');
      assert.deepEqual(await store.checkIntegrity(), { ok: true, problems: [] });
      await rejectsWithCode(store.prune({ maxEntries: -1 }), 'SESSIONS_INVALID_CONFIG');
      const capped = await store.prune({ maxEntries: 1 });
      assert.equal(capped.sessionsPruned, 1);
      assert.notEqual(await store.getSession('agent:main:new'), undefined);
    },
  },
  {
    name: 'lifecycle: a closed store rejects with SESSIONS_STORE_CLOSED; close is idempotent',
    async run(harness) {
      const store = await harness.open({ now: manualClock().now });
      await store.close();
      await store.close();
      await rejectsWithCode(store.getSession(key), 'SESSIONS_STORE_CLOSED');
      await rejectsWithCode(store.putState('ns', 'k', 1), 'SESSIONS_STORE_CLOSED');
    },
  },
];

const singleInstanceCases: StoreConformanceCase[] = [
  {
    name: 'single instance: a second instance on the same data is refused with SESSIONS_LOCKED',
    sharing: 'single-instance',
    async run(harness) {
      const clock = manualClock();
      const store = await harness.open({ now: clock.now });
      await rejectsWithCode(harness.openSecond(store, { now: clock.now }), 'SESSIONS_LOCKED');
      await store.putState('ns', 'still', 'usable');
      assert.equal((await store.getState('ns', 'still'))?.value, 'usable');
    },
  },
];

async function crash(harness: StoreConformanceHarness, store: SessionStore): Promise<void> {
  assert.ok(harness.crash, 'a shared backend harness must implement crash()');
  await harness.crash(store);
}

const sharedCases: StoreConformanceCase[] = [
  {
    name: 'shared: instances see each other’s writes at once (journal, sessions, context)',
    sharing: 'shared',
    async run(harness) {
      const clock = manualClock();
      const first = await harness.open({ now: clock.now });
      const second = await harness.openSecond(first, { now: clock.now });
      await sessionWithEntries(first, 1);
      assert.deepEqual(textsOf((await second.buildContext(key)).messages), ['m1']);
      await first.appendEntries(key, [user('m2')]);
      await second.appendEntries(key, [user('m3')]);
      assert.deepEqual(textsOf((await first.buildContext(key)).messages), ['m1', 'm2', 'm3']);
      assert.deepEqual(textsOf((await second.buildContext(key)).messages), ['m1', 'm2', 'm3']);
      const journaled = await Promise.all([
        first.journalInbound(ref('x')),
        second.journalInbound(ref('x')),
        first.journalInbound(ref('x')),
        second.journalInbound(ref('x')),
      ]);
      assert.equal(journaled.filter((result) => !result.duplicate).length, 1);
      const claims = await Promise.all([
        first.claimDelivery('shared-chunk'),
        second.claimDelivery('shared-chunk'),
        first.claimDelivery('shared-chunk'),
        second.claimDelivery('shared-chunk'),
      ]);
      assert.equal(claims.filter((claim) => claim.status === 'claimed').length, 1);
    },
  },
  {
    name: 'shared: unfinished work of a live instance stays with it; a crashed instance’s work goes to exactly one other',
    sharing: 'shared',
    async run(harness) {
      const clock = manualClock();
      const owner = await harness.open({ now: clock.now });
      const peer = await harness.openSecond(owner, { now: clock.now });
      const third = await harness.openSecond(owner, { now: clock.now });
      for (let index = 0; index < 12; index += 1) {
        await owner.journalInbound(ref(`w${index}`));
        clock.advance(1);
      }
      await owner.claimDelivery('owned-chunk');
      assert.deepEqual(await peer.listUnfinishedInbound(), []);
      assert.equal((await peer.claimDelivery('owned-chunk')).status, 'in-progress');
      await crash(harness, owner);
      const [fromPeer, fromThird] = await Promise.all([
        peer.listUnfinishedInbound(),
        third.listUnfinishedInbound(),
      ]);
      const taken = [...fromPeer, ...fromThird].map((record) => record.messageId).sort();
      assert.deepEqual(
        taken,
        Array.from({ length: 12 }, (_, index) => `w${index}`).sort(),
        'every unfinished record goes to exactly one surviving instance',
      );
      // Taken-over records now belong to their new instance, and only to it.
      const ids = (records: readonly { messageId: string }[]): string[] =>
        records.map((record) => record.messageId).sort();
      assert.deepEqual(ids(await peer.listUnfinishedInbound()), ids(fromPeer));
      assert.deepEqual(ids(await third.listUnfinishedInbound()), ids(fromThird));
      const recovered = await peer.claimDelivery('owned-chunk');
      assert.equal(recovered.status, 'claimed');
      assert.equal(recovered.status === 'claimed' && recovered.recovered, true);
    },
  },
];

/** Every case, in the order the suite runs them. */
export const storeConformanceCases: readonly StoreConformanceCase[] = [
  ...sessionCases,
  ...transcriptCases,
  ...journalCases,
  ...deliveryCases,
  ...stateCases,
  ...durabilityCases,
  ...singleInstanceCases,
  ...sharedCases,
];
