import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { createSqliteSessionStore, exportTranscriptJsonl, SessionsError } from '../src/index.ts';
import { assistantMessage, openStore, temporaryDirectory, userMessage } from './helpers.ts';

async function openError(stateDirectory: string): Promise<SessionsError> {
  const error = await createSqliteSessionStore({ stateDirectory, lock: { heartbeatMs: 0 } }).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SessionsError);
  return error as SessionsError;
}

describe('a database file that cannot be used', () => {
  it('a file that is not a database: names the path and how to recover', async () => {
    const directory = temporaryDirectory();
    const path = join(directory, 'switchboard.db');
    writeFileSync(path, 'these are the notes I kept in the wrong place, not a database\n'.repeat(100));
    const error = await openError(directory);
    expect(error.code).toBe('SESSIONS_DATABASE_CORRUPT');
    expect(error.message).toContain(path);
    expect(error.message).toContain('move the file aside');
    expect(error.message).toContain('restore a backup');
    expect(error.details).toMatchObject({ path });
    // The file is left as it was for the operator to inspect.
    expect(readFileSync(path, 'utf8')).toContain('wrong place');
  });

  it('a database whose pages were overwritten: reports corruption naming the path', async () => {
    const directory = temporaryDirectory();
    const path = join(directory, 'switchboard.db');
    const store = await openStore({ stateDirectory: directory });
    await store.ensureSession('agent:main:main', { agentId: 'main' });
    await store.close();
    // Keep the 100-byte header, scribble over the rest of the first pages (the schema).
    const descriptor = openSync(path, 'r+');
    writeSync(descriptor, Buffer.alloc(16_384, 0x5a), 0, 16_384, 100);
    closeSync(descriptor);
    const error = await openError(directory);
    expect(error.code).toBe('SESSIONS_DATABASE_CORRUPT');
    expect(error.message).toContain(path);
    expect(error.message).toContain('.recover');
  });

  it('a path that cannot be opened: names the path and what to check', async () => {
    const directory = temporaryDirectory();
    const path = join(directory, 'switchboard.db');
    mkdirSync(path);
    const error = await openError(directory);
    expect(error.code).toBe('SESSIONS_DATABASE_UNREADABLE');
    expect(error.message).toContain(path);
    expect(error.message).toContain('writable');
  });

  it('a state directory that is a file, or cannot be created', async () => {
    const directory = temporaryDirectory();
    const file = join(directory, 'state');
    writeFileSync(file, 'x');
    const notDirectory = await openError(file);
    expect(notDirectory.code).toBe('SESSIONS_STATE_DIRECTORY_INVALID');
    expect(notDirectory.message).toContain(file);
    const underFile = await openError(join(file, 'nested'));
    expect(underFile.code).toBe('SESSIONS_STATE_DIRECTORY_INVALID');
    expect(underFile.message).toContain(join(file, 'nested'));
    const empty = await openError('');
    expect(empty.code).toBe('SESSIONS_INVALID_ARGUMENT');
    expect(empty.message).toContain('options.stateDirectory');
  });
});

describe('a transcript row that does not parse', () => {
  it('is reported by reads, the context build and the export, never dropped', async () => {
    const directory = temporaryDirectory();
    const key = 'agent:main:main';
    const store = await openStore({ stateDirectory: directory });
    const { entry } = await store.ensureSession(key, { agentId: 'main' });
    await store.appendEntries(key, [
      { type: 'message', message: userMessage('first') },
      { type: 'message', message: assistantMessage('second') },
      { type: 'message', message: userMessage('third') },
      { type: 'message', message: userMessage('fourth') },
    ]);
    await store.close();
    const raw = new DatabaseSync(join(directory, 'switchboard.db'));
    raw
      .prepare('UPDATE transcript_entries SET body = ? WHERE sequence = 2')
      .run('{"role":"assistant","content":[{"ty');
    raw
      .prepare('UPDATE transcript_entries SET body = ? WHERE sequence = 3')
      .run('{"role":"wizard","timestamp":1}');
    raw.close();

    const reopened = await openStore({ stateDirectory: directory });
    const transcript = await reopened.readTranscript(entry.sessionId);
    expect(transcript.map((item) => item.type)).toEqual(['message', 'invalid', 'invalid', 'message']);
    expect(transcript[1]).toMatchObject({
      type: 'invalid',
      sequence: 2,
      storedType: 'message',
      raw: '{"role":"assistant","content":[{"ty',
    });
    expect(transcript[1]!.type === 'invalid' && transcript[1]!.error).toContain('not valid JSON');
    expect(transcript[2]!.type === 'invalid' && transcript[2]!.error).toContain(
      'role must be user, assistant or toolResult',
    );

    const context = await reopened.buildContext(key);
    expect(context.messages.map((message) => message.content)).toEqual(['first', 'fourth']);
    expect(context.problems.map((problem) => problem.sequence)).toEqual([2, 3]);
    expect(context.problems[0]).toMatchObject({ sessionId: entry.sessionId });

    const lines: string[] = [];
    for await (const line of exportTranscriptJsonl(reopened, entry.sessionId)) lines.push(line);
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines[2]!)).toMatchObject({
      type: 'invalid',
      sequence: 2,
      raw: '{"role":"assistant","content":[{"ty',
    });
  });

  it('a broken latest compaction entry: the context starts after it and says why', async () => {
    const directory = temporaryDirectory();
    const key = 'agent:main:main';
    const store = await openStore({ stateDirectory: directory });
    await store.ensureSession(key, { agentId: 'main' });
    await store.appendEntries(key, [
      { type: 'message', message: userMessage('old') },
      { type: 'compaction', summary: 'lost', firstKeptSequence: 1, tokensBefore: 10 },
      { type: 'message', message: userMessage('new') },
    ]);
    await store.close();
    const raw = new DatabaseSync(join(directory, 'switchboard.db'));
    raw.prepare('UPDATE transcript_entries SET body = ? WHERE sequence = 2').run('{"summary":');
    raw.close();
    const reopened = await openStore({ stateDirectory: directory });
    const context = await reopened.buildContext(key);
    expect(context.compaction).toBeUndefined();
    expect(context.messages.map((message) => message.content)).toEqual(['new']);
    expect(context.problems).toHaveLength(1);
    expect(context.problems[0]!.error).toContain('latest compaction entry cannot be read');
  });
});
