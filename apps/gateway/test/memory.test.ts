// Long-term memory end to end: a note the agent wrote in an earlier session is found by
// memory_search in a later one, and the (fake) model answers from the tool result; MEMORY.md
// goes into the system prompt within its budget; embeddings through the fake Ollama server.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { createFakeEmbeddings, type FakeEmbeddings } from '@switchboard/testkit/embeddings';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodes } from '../src/cli/main.ts';
import { runCliOn, startTestGateway, type TestGateway } from './harness.ts';

const running: TestGateway[] = [];
const fakes: FakeEmbeddings[] = [];
async function start(...args: Parameters<typeof startTestGateway>) {
  const harness = await startTestGateway(...args);
  running.push(harness);
  return harness;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

/** The text of the tool results in the request's last message. */
function lastToolResultText(request: RecordedRequest): string {
  return JSON.stringify(request.messages.at(-1)?.content ?? '');
}

/** The model's side of the later session: search, then answer from what the search returned. */
function answerFromMemory(request: RecordedRequest) {
  const found = lastToolResultText(request);
  const code = /locker code is (\d+)/.exec(found)?.[1];
  const citation = /(memory\/[\w.-]+\.md#\d+-\d+)/.exec(found)?.[1];
  return {
    text:
      code === undefined
        ? 'I checked my memory and found nothing about a locker.'
        : `Your locker code is ${code} (${citation}).`,
  };
}

const today = new Date().toISOString().slice(0, 10);

describe('gateway: long-term memory', () => {
  it('finds a note written in an earlier session and answers from it', async () => {
    const harness = await start({
      config: { memory: { search: { sync: { watchDebounceMs: 50 } } } },
      model: {
        turns: [
          // Session 1: the agent writes a daily note with its normal file tool.
          {
            toolCalls: [
              {
                name: 'write',
                input: {
                  path: `memory/${today}.md`,
                  content: `# ${today}\n\n- The user's gym locker code is 7301.\n`,
                },
              },
            ],
          },
          { text: 'Noted.' },
          // Session 2: the agent searches its memory before answering.
          { toolCalls: [{ name: 'memory_search', input: { query: 'gym locker code' } }] },
          answerFromMemory,
        ],
      },
    });
    const client = await harness.connect();
    const first = await client.requestFinal('agent', {
      message: 'Remember: my gym locker code is 7301.',
      idempotencyKey: 'remember-1',
    });
    expect(first.final.ok).toBe(true);
    expect(existsSync(join(harness.stateDirectory, 'workspace', 'memory', `${today}.md`))).toBe(true);

    const reset = await client.request('sessions.reset', { key: 'agent:main:main', reason: 'new' });
    expect(reset.ok).toBe(true);

    const second = await client.requestFinal('agent', {
      message: 'What is my gym locker code?',
      idempotencyKey: 'recall-1',
    });
    expect(second.final.ok).toBe(true);
    expect(second.final.payload).toMatchObject({
      result: { payloads: [{ text: `Your locker code is 7301 (memory/${today}.md#1-3).` }] },
    });
    // The later session did not carry the first one's messages: the answer came from memory.
    const searchRequest = harness.model.messageRequests.at(-2)!;
    expect(JSON.stringify(searchRequest.messages)).not.toContain('7301');
    expect(searchRequest.toolNames).toEqual(expect.arrayContaining(['memory_search', 'memory_get']));
    expect(searchRequest.systemText).toContain('## Memory Recall');
    // The index lives in the state directory, never in the workspace.
    expect(existsSync(join(harness.stateDirectory, 'memory', 'main.sqlite'))).toBe(true);
    expect(existsSync(join(harness.stateDirectory, 'workspace', 'memory', 'main.sqlite'))).toBe(false);
  });

  it('puts MEMORY.md in the system prompt within its budget, and leaves memory out when disabled', async () => {
    const harness = await start({
      config: { memory: { maxPromptChars: 200 } },
      model: { turns: [{ text: 'ok' }] },
    });
    const workspace = join(harness.stateDirectory, 'workspace');
    await mkdir(workspace, { recursive: true });
    await writeFile(
      join(workspace, 'MEMORY.md'),
      `# Facts\n\nThe user's name is Dana.\n\n${'filler line\n'.repeat(100)}`,
    );
    const client = await harness.connect();
    await client.requestFinal('agent', { message: 'hi', idempotencyKey: 'prompt-1' });
    const system = harness.model.lastRequest?.systemText ?? '';
    expect(system).toContain("The user's name is Dana.");
    expect(system).toContain('[truncated at 200 characters: memory_get path=MEMORY.md');
    expect(system.match(/filler line/g)?.length ?? 0).toBeLessThan(20);

    const off = await start({
      config: { memory: { search: { enabled: false } } },
      model: { turns: [{ text: 'ok' }] },
    });
    const offClient = await off.connect();
    await offClient.requestFinal('agent', { message: 'hi', idempotencyKey: 'prompt-2' });
    expect(off.model.lastRequest?.toolNames).not.toContain('memory_search');
    expect(off.model.lastRequest?.systemText).not.toContain('Memory Recall');
  });

  it('searches by meaning with embeddings from an Ollama server (configured through the agents.defaults.memorySearch alias)', async () => {
    const embeddings = createFakeEmbeddings({
      models: ['nomic-embed-text'],
      concepts: { automobile: 'vehicle', car: 'vehicle', sedan: 'vehicle' },
    });
    await embeddings.start();
    fakes.push(embeddings);
    const harness = await start({
      config: {
        agents: {
          defaults: {
            model: 'anthropic/claude-sonnet-4-6',
            memorySearch: { provider: 'ollama', remote: { baseUrl: embeddings.baseURL } },
          },
        },
      },
      model: {
        turns: [
          { toolCalls: [{ name: 'memory_search', input: { query: 'automobile', minScore: 0.2 } }] },
          (request) => ({
            text: lastToolResultText(request).includes('MEMORY.md#') ? 'found it' : 'nothing',
          }),
        ],
      },
    });
    const workspace = join(harness.stateDirectory, 'workspace');
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, 'MEMORY.md'), '# Garage\n\nThe blue sedan needs new tyres.\n');
    const client = await harness.connect();
    const { final } = await client.requestFinal('agent', {
      message: 'what about my automobile?',
      idempotencyKey: 'hybrid-1',
    });
    expect(final.payload).toMatchObject({ result: { payloads: [{ text: 'found it' }] } });
    expect(
      embeddings.requests.some(
        (request) => request.protocol === 'ollama' && request.model === 'nomic-embed-text',
      ),
    ).toBe(true);
    expect(harness.logs.some((line) => line.includes('memory: index open'))).toBe(true);
  });

  it('shows status, searches and re-indexes through memory.* and `switchboard memory`', async () => {
    const harness = await start({ model: { turns: [] } });
    const workspace = join(harness.stateDirectory, 'workspace');
    await mkdir(join(workspace, 'memory'), { recursive: true });
    await writeFile(
      join(workspace, 'memory', `${today}.md`),
      '# Errands\n\nPick up the dry cleaning on Saturday.\n',
    );
    const run = (...argv: string[]) => runCliOn(argv, harness);

    const status = await run('memory', 'status');
    expect(status.code).toBe(exitCodes.ok);
    expect(status.stdout).toContain(
      'main: 1 files, 1 chunks, keyword search (keyword-only: no embeddings provider is configured',
    );
    expect(status.stdout).toContain(join(harness.stateDirectory, 'memory', 'main.sqlite'));

    const search = await run('memory', 'search', 'dry', 'cleaning');
    expect(search.code).toBe(exitCodes.ok);
    expect(search.stdout).toContain(`memory/${today}.md#1-3`);
    expect(search.stdout).toContain('Pick up the dry cleaning on Saturday.');

    const json = await run('memory', 'reindex', '--json');
    expect(json.code).toBe(exitCodes.ok);
    expect(JSON.parse(json.stdout)).toMatchObject({ checked: 1, indexed: 1, removed: 0 });

    const unknown = await run('memory', 'status', '--agent', 'nobody');
    expect(unknown.code).not.toBe(exitCodes.ok);
    expect(unknown.stderr).toContain('no agent "nobody"');
    expect((await run('memory', 'search')).code).toBe(exitCodes.usage);

    const client = await harness.connect();
    const refused = await client.request('memory.search', { query: '   ' });
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused.error)).toContain('memory_search: query must be a non-empty string');
  });
});
