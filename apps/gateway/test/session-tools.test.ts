// Session tools (issue 23): a real gateway and the fake model, which calls the tools when a
// message says `call {"name": …, "input": …}`. Scope: agent main may see agent researcher
// (its subagents.allowAgents) and never agent private.
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { type ProtocolClient, payloadOf } from './protocol-client.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

interface Block {
  type: string;
  id?: string;
  name?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  text?: string;
}

const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? (content as Block[]) : []);

const lastIsToolResult = (request: RecordedRequest): boolean =>
  blocksOf(request.messages.at(-1)?.content).some((block) => block.type === 'tool_result');

function brain(request: RecordedRequest) {
  const text = request.lastUserText ?? '';
  if (lastIsToolResult(request)) return { text: 'done' };
  if (text.startsWith('[Message from session'))
    return { text: `researcher heard: ${text.split('\n').at(-1)}` };
  const call = /^call (\{.*\})$/s.exec(text)?.[1];
  if (call !== undefined) {
    const { name, input } = JSON.parse(call) as { name: string; input: Record<string, unknown> };
    return { toolCalls: [{ name, input }] };
  }
  return { text: `echo: ${text}` };
}

/** The results of every call of the tool, in order: parsed JSON and whether it was an error. */
function resultsOf(
  harness: TestGateway,
  tool: string,
): Array<{ value: Record<string, unknown>; isError: boolean }> {
  const names = new Map<string, string>();
  const results = new Map<string, { value: Record<string, unknown>; isError: boolean }>();
  for (const request of harness.model.requests) {
    for (const message of request.messages) {
      for (const block of blocksOf(message.content)) {
        if (block.type === 'tool_use' && block.id !== undefined) names.set(block.id, block.name ?? '');
        if (block.type === 'tool_result' && block.tool_use_id !== undefined) {
          const text =
            typeof block.content === 'string'
              ? block.content
              : blocksOf(block.content)
                  .map((part) => part.text ?? '')
                  .join('');
          results.set(block.tool_use_id, { value: JSON.parse(text), isError: block.is_error === true });
        }
      }
    }
  }
  return [...results].filter(([id]) => names.get(id) === tool).map(([, result]) => result);
}

async function start(config: Record<string, unknown> = {}) {
  const harness = await startTestGateway({
    config: {
      agents: {
        defaults: { model: 'anthropic/claude-sonnet-4-6' },
        list: [
          { id: 'main', subagents: { allowAgents: ['researcher'] } },
          { id: 'researcher', name: 'Researcher' },
          { id: 'private' },
        ],
      },
      ...config,
    },
    model: { fallback: brain },
  });
  running.push(harness);
  return { harness, client: await harness.connect() };
}

let keys = 0;
async function say(client: ProtocolClient, sessionKey: string, message: string) {
  keys += 1;
  const { final } = await client.requestFinal('agent', {
    message,
    idempotencyKey: `say-${keys}`,
    sessionKey,
  });
  expect(final.ok).toBe(true);
  return final;
}

const call = (name: string, input: Record<string, unknown> = {}) => `call ${JSON.stringify({ name, input })}`;

describe('session tools', () => {
  it("sessions_list shows the agent's own and allowed agents' sessions, never another agent's", async () => {
    const { harness, client } = await start();
    await say(client, 'agent:researcher:main', 'hello researcher');
    await say(client, 'agent:private:main', 'hello private');
    await say(client, 'agent:main:main', call('sessions_list', { messageLimit: 1 }));
    const [listed] = resultsOf(harness, 'sessions_list');
    const rows = listed?.value.sessions as Array<Record<string, unknown>>;
    expect(rows.map((row) => row.key).sort()).toEqual(['agent:main:main', 'agent:researcher:main']);
    const researcher = rows.find((row) => row.key === 'agent:researcher:main');
    expect(researcher).toMatchObject({
      kind: 'main',
      agentId: 'researcher',
      model: 'anthropic/claude-sonnet-4-6',
    });
    expect(researcher?.messages).toEqual([
      expect.objectContaining({ role: 'assistant', text: 'echo: hello researcher' }),
    ]);

    // The researcher (no allowAgents) sees only its own sessions.
    await say(client, 'agent:researcher:main', call('sessions_list'));
    const own = resultsOf(harness, 'sessions_list')[1]?.value.sessions as Array<{ key: string }>;
    expect(own.map((row) => row.key)).toEqual(['agent:researcher:main']);

    // kinds filter.
    await say(client, 'agent:main:main', call('sessions_list', { kinds: ['subagent'] }));
    expect(resultsOf(harness, 'sessions_list')[2]?.value).toEqual({ count: 0, sessions: [] });
  });

  it('sessions_history pages back through a transcript in bounded slices and refuses a session out of scope', async () => {
    const { harness, client } = await start();
    for (let index = 1; index <= 5; index += 1)
      await say(client, 'agent:researcher:main', `question ${index}`);
    await say(
      client,
      'agent:main:main',
      call('sessions_history', { sessionKey: 'agent:researcher:main', limit: 4 }),
    );
    const first = resultsOf(harness, 'sessions_history')[0]!.value as {
      messages: Array<{ role: string; text: string; sequence: number }>;
      hasMore: boolean;
      nextBefore: number;
    };
    expect(first.messages.map((message) => message.text)).toEqual([
      'question 4',
      'echo: question 4',
      'question 5',
      'echo: question 5',
    ]);
    expect(first.hasMore).toBe(true);
    await say(
      client,
      'agent:main:main',
      call('sessions_history', { sessionKey: 'agent:researcher:main', limit: 4, before: first.nextBefore }),
    );
    const second = resultsOf(harness, 'sessions_history')[1]!.value as typeof first;
    expect(second.messages.map((message) => message.text)).toEqual([
      'question 2',
      'echo: question 2',
      'question 3',
      'echo: question 3',
    ]);
    await say(
      client,
      'agent:main:main',
      call('sessions_history', { sessionKey: 'agent:researcher:main', limit: 50, before: second.nextBefore }),
    );
    const last = resultsOf(harness, 'sessions_history')[2]!.value as typeof first;
    expect(last.messages.map((message) => message.text)).toEqual(['question 1', 'echo: question 1']);
    expect(last.hasMore).toBe(false);

    // A long message is cut, and a page stays within its character budget.
    await say(client, 'agent:researcher:main', `long ${'x'.repeat(5000)}`);
    await say(
      client,
      'agent:main:main',
      call('sessions_history', { sessionKey: 'agent:researcher:main', limit: 50 }),
    );
    const long = resultsOf(harness, 'sessions_history')[3]!.value as {
      messages: Array<{ text: string; truncated?: boolean }>;
    };
    expect(long.messages.at(-1)).toMatchObject({ truncated: true });
    expect(long.messages.at(-1)!.text.length).toBeLessThanOrEqual(2001);
    expect(long.messages.reduce((sum, message) => sum + message.text.length, 0)).toBeLessThanOrEqual(16_000);

    await say(client, 'agent:private:main', 'secret plans');
    await say(client, 'agent:main:main', call('sessions_history', { sessionKey: 'agent:private:main' }));
    const refused = resultsOf(harness, 'sessions_history')[4]!;
    expect(refused.isError).toBe(true);
    expect(refused.value.error).toBe('no session agent:private:main that agent "main" may see');
    expect(JSON.stringify(refused.value)).not.toContain('secret plans');
  });

  it('sessions_send enters a journaled turn in the target session and waits for its reply', async () => {
    const { harness, client } = await start();
    await say(client, 'agent:researcher:main', 'hello researcher');
    await say(
      client,
      'agent:main:main',
      call('sessions_send', {
        sessionKey: 'agent:researcher:main',
        message: 'find the launch date',
        timeoutSeconds: 60,
      }),
    );
    const [sent] = resultsOf(harness, 'sessions_send');
    expect(sent?.isError).toBe(false);
    expect(sent?.value).toMatchObject({ status: 'ok', reply: 'researcher heard: find the launch date' });

    // The target's transcript holds the internal message once, marked as not from the user.
    const history = payloadOf<{ messages: Array<{ role: string; content: unknown }> }>(
      await client.request('chat.history', { sessionKey: 'agent:researcher:main' }),
    ).messages;
    const internal = history.filter((message) =>
      JSON.stringify(message.content).includes('find the launch date'),
    );
    expect(internal).toHaveLength(2);
    expect(JSON.stringify(internal[0]?.content)).toContain(
      '[Message from session agent:main:main (agent main): internal, not from the user.',
    );

    // Fire and forget: accepted at once; the reply lands in the target's transcript.
    await say(
      client,
      'agent:main:main',
      call('sessions_send', { sessionKey: 'agent:researcher:main', message: 'no rush', timeoutSeconds: 0 }),
    );
    expect(resultsOf(harness, 'sessions_send')[1]?.value).toMatchObject({ status: 'accepted' });
    await harness.settle(20_000);
    const after = payloadOf<{ messages: Array<{ content: unknown }> }>(
      await client.request('chat.history', { sessionKey: 'agent:researcher:main' }),
    ).messages;
    expect(JSON.stringify(after.at(-1)?.content)).toContain('researcher heard: no rush');

    // Not into a session out of scope, nor into its own.
    await say(client, 'agent:private:main', 'hi');
    await say(
      client,
      'agent:main:main',
      call('sessions_send', { sessionKey: 'agent:private:main', message: 'x' }),
    );
    expect(resultsOf(harness, 'sessions_send')[2]).toMatchObject({ isError: true });
    await say(client, 'agent:main:main', call('sessions_send', { sessionKey: 'main', message: 'x' }));
    expect(resultsOf(harness, 'sessions_send')[3]).toMatchObject({
      isError: true,
      value: { error: 'sessions_send cannot send into your own session' },
    });
  });

  it('session_status and agents_list describe sessions and the agents one may spawn', async () => {
    const { harness, client } = await start();
    await say(client, 'agent:researcher:main', 'hello');
    await say(client, 'agent:main:main', call('session_status', { sessionKey: 'agent:researcher:main' }));
    expect(resultsOf(harness, 'session_status')[0]?.value).toMatchObject({
      sessionKey: 'agent:researcher:main',
      agentId: 'researcher',
      model: 'anthropic/claude-sonnet-4-6',
      run: 'idle',
      queued: 0,
    });
    await say(client, 'agent:main:main', call('session_status'));
    expect(resultsOf(harness, 'session_status')[1]?.value).toMatchObject({
      sessionKey: 'agent:main:main',
      run: 'running',
    });

    await say(client, 'agent:main:main', call('agents_list'));
    expect(resultsOf(harness, 'agents_list')[0]?.value).toEqual({
      requester: 'main',
      allowAny: false,
      agents: [
        { id: 'main', self: true },
        { id: 'researcher', name: 'Researcher', self: false },
      ],
    });
  });

  it('the per-agent tool policy applies: a denied session tool is left out, and operators see why', async () => {
    const { harness, client } = await start({
      agents: {
        defaults: { model: 'anthropic/claude-sonnet-4-6' },
        list: [{ id: 'main', tools: { deny: ['sessions_send'] } }],
      },
    });
    await say(client, 'agent:main:main', 'hello');
    const tools = harness.model.requests.at(-1)?.toolNames ?? [];
    expect(tools).toEqual(
      expect.arrayContaining(['sessions_list', 'sessions_history', 'session_status', 'agents_list']),
    );
    expect(tools).not.toContain('sessions_send');
    const status = payloadOf<{ tools: Array<Record<string, unknown>> }>(
      await client.request('subagents.tools', { agentId: 'main' }),
    );
    expect(status.tools.find((tool) => tool.name === 'sessions_send')).toEqual({
      name: 'sessions_send',
      source: 'sessions',
      offered: false,
      reason: 'denied',
      detail: 'agent "main" tools.deny has "sessions_send"',
    });
    expect(status.tools.find((tool) => tool.name === 'sessions_list')).toMatchObject({ offered: true });

    // A leaf subagent session gets no session tools, and the answer says so.
    await say(client, 'agent:main:subagent:00000000-0000-4000-8000-000000000000', 'hello');
    expect(harness.model.requests.at(-1)?.toolNames).not.toContain('sessions_list');
    const leaf = payloadOf<{ tools: Array<Record<string, unknown>> }>(
      await client.request('subagents.tools', {
        agentId: 'main',
        sessionKey: 'agent:main:subagent:00000000-0000-4000-8000-000000000000',
      }),
    );
    expect(leaf.tools.every((tool) => tool.offered === false && tool.reason === 'depth')).toBe(true);
  });
});
