import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Message } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import {
  createSqliteSessionStore,
  exportTranscriptJsonl,
  type NewTranscriptEntry,
  SessionsError,
  writeTranscriptJsonl,
} from '../src/index.ts';
import {
  assistantMessage,
  createClock,
  openStore,
  temporaryDirectory,
  toolResult,
  userMessage,
} from './helpers.ts';

const key = 'agent:main:telegram:direct:42';

async function expectCode(promise: Promise<unknown>, code: string): Promise<SessionsError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(SessionsError);
  expect((error as SessionsError).code).toBe(code);
  return error as SessionsError;
}

describe('session entries', () => {
  it('creates a session once and keeps every field across a reopen', async () => {
    const directory = temporaryDirectory();
    const clock = createClock();
    const store = await openStore({ stateDirectory: directory, now: clock.now });
    const first = await store.ensureSession(key, {
      agentId: 'main',
      chatType: 'direct',
      channel: 'telegram',
      label: 'Alice',
      displayName: 'Alice A.',
      lastRoute: { channel: 'telegram', accountId: 'default', to: '42' },
      providerOverride: 'anthropic',
      modelOverride: 'claude-opus-4-1',
      authProfileOverride: 'anthropic:work',
      thinkingLevel: 'high',
      queue: { mode: 'steer', debounceMs: 2000, cap: 5, drop: 'old' },
      metadata: { plugin: { x: 1 } },
    });
    expect(first.created).toBe(true);
    expect(first.entry.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    clock.advance(1000);
    const second = await store.ensureSession(key, { agentId: 'other' });
    expect(second.created).toBe(false);
    expect(second.entry).toEqual(first.entry);
    await store.close();

    const reopened = await openStore({ stateDirectory: directory });
    const entry = await reopened.getSession(key);
    expect(entry).toEqual(first.entry);
    expect(entry).toMatchObject({
      agentId: 'main',
      createdAt: clock.now() - 1000,
      sessionStartedAt: clock.now() - 1000,
      revision: 1,
      queue: { mode: 'steer', debounceMs: 2000, cap: 5, drop: 'old' },
      tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, context: undefined, costUsd: 0 },
      compactionCount: 0,
      lastInteractionAt: undefined,
    });
  });

  it('patches: null clears, usage adds up, context replaces, a new model drops the old provider', async () => {
    const clock = createClock();
    const store = await openStore({ now: clock.now });
    await store.ensureSession(key, {
      agentId: 'main',
      label: 'x',
      modelProvider: 'anthropic',
      model: 'a',
      metadata: { keep: 1, drop: 2 },
    });
    clock.advance(50);
    await store.patchSession(key, {
      addUsage: { input: 100, output: 20, cacheRead: 5, costUsd: 0.5 },
      contextTokens: 900,
    });
    const patched = await store.patchSession(key, {
      label: null,
      model: 'b',
      addUsage: { input: 1, output: 2, cacheWrite: 3, costUsd: 0.25 },
      contextTokens: 120,
      lastInteractionAt: clock.now(),
      metadata: { drop: null, added: true },
      queue: { mode: 'interrupt' },
    });
    expect(patched.label).toBeUndefined();
    expect(patched.model).toBe('b');
    expect(patched.modelProvider).toBeUndefined();
    expect(patched.tokens).toEqual({
      input: 101,
      output: 22,
      cacheRead: 5,
      cacheWrite: 3,
      context: 120,
      costUsd: 0.75,
    });
    expect(patched.metadata).toEqual({ keep: 1, added: true });
    expect(patched.queue).toEqual({ mode: 'interrupt' });
    expect(patched.updatedAt).toBe(clock.now());
    expect(patched.lastInteractionAt).toBe(clock.now());
    expect(await store.getSession(key)).toEqual(patched);
    const cleared = await store.patchSession(key, { queue: null, metadata: null });
    expect(cleared.queue).toEqual({});
    expect(cleared.metadata).toEqual({});
  });

  it('rejects bad patches naming the field, and unknown keys', async () => {
    const store = await openStore();
    await store.ensureSession(key, { agentId: 'main' });
    const badMode = await expectCode(
      store.patchSession(key, { queue: { mode: 'later' as never } }),
      'SESSIONS_INVALID_ARGUMENT',
    );
    expect(badMode.message).toContain('patch.queue.mode');
    const badCap = await expectCode(
      store.patchSession(key, { queue: { cap: 0 } }),
      'SESSIONS_INVALID_ARGUMENT',
    );
    expect(badCap.message).toContain('patch.queue.cap');
    const badRoute = await expectCode(
      store.patchSession(key, { lastRoute: { channel: 'telegram' } as never }),
      'SESSIONS_INVALID_ARGUMENT',
    );
    expect(badRoute.message).toContain('patch.lastRoute.to');
    await expectCode(store.ensureSession('agent:x', { agentId: '' }), 'SESSIONS_INVALID_ARGUMENT');
    const missing = await expectCode(store.patchSession('agent:none', { label: 'x' }), 'SESSIONS_NOT_FOUND');
    expect(missing.message).toContain('agent:none');
  });

  it('lists with filters, stable cursor paging, offsets and totals', async () => {
    const clock = createClock();
    const store = await openStore({ now: clock.now });
    for (let index = 0; index < 30; index += 1) {
      await store.ensureSession(
        `agent:${index % 3 === 0 ? 'ops' : 'main'}:s-${String(index).padStart(2, '0')}`,
        {
          agentId: index % 3 === 0 ? 'ops' : 'main',
          channel: index % 2 === 0 ? 'telegram' : 'discord',
          chatType: index % 5 === 0 ? 'group' : 'direct',
          label: index === 7 ? 'Project Falcon' : null,
        },
      );
      // Two sessions per millisecond, so ties on updatedAt are broken by key.
      if (index % 2 === 1) clock.advance(1);
    }
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listSessions({ limit: 7, cursor });
      all.push(...page.sessions.map((session) => session.key));
      cursor = page.nextCursor;
      expect(page.hasMore).toBe(cursor !== undefined);
    } while (cursor !== undefined);
    expect(all).toHaveLength(30);
    expect(new Set(all).size).toBe(30);
    const everything = (await store.listSessions({ limit: 1000 })).sessions;
    expect(all).toEqual(everything.map((session) => session.key));
    for (let index = 1; index < everything.length; index += 1) {
      expect(everything[index - 1]!.updatedAt).toBeGreaterThanOrEqual(everything[index]!.updatedAt);
    }

    const ops = await store.listSessions({ agentId: 'ops', includeTotal: true, limit: 3 });
    expect(ops.totalCount).toBe(10);
    expect(ops.sessions).toHaveLength(3);
    expect(ops.sessions.every((session) => session.agentId === 'ops')).toBe(true);
    const groups = await store.listSessions({ chatType: 'group', channel: 'telegram', includeTotal: true });
    expect(groups.sessions.map((session) => session.key).sort()).toEqual([
      'agent:main:s-10',
      'agent:main:s-20',
      'agent:ops:s-00',
    ]);
    expect((await store.listSessions({ search: 'FALCON' })).sessions.map((session) => session.key)).toEqual([
      'agent:main:s-07',
    ]);
    expect((await store.listSessions({ label: 'Project Falcon' })).sessions).toHaveLength(1);
    expect((await store.listSessions({ search: 's-1' })).sessions).toHaveLength(10);
    const recent = await store.listSessions({ updatedSince: clock.now() - 2, includeTotal: true });
    expect(recent.totalCount).toBe(4);
    const offsetPage = await store.listSessions({ offset: 28, limit: 5 });
    expect(offsetPage.sessions.map((session) => session.key)).toEqual(all.slice(28));
    expect(offsetPage.hasMore).toBe(false);
    // Activity in later minutes moves sessions to the top; paging stays exact across minutes.
    clock.advance(5 * 60_000);
    await store.patchSession('agent:ops:s-00', { label: 'moved' });
    clock.advance(90_000);
    await store.patchSession('agent:main:s-13', { label: 'moved too' });
    const reordered: string[] = [];
    let next: string | undefined;
    do {
      const page = await store.listSessions({ limit: 4, cursor: next });
      reordered.push(...page.sessions.map((session) => session.key));
      next = page.nextCursor;
    } while (next !== undefined);
    expect(reordered).toEqual([
      'agent:main:s-13',
      'agent:ops:s-00',
      ...all.filter((sessionKey) => sessionKey !== 'agent:main:s-13' && sessionKey !== 'agent:ops:s-00'),
    ]);
    expect((await store.listSessions({ agentId: 'ops', limit: 1 })).sessions[0]?.key).toBe('agent:ops:s-00');
    expect(
      (await store.listSessions({ updatedSince: clock.now() - 60_000 })).sessions.map(
        (session) => session.key,
      ),
    ).toEqual(['agent:main:s-13']);
    const badCursor = await expectCode(store.listSessions({ cursor: 'nope' }), 'SESSIONS_INVALID_ARGUMENT');
    expect(badCursor.message).toContain('query.cursor');
  });

  it('resets: new session id, same key, old transcript archived and readable', async () => {
    const clock = createClock();
    const store = await openStore({ now: clock.now });
    const { entry } = await store.ensureSession(key, {
      agentId: 'main',
      label: 'kept',
      modelOverride: 'claude-opus-4-1',
      lastRoute: { channel: 'telegram', to: '42' },
    });
    await store.appendEntries(key, [{ type: 'message', message: userMessage('before reset') }], {
      patch: { addUsage: { input: 10 }, contextTokens: 10, lastInteractionAt: clock.now() },
    });
    await store.appendEntries(key, [
      { type: 'compaction', summary: 'old', firstKeptSequence: 1, tokensBefore: 10 },
    ]);
    clock.advance(60_000);
    const reset = await store.resetSession(key, { reason: 'new', expectedSessionId: entry.sessionId });
    expect(reset.previousSessionId).toBe(entry.sessionId);
    expect(reset.entry.sessionId).not.toBe(entry.sessionId);
    expect(reset.entry).toMatchObject({
      key,
      revision: 2,
      sessionStartedAt: clock.now(),
      label: 'kept',
      modelOverride: 'claude-opus-4-1',
      lastRoute: { channel: 'telegram', to: '42' },
      compactionCount: 0,
      lastInteractionAt: undefined,
      createdAt: entry.createdAt,
    });
    expect(reset.entry.tokens).toEqual({
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      context: undefined,
      costUsd: 0,
    });
    const archived = await store.getTranscript(entry.sessionId);
    expect(archived).toMatchObject({
      archivedAt: clock.now(),
      archiveReason: 'new',
      entryCount: 2,
      sessionKey: key,
    });
    expect(await store.readTranscript(entry.sessionId)).toHaveLength(2);
    expect((await store.buildContext(key)).messages).toEqual([]);
    expect((await store.buildContext({ sessionId: entry.sessionId })).compaction?.summary).toBe('old');
    // A run that started before the reset cannot write into the new transcript.
    await expectCode(
      store.appendEntries(key, [{ type: 'message', message: userMessage('late') }], {
        expectedSessionId: entry.sessionId,
      }),
      'SESSIONS_STALE_SESSION',
    );
    await expectCode(
      store.resetSession(key, { expectedSessionId: entry.sessionId }),
      'SESSIONS_STALE_SESSION',
    );
    const transcripts = await store.listTranscripts({ sessionKey: key });
    expect(transcripts.map((transcript) => transcript.sessionId).sort()).toEqual(
      [entry.sessionId, reset.entry.sessionId].sort(),
    );
    expect(await store.listTranscripts({ sessionKey: key, archived: false })).toHaveLength(1);
  });

  it('deletes: the key is gone, the transcript is archived, not destroyed', async () => {
    const store = await openStore();
    const { entry } = await store.ensureSession(key, { agentId: 'main' });
    await store.appendEntries(key, [{ type: 'message', message: userMessage('keep me') }]);
    const result = await store.deleteSession(key);
    expect(result).toEqual({ deleted: true, archivedSessionId: entry.sessionId });
    expect(await store.getSession(key)).toBeUndefined();
    expect((await store.getTranscript(entry.sessionId))?.archiveReason).toBe('deleted');
    const [kept] = await store.readTranscript(entry.sessionId);
    expect(kept).toMatchObject({ type: 'message', message: { content: 'keep me' } });
    await expectCode(
      store.appendEntries(key, [{ type: 'message', message: userMessage('x') }]),
      'SESSIONS_NOT_FOUND',
    );
    expect(await store.deleteSession(key)).toEqual({ deleted: false, archivedSessionId: undefined });
    // The key can start over with a fresh session.
    const again = await store.ensureSession(key, { agentId: 'main' });
    expect(again.created).toBe(true);
    expect(again.entry.sessionId).not.toBe(entry.sessionId);
  });
});

describe('transcripts', () => {
  it('appends with a per-session sequence and updates the session in the same transaction', async () => {
    const clock = createClock();
    const store = await openStore({ now: clock.now });
    await store.ensureSession(key, { agentId: 'main' });
    await store.ensureSession('agent:main:other', { agentId: 'main' });
    const first = await store.appendEntries(key, [
      { type: 'message', message: userMessage('hello') },
      { type: 'message', message: assistantMessage('hi') },
    ]);
    expect(first.firstSequence).toBe(1);
    expect(first.lastSequence).toBe(2);
    await store.appendEntries('agent:main:other', [{ type: 'message', message: userMessage('elsewhere') }]);
    clock.advance(5);
    const second = await store.appendEntries(
      key,
      [
        { type: 'model_change', provider: 'anthropic', model: 'claude-opus-4-1' },
        { type: 'custom', customType: 'audit', data: { ok: true } },
        { type: 'message', message: toolResult('42') },
      ],
      { patch: { addUsage: { input: 7, output: 3 }, contextTokens: 1234 } },
    );
    expect(second.entries.map((entry) => entry.sequence)).toEqual([3, 4, 5]);
    expect(second.session).toMatchObject({
      model: 'claude-opus-4-1',
      modelProvider: 'anthropic',
      updatedAt: clock.now(),
      tokens: { input: 7, output: 3, context: 1234 },
    });
    expect(await store.getSession(key)).toEqual(second.session);
    const transcript = await store.readTranscript(first.sessionId);
    expect(transcript.map((entry) => [entry.sequence, entry.type])).toEqual([
      [1, 'message'],
      [2, 'message'],
      [3, 'model_change'],
      [4, 'custom'],
      [5, 'message'],
    ]);
    expect(transcript[3]).toMatchObject({ customType: 'audit', data: { ok: true }, timestamp: clock.now() });
    expect(await store.readTranscript(first.sessionId, { fromSequence: 2, toSequence: 3 })).toHaveLength(2);
    expect(await store.readTranscript(first.sessionId, { fromSequence: 2, limit: 1 })).toHaveLength(1);
    const markers = await store.readTranscript(first.sessionId, {
      types: ['custom', 'model_change'],
      fromSequence: 4,
    });
    expect(markers.map((entry) => [entry.sequence, entry.type])).toEqual([[4, 'custom']]);
    expect(await store.readTranscript(first.sessionId, { types: [] })).toEqual([]);
    expect(await store.getTranscript(first.sessionId)).toMatchObject({ entryCount: 5, lastSequence: 5 });
  });

  it('rejects a malformed entry naming its index and field, and writes nothing of the batch', async () => {
    const store = await openStore();
    const { entry } = await store.ensureSession(key, { agentId: 'main' });
    const cases: Array<[NewTranscriptEntry[], string]> = [
      [
        [
          { type: 'message', message: userMessage('ok') },
          { type: 'message', message: { role: 'robot' } as never },
        ],
        'entries[1].message.role',
      ],
      [
        [{ type: 'message', message: { role: 'user', content: [{ type: 'video' }], timestamp: 1 } as never }],
        'entries[0].message.content[0].type',
      ],
      [
        [{ type: 'compaction', summary: 's', firstKeptSequence: 5, tokensBefore: 1 }],
        'entries[0].firstKeptSequence',
      ],
      [[{ type: 'model_change', provider: '', model: 'x' }], 'entries[0].provider'],
      [[{ type: 'mystery' } as never], 'entries[0].type'],
      [[{ type: 'custom', customType: 'x', data: { big: 10n } }], 'entries[0] cannot be stored as JSON'],
    ];
    for (const [entries, expected] of cases) {
      const error = await expectCode(store.appendEntries(key, entries), 'SESSIONS_INVALID_ENTRY');
      expect(error.message).toContain(expected);
    }
    expect(await store.readTranscript(entry.sessionId)).toEqual([]);
    await expectCode(store.readTranscript('no-such-session'), 'SESSIONS_TRANSCRIPT_NOT_FOUND');
  });

  it('builds the context from the latest compaction summary plus the entries after its first kept entry', async () => {
    const store = await openStore();
    await store.ensureSession(key, { agentId: 'main' });
    for (let index = 1; index <= 6; index += 1) {
      await store.appendEntries(key, [{ type: 'message', message: userMessage(`m${index}`, index) }]);
    }
    await store.appendEntries(key, [
      { type: 'compaction', summary: 'first summary', firstKeptSequence: 3, tokensBefore: 500 },
    ]);
    await store.appendEntries(key, [
      { type: 'message', message: assistantMessage('a8') },
      { type: 'custom', customType: 'hidden', data: 1 },
      { type: 'custom_message', customType: 'note', content: 'injected note', display: false },
      { type: 'message', message: userMessage('m11', 11) },
      {
        type: 'compaction',
        summary: 'second summary',
        firstKeptSequence: 10,
        tokensBefore: 900,
        tokensAfter: 200,
      },
      { type: 'message', message: userMessage('m13', 13) },
    ]);
    const context = await store.buildContext(key);
    expect(context.compaction).toMatchObject({
      sequence: 12,
      summary: 'second summary',
      firstKeptSequence: 10,
      tokensAfter: 200,
    });
    expect(
      context.messages.map((message) =>
        typeof message.content === 'string' ? message.content : message.role,
      ),
    ).toEqual([
      'user', // the summary, as a user message with text blocks
      'injected note',
      'm11',
      'm13',
    ]);
    const summary = context.messages[0]!;
    expect(JSON.stringify(summary.content)).toContain('second summary');
    expect(context.fromSequence).toBe(10);
    expect(context.lastSequence).toBe(13);
    expect(context.problems).toEqual([]);
    expect((await store.getSession(key))?.compactionCount).toBe(2);

    const custom = await store.buildContext(key, {
      formatSummary: (compaction) => userMessage(`SUMMARY: ${compaction.summary}`, compaction.timestamp),
    });
    expect(custom.messages[0]).toMatchObject({ role: 'user', content: 'SUMMARY: second summary' });

    const plain = await openStore();
    await plain.ensureSession(key, { agentId: 'main' });
    await plain.appendEntries(key, [
      { type: 'message', message: userMessage('only') },
      { type: 'message', message: assistantMessage('answer') },
    ]);
    const plainContext = await plain.buildContext(key);
    expect(plainContext.compaction).toBeUndefined();
    expect(plainContext.messages).toHaveLength(2);
    expect(plainContext.fromSequence).toBe(1);
  });

  it('builds the same context turn after turn as from scratch, across compactions and a reset', async () => {
    const stateDirectory = temporaryDirectory();
    const store = await openStore({ stateDirectory });
    await store.ensureSession(key, { agentId: 'main' });
    const texts = (messages: readonly Message[]) =>
      messages.map((message) =>
        typeof message.content === 'string'
          ? message.content
          : message.content.map((block) => (block.type === 'text' ? block.text : block.type)).join(''),
      );
    let expected: string[] = [];
    let sequence = 0;
    for (let round = 1; round <= 25; round += 1) {
      // The build is queued behind the append in the same group commit, and must see it.
      const [, context] = await Promise.all([
        store.appendEntries(key, [
          { type: 'message', message: userMessage(`question ${round}`, round) },
          { type: 'message', message: assistantMessage(`answer ${round}`, round) },
        ]),
        store.buildContext(key),
      ]);
      sequence += 2;
      expected.push(`question ${round}`, `answer ${round}`);
      expect(texts(context.messages)).toEqual(expected);
      expect(context.lastSequence).toBe(sequence);
      if (round % 10 === 0) {
        await store.appendEntries(key, [
          {
            type: 'compaction',
            summary: `summary ${round}`,
            firstKeptSequence: sequence - 1,
            tokensBefore: 100,
          },
        ]);
        sequence += 1;
        expected = [expect.stringContaining(`summary ${round}`) as unknown as string, ...expected.slice(-2)];
      }
    }
    const incremental = await store.buildContext(key);
    await store.close();
    const reopened = await openStore({ stateDirectory });
    expect(incremental).toEqual(await reopened.buildContext(key));

    await reopened.resetSession(key);
    expect((await reopened.buildContext(key)).messages).toEqual([]);
    await reopened.appendEntries(key, [{ type: 'message', message: userMessage('fresh start') }]);
    expect(texts((await reopened.buildContext(key)).messages)).toEqual(['fresh start']);
  });

  it('a context built right after an append shares no object with the appended entries', async () => {
    // The append writes its entries through to the context cache: as decoded copies, so a
    // caller that changes its objects afterwards cannot change the stored context.
    const store = await openStore();
    await store.ensureSession(key, { agentId: 'main' });
    await store.buildContext(key); // the session's context is cached from here on
    const message = assistantMessage('as sent');
    await store.appendEntries(key, [{ type: 'message', message }]);
    (message.content[0] as { text: string }).text = 'changed afterwards';
    const context = await store.buildContext(key);
    expect(context.messages).toHaveLength(1);
    expect(JSON.stringify(context.messages[0])).toContain('as sent');
    expect(JSON.stringify(context.messages[0])).not.toContain('changed afterwards');
    await store.close();
  });

  it('streams and exports a transcript as JSONL, page by page', async () => {
    const directory = temporaryDirectory();
    const store = await openStore();
    const { entry } = await store.ensureSession(key, { agentId: 'main' });
    const entries: NewTranscriptEntry[] = [];
    for (let index = 0; index < 25; index += 1)
      entries.push({ type: 'message', message: userMessage(`line ${index}`, index) });
    await store.appendEntries(key, entries);
    await store.appendEntries(key, [
      { type: 'compaction', summary: 'sum', firstKeptSequence: 20, tokensBefore: 1 },
    ]);
    const streamed: number[] = [];
    for await (const item of store.streamTranscript(entry.sessionId, { batchSize: 4, fromSequence: 3 })) {
      streamed.push(item.sequence);
    }
    expect(streamed).toEqual(Array.from({ length: 24 }, (_, index) => index + 3));

    const lines: string[] = [];
    for await (const line of exportTranscriptJsonl(store, entry.sessionId)) lines.push(line);
    expect(lines).toHaveLength(27);
    expect(lines.every((line) => line.endsWith('\n'))).toBe(true);
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(header).toMatchObject({
      type: 'session',
      version: 1,
      sessionId: entry.sessionId,
      sessionKey: key,
      entryCount: 26,
    });
    expect(JSON.parse(lines[1]!)).toEqual({
      type: 'message',
      sequence: 1,
      timestamp: expect.any(Number),
      message: userMessage('line 0', 0),
    });
    expect(JSON.parse(lines[26]!)).toMatchObject({
      type: 'compaction',
      sequence: 26,
      summary: 'sum',
      firstKeptSequence: 20,
    });

    const file = join(directory, 'export.jsonl');
    const written = await writeTranscriptJsonl(store, entry.sessionId, file);
    expect(written.entries).toBe(26);
    expect(readFileSync(file, 'utf8')).toBe(lines.join(''));
    expect(written.bytes).toBe(Buffer.byteLength(lines.join('')));
    await expectCode(
      writeTranscriptJsonl(store, 'missing', join(directory, 'none.jsonl')),
      'SESSIONS_TRANSCRIPT_NOT_FOUND',
    );
  });

  it('group-commits concurrent writes: each lands once, in order per session; a failing write fails alone', async () => {
    const store = await openStore();
    const keys = Array.from({ length: 12 }, (_, index) => `agent:main:c-${index}`);
    await Promise.all(keys.map((sessionKey) => store.ensureSession(sessionKey, { agentId: 'main' })));
    const writes: Array<Promise<unknown>> = [];
    for (let round = 0; round < 20; round += 1) {
      for (const sessionKey of keys) {
        writes.push(
          store.appendEntries(sessionKey, [
            { type: 'message', message: userMessage(`${sessionKey} #${round}`, round) },
          ]),
        );
      }
      // Interleave a write that fails validation inside the group and one that fails on a missing key.
      writes.push(
        store.appendEntries(keys[0]!, [{ type: 'nope' } as never]).catch((error: unknown) => error),
      );
      writes.push(store.patchSession('agent:main:missing', { label: 'x' }).catch((error: unknown) => error));
    }
    const results = await Promise.all(writes);
    const failures = results.filter((result) => result instanceof SessionsError) as SessionsError[];
    expect(failures.map((failure) => failure.code).sort()).toEqual([
      ...Array(20).fill('SESSIONS_INVALID_ENTRY'),
      ...Array(20).fill('SESSIONS_NOT_FOUND'),
    ]);
    for (const sessionKey of keys) {
      const session = await store.getSession(sessionKey);
      const transcript = await store.readTranscript(session!.sessionId);
      expect(transcript.map((entry) => entry.sequence)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
      expect(transcript.map((entry) => (entry.type === 'message' ? entry.message.content : ''))).toEqual(
        Array.from({ length: 20 }, (_, index) => `${sessionKey} #${index}`),
      );
    }
    // A read issued behind queued writes sees them.
    const pending = store.appendEntries(keys[1]!, [{ type: 'message', message: userMessage('late') }]);
    const session = await store.getSession(keys[1]!);
    const info = await store.getTranscript(session!.sessionId);
    expect(info?.lastSequence).toBe(21);
    await pending;
  });
});

describe('the database file', () => {
  it('is one WAL database with owner-only permissions, a busy timeout and versioned migrations', async () => {
    const store = await openStore();
    expect(store.databasePath).toBe(join(store.stateDirectory, 'switchboard.db'));
    expect(statSync(store.databasePath).mode & 0o777).toBe(0o600);
    expect(store.durability).toBe('full');
    expect(store.schemaVersion).toBe(1);
    await store.close();
    const raw = new DatabaseSync(store.databasePath);
    try {
      expect(raw.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(raw.prepare('PRAGMA auto_vacuum').get()).toEqual({ auto_vacuum: 2 });
      expect(raw.prepare('SELECT component, version FROM schema_migrations').all()).toEqual([
        { component: 'sessions', version: 1 },
      ]);
      // A clean close releases the lock row.
      expect(raw.prepare('SELECT COUNT(*) AS count FROM instance_lock').get()).toEqual({ count: 0 });
    } finally {
      raw.close();
    }
  });

  it('refuses a database written by a newer Switchboard, naming the file and both versions', async () => {
    const directory = temporaryDirectory();
    const store = await openStore({ stateDirectory: directory });
    await store.close();
    const raw = new DatabaseSync(join(directory, 'switchboard.db'));
    raw.prepare("INSERT INTO schema_migrations VALUES ('sessions', 99, 'future', 0)").run();
    raw.close();
    const error = await expectCode(
      createSqliteSessionStore({ stateDirectory: directory }),
      'SESSIONS_SCHEMA_TOO_NEW',
    );
    expect(error.message).toContain(join(directory, 'switchboard.db'));
    expect(error.message).toContain('99');
    // It did not keep the lock: a build that knows version 99 could open it.
    const check = new DatabaseSync(join(directory, 'switchboard.db'));
    expect(check.prepare('SELECT COUNT(*) AS count FROM instance_lock').get()).toEqual({ count: 0 });
    check.close();
  });

  it('honours durability normal, and rejects anything else', async () => {
    const store = await openStore({ durability: 'normal' });
    expect(store.durability).toBe('normal');
    await expectCode(
      createSqliteSessionStore({ stateDirectory: temporaryDirectory(), durability: 'sometimes' as never }),
      'SESSIONS_INVALID_ARGUMENT',
    );
  });

  it('rejects operations after close', async () => {
    const store = await openStore();
    await store.close();
    await store.close();
    const error = await expectCode(store.getSession(key), 'SESSIONS_STORE_CLOSED');
    expect(error.message).toContain(store.databasePath);
  });
});

describe('maintenance', () => {
  it('prunes by age and by count, keeps protected chat types, and deletes old archives for good', async () => {
    const clock = createClock();
    const day = 86_400_000;
    const store = await openStore({ now: clock.now });
    await store.ensureSession('agent:main:old-direct', { agentId: 'main', chatType: 'direct' });
    await store.ensureSession('agent:main:old-group', { agentId: 'main', chatType: 'group' });
    await store.appendEntries('agent:main:old-direct', [{ type: 'message', message: userMessage('old') }]);
    clock.advance(40 * day);
    for (let index = 0; index < 5; index += 1) {
      await store.ensureSession(`agent:main:new-${index}`, { agentId: 'main', chatType: 'direct' });
      clock.advance(1000);
    }
    const oldId = (await store.getSession('agent:main:old-direct'))!.sessionId;
    const byAge = await store.prune({ pruneAfterMs: 30 * day, keepChatTypes: ['group'] });
    expect(byAge.sessionsPruned).toBe(1);
    expect(await store.getSession('agent:main:old-direct')).toBeUndefined();
    expect(await store.getSession('agent:main:old-group')).toBeDefined();
    expect((await store.getTranscript(oldId))?.archiveReason).toBe('pruned');

    const byCount = await store.prune({ maxEntries: 3, keepChatTypes: ['group'] });
    expect(byCount.sessionsPruned).toBe(3);
    const left = (await store.listSessions()).sessions.map((session) => session.key).sort();
    expect(left).toEqual(['agent:main:new-3', 'agent:main:new-4', 'agent:main:old-group']);

    clock.advance(31 * day);
    const archives = await store.prune({ archiveRetentionMs: 30 * day });
    expect(archives.transcriptsDeleted).toBe(4);
    expect(archives.entriesDeleted).toBe(1);
    expect(await store.getTranscript(oldId)).toBeUndefined();
    const integrity = await store.checkIntegrity();
    expect(integrity).toEqual({ ok: true, problems: [] });
    await expectCode(store.prune({ maxEntries: -1 }), 'SESSIONS_INVALID_CONFIG');
  });

  it('reports disk use and gives space back after pruning', async () => {
    const clock = createClock();
    const store = await openStore({ now: clock.now });
    await store.ensureSession(key, { agentId: 'main' });
    const big = 'x'.repeat(4000);
    for (let index = 0; index < 50; index += 1) {
      await store.appendEntries(key, [{ type: 'message', message: userMessage(`${index} ${big}`) }]);
    }
    await store.journalInbound({ channel: 'telegram', accountId: 'default', messageId: '1' });
    await store.claimDelivery('run-1:0');
    const usage = await store.diskUsage();
    expect(usage).toMatchObject({
      location: store.databasePath,
      sessions: 1,
      transcripts: 1,
      archivedTranscripts: 0,
      transcriptEntries: 50,
      journalRecords: 1,
      deliveryReceipts: 1,
    });
    expect(usage.transcriptBytes).toBeGreaterThan(50 * 4000);
    expect(usage.databaseBytes + usage.walBytes).toBeGreaterThan(50 * 4000);
    await store.deleteSession(key);
    const report = await store.prune({ archiveRetentionMs: 0 });
    expect(report.transcriptsDeleted).toBe(1);
    expect(report.entriesDeleted).toBe(50);
    expect(report.bytesFreed).toBeGreaterThan(100_000);
    const after = await store.diskUsage();
    expect(after.transcriptEntries).toBe(0);
    expect(after.databaseBytes + after.walBytes).toBeLessThan(usage.databaseBytes + usage.walBytes);
  });
});
