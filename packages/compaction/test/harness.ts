// What the end-to-end tests share: a real SQLite session store in a temp directory, the
// Anthropic provider and the real SDK against testkit's fake Messages API, a core-loop Agent,
// and `runTurn`, which is the gateway's call sequence around one run (see the README).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  type AgentMessage,
  type AnyAgentTool,
  anthropicModel,
  createStreamFunction,
  defineTool,
  isContextOverflow,
  type Model,
  type StreamFunction,
  type ToolSpec,
  toolSpec,
} from '@switchboard/core-loop';
import { createAnthropicProvider } from '@switchboard/core-loop/anthropic';
import { type AssistantMessage, type Message, type UserMessage, z } from '@switchboard/hooks';
import { createSqliteSessionStore, type SqliteSessionStore } from '@switchboard/sessions';
import {
  createFakeAnthropic,
  estimateTokens,
  type FakeAnthropic,
  type FakeTurn,
  messageText,
  type RecordedRequest,
  type RequestMessage,
} from '@switchboard/testkit/anthropic';
import {
  type Compactor,
  type CompactorOptions,
  createCompactor,
  createModelSummarizer,
  type PreparedContext,
} from '../src/index.ts';
import { summarySystemPrompt } from '../src/prompts.ts';

const systemPrompt = 'You are a helpful assistant working for the user. Use the lookup tool when asked.';

/** A marker in every tool result's `details`: it must never reach the summariser. */
export const detailsMarker = 'DETAILS-PAYLOAD-MUST-NOT-LEAK';

const lookupTool: AnyAgentTool = defineTool({
  name: 'lookup',
  description: 'Look up a record by query',
  parameters: z.object({ query: z.string() }),
  async execute(_id, { query }) {
    // A query with "huge" returns about 12,000 tokens: more than a whole 8k window.
    // Other sizes vary with the query so compaction cuts land anywhere in a turn.
    const number = Number(/\d+/.exec(query)?.[0] ?? 0);
    const repeat = query.includes('huge') ? 1000 : 2 + ((number * 7) % 23);
    const body = `Record for ${query}: ${'status=ok; owner=team-blue; region=eu-west-1; '.repeat(repeat)}`;
    return {
      content: [{ type: 'text', text: body }],
      details: { marker: detailsMarker, raw: body.repeat(5) },
    };
  },
});

const toolSpecs: readonly ToolSpec[] = [toolSpec(lookupTool)];

/** True when the request was a summary request. */
export function isSummaryRequest(request: RecordedRequest): boolean {
  return request.systemText === summarySystemPrompt;
}

/** Every text of a request's messages, tool results included. */
export function requestText(request: RecordedRequest): string {
  return JSON.stringify(request.messages);
}

/** A fake summary built from what the summariser was sent: every planted fact, verbatim. */
export function factSummary(request: RecordedRequest): FakeTurn {
  const facts = [...new Set(requestText(request).match(/FACT-\d+: [^"\\\n<]*/g) ?? [])].sort();
  return {
    text: [
      '## Goal',
      'Keep helping the user.',
      '## Exact identifiers',
      ...facts,
      '## Next steps',
      'none',
    ].join('\n'),
  };
}

function hasToolResult(message: RequestMessage | undefined): boolean {
  return Array.isArray(message?.content) && message.content.some((block) => block.type === 'tool_result');
}

/** The conversation's model: asks for `lookup` once per user turn, then answers. */
function conversationTurn(request: RecordedRequest): FakeTurn {
  const last = request.messages.at(-1);
  if (hasToolResult(last)) return { text: 'Done: the record was found and looks healthy. Anything else?' };
  const huge = last !== undefined && messageText(last).includes('DUMP');
  return {
    text: 'Let me look that up in the records database first. '.repeat(1 + (request.sequence % 6)),
    toolCalls: [{ name: 'lookup', input: { query: huge ? 'huge-dump' : `record-${request.sequence}` } }],
  };
}

/**
 * A fake whose main-model window is `window` tokens (it refuses bigger prompts with
 * "prompt is too long: N tokens > window maximum"), which answers summary requests with
 * `summary` and conversation requests with `conversation`.
 */
export function windowedModel(options: {
  readonly window: number;
  readonly summary?: (request: RecordedRequest) => FakeTurn;
  readonly conversation?: (request: RecordedRequest) => FakeTurn;
}): (request: RecordedRequest) => FakeTurn {
  return (request) => {
    if (isSummaryRequest(request)) return (options.summary ?? factSummary)(request);
    const tokens = estimateTokens(request.body ?? {});
    if (tokens > options.window) {
      return { fault: { type: 'prompt_too_long', tokens, maximum: options.window } };
    }
    return (options.conversation ?? conversationTurn)(request);
  };
}

export interface Harness {
  readonly fake: FakeAnthropic;
  readonly store: SqliteSessionStore;
  readonly compactor: Compactor;
  readonly agent: Agent;
  readonly model: Model;
  readonly streamFn: StreamFunction;
  readonly sessionKey: string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly window: number;
  /** What the model config says the window is (default `window`). */
  readonly configuredWindow?: number;
  readonly fallback: (request: RecordedRequest) => FakeTurn | Promise<FakeTurn>;
  readonly compactor?: Partial<CompactorOptions>;
  readonly reserveTokens?: number;
}

let clock = Date.UTC(2026, 0, 1);
const now = (): number => {
  clock += 1000;
  return clock;
};

export async function createHarness(options: HarnessOptions): Promise<Harness> {
  const directory = await mkdtemp(join(tmpdir(), 'switchboard-compaction-'));
  const fake = await createFakeAnthropic({ fallback: options.fallback, recordLimit: 5000 }).start();
  const store = await createSqliteSessionStore({
    stateDirectory: directory,
    durability: 'normal',
    lock: { heartbeatMs: 0 },
    now,
  });
  const sessionKey = 'agent:main:webchat:direct:tester';
  await store.ensureSession(sessionKey, { agentId: 'main', chatType: 'direct', channel: 'webchat' });
  const streamFn = createStreamFunction([createAnthropicProvider({ baseUrl: fake.baseURL })]);
  const model = anthropicModel('claude-sonnet-4-6', {
    contextWindow: options.configuredWindow ?? options.window,
    thinking: undefined,
  });
  const compactor = createCompactor({
    store,
    summarizer: createModelSummarizer({ streamFn, model, getApiKey: () => 'sk-test', sleep: async () => {} }),
    settings: {
      contextWindow: model.contextWindow,
      reserveTokens: options.reserveTokens,
    },
    ...options.compactor,
  });
  const agent = new Agent({
    systemPrompt,
    model,
    streamFn,
    tools: [lookupTool],
    getApiKey: () => 'sk-test',
    streamOptions: { maxTokens: 1024 },
    now,
  });
  return {
    fake,
    store,
    compactor,
    agent,
    model,
    streamFn,
    sessionKey,
    async close() {
      await fake.close();
      await store.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function userMessage(text: string): UserMessage {
  return { role: 'user', content: text, timestamp: now() };
}

function lastMessage(agent: Agent): AgentMessage | undefined {
  return agent.state.messages.at(-1);
}

/** What one turn did. */
export interface TurnReport {
  readonly prepared: PreparedContext;
  readonly recoveries: readonly PreparedContext[];
  readonly final: AssistantMessage;
}

/**
 * The gateway's call sequence around one run: prepare (compacting first if the request
 * would not fit), run, persist what the run produced; while the run ended in a context
 * overflow, recover (compact harder each attempt) and continue, persisting again.
 */
export async function runTurn(harness: Harness, text: string): Promise<TurnReport> {
  const { agent, compactor, sessionKey } = harness;
  const prompt = userMessage(text);
  const call = { systemPrompt, tools: toolSpecs };
  const prepared = await compactor.prepareContext(sessionKey, { ...call, pending: [prompt] });
  agent.replaceMessages(prepared.messages);
  await agent.prompt(prompt);
  await persist(harness, prepared.messages.length);
  const recoveries: PreparedContext[] = [];
  for (let attempt = 1; isContextOverflow(lastMessage(agent)); attempt += 1) {
    const recovered = await compactor.recoverFromOverflow(sessionKey, {
      ...call,
      attempt,
      error: lastMessage(agent),
    });
    recoveries.push(recovered);
    agent.replaceMessages(recovered.messages);
    await agent.continue();
    await persist(harness, recovered.messages.length);
  }
  return { prepared, recoveries, final: lastMessage(agent) as AssistantMessage };
}

async function persist(harness: Harness, from: number): Promise<void> {
  const produced = harness.agent.state.messages.slice(from) as Message[];
  if (produced.length === 0) return;
  await harness.store.appendEntries(
    harness.sessionKey,
    produced.map((message) => ({ type: 'message' as const, message })),
  );
}

/**
 * Checks that every tool call in a request has its result right after it and every result
 * has its call, and that no result was made up by replay hygiene ("No result provided").
 */
export function toolPairingProblems(request: RecordedRequest): string[] {
  const problems: string[] = [];
  const messages = request.messages;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as RequestMessage;
    if (!Array.isArray(message.content)) continue;
    if (message.role === 'assistant') {
      const calls = message.content.filter((block) => block.type === 'tool_use').map((block) => block.id);
      if (calls.length === 0) continue;
      const next = messages[index + 1];
      const results = Array.isArray(next?.content)
        ? next.content.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id)
        : [];
      for (const id of calls) if (!results.includes(id)) problems.push(`call ${String(id)} has no result`);
    } else {
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        const previous = messages[index - 1];
        const calls = Array.isArray(previous?.content)
          ? previous.content.filter((item) => item.type === 'tool_use').map((item) => item.id)
          : [];
        if (!calls.includes(block.tool_use_id))
          problems.push(`result ${String(block.tool_use_id)} has no call`);
        if (JSON.stringify(block.content ?? '').includes('No result provided')) {
          problems.push(`result ${String(block.tool_use_id)} was made up by replay hygiene`);
        }
      }
    }
  }
  return problems;
}

/**
 * The same check on a session's context as stored (before replay hygiene could hide
 * anything): every tool call has its result and every result has its call.
 */
export function contextPairingProblems(messages: readonly Message[]): string[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  const problems: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const block of message.content) if (block.type === 'toolCall') calls.add(block.id);
    } else if (message.role === 'toolResult') {
      if (!calls.has(message.toolCallId)) problems.push(`result ${message.toolCallId} has no call before it`);
      results.add(message.toolCallId);
    }
  }
  for (const id of calls) if (!results.has(id)) problems.push(`call ${id} has no result`);
  return problems;
}
