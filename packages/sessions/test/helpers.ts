import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AssistantMessage, ToolResultMessage, UserMessage } from '@switchboard/hooks';
import { afterEach } from 'vitest';
import {
  createSqliteSessionStore,
  type SqliteSessionStore,
  type SqliteSessionStoreOptions,
} from '../src/index.ts';

const directories: string[] = [];
const stores: SqliteSessionStore[] = [];

/** A fresh temporary state directory, removed after the test. */
export function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-sessions-test-'));
  directories.push(directory);
  return directory;
}

/** A clock tests move by hand. */
export function createClock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let current = start;
  return { now: () => current, advance: (ms) => (current += ms) };
}

/** Opens a store in a fresh directory (or `options.stateDirectory`); closed after the test. */
export async function openStore(
  options: Partial<SqliteSessionStoreOptions> = {},
): Promise<SqliteSessionStore> {
  const store = await createSqliteSessionStore({
    stateDirectory: options.stateDirectory ?? temporaryDirectory(),
    lock: { heartbeatMs: 0 },
    ...options,
  });
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

export function userMessage(text: string, timestamp = 1): UserMessage {
  return { role: 'user', content: text, timestamp };
}

export function assistantMessage(text: string, timestamp = 2): AssistantMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: 'stop',
    timestamp,
  };
}

export function toolResult(text: string, timestamp = 3): ToolResultMessage {
  return {
    role: 'toolResult',
    toolCallId: 'call-1',
    toolName: 'read_file',
    content: [{ type: 'text', text }],
    isError: false,
    timestamp,
  };
}
