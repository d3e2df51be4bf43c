// One contract test per hook: each fires on live traffic, and gates and modify hooks change
// what happens. (Crash recovery firing the same hooks is proven in crash-recovery.test.ts.)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { definePlugin, type HookName, hookNames } from '@switchboard/hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import type { ProtocolClient } from './protocol-client.ts';
import { createTestChannel, sentText, type TestChannel } from './test-channel.ts';

interface Call {
  readonly hook: HookName;
  readonly event: Record<string, unknown>;
}

const calls: Call[] = [];
const seen = (hook: HookName) => calls.filter((call) => call.hook === hook);
const textOf = (event: Record<string, unknown>) => JSON.stringify(event);

const recorder = definePlugin({
  name: 'hook-recorder',
  version: '1.0.0',
  specVersion: 1,
  setup(api) {
    for (const hook of hookNames) {
      if (
        [
          'inbound_claim',
          'message_sending',
          'before_model_resolve',
          'before_prompt_build',
          'before_tool_call',
          'tool_result_persist',
          'before_message_write',
        ].includes(hook)
      ) {
        continue;
      }
      api.on(hook as 'agent_end', (event) => {
        calls.push({ hook, event: event as unknown as Record<string, unknown> });
      });
    }
    api.on('inbound_claim', (event) => {
      calls.push({ hook: 'inbound_claim', event: event as never });
      return event.message.text.startsWith('claim:')
        ? { handled: true, reply: 'claimed by the plugin' }
        : undefined;
    });
    api.on('message_sending', (event) => {
      calls.push({ hook: 'message_sending', event: event as never });
      if (event.message.kind !== 'text') return undefined;
      if (event.message.text.includes('SECRET')) return { cancel: true, cancelReason: 'contains a secret' };
      return { text: `${event.message.text} [signed]` };
    });
    api.on('before_model_resolve', (event) => {
      calls.push({ hook: 'before_model_resolve', event: event as never });
      return event.prompt.includes('use haiku') ? { modelOverride: 'claude-haiku-4-5' } : undefined;
    });
    api.on('before_prompt_build', (event) => {
      calls.push({ hook: 'before_prompt_build', event: event as never });
      return { appendSystemContext: 'POLICY-XYZ', prependContext: 'CONTEXT-ABC' };
    });
    api.on('before_tool_call', (event) => {
      calls.push({ hook: 'before_tool_call', event: event as never });
      if (event.params.path === 'secret.txt') return { block: true, blockReason: 'secrets stay secret' };
      if (event.params.path === 'a.txt') return { params: { ...event.params, path: 'b.txt' } };
      if (event.params.path === 'crash.txt') throw new Error('policy engine down');
      return undefined;
    });
    api.on('tool_result_persist', (event) => {
      calls.push({ hook: 'tool_result_persist', event: event as never });
      return {
        message: { ...event.message, content: [{ type: 'text', text: '[redacted for the transcript]' }] },
      };
    });
    api.on('before_message_write', (event) => {
      calls.push({ hook: 'before_message_write', event: event as never });
      if (event.message.role === 'user' && JSON.stringify(event.message.content).includes('do-not-store'))
        return { block: true };
      return undefined;
    });
  },
});

let harness: TestGateway;
let channel: TestChannel;
let client: ProtocolClient;
let gatewayStop: Call[] = [];

beforeAll(async () => {
  channel = createTestChannel();
  harness = await startTestGateway({
    plugins: [recorder, channel.plugin],
    config: {
      channels: { testchat: { dmPolicy: 'pairing', allowFrom: ['owner'] } },
      agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', compaction: { keepRecentTokens: 40 } } },
    },
  });
  mkdirSync(join(harness.stateDirectory, 'workspace'), { recursive: true });
  writeFileSync(join(harness.stateDirectory, 'workspace', 'b.txt'), 'contents of b');
  writeFileSync(join(harness.stateDirectory, 'workspace', 'a.txt'), 'contents of a');
  client = await harness.connect();
});

afterAll(async () => {
  await harness.close();
  gatewayStop = seen('gateway_stop');
  expect(gatewayStop.length).toBe(1);
});

async function ask(text: string, idempotencyKey: string) {
  return client.requestFinal('agent', { message: text, idempotencyKey });
}

describe('hook contracts on live traffic', () => {
  it('gateway_start fires once the gateway listens', () => {
    expect(seen('gateway_start')[0]?.event).toMatchObject({
      address: { host: '127.0.0.1', port: harness.gateway.port },
    });
  });

  it('message_received, session_start, agent_end, message_sending (rewrite) and message_sent fire for a channel message', async () => {
    await channel.receive({ text: 'hello there', sender: { id: 'owner' }, messageId: 'm-live-1' });
    const [reply] = await channel.waitForSent(1);
    const delivered = sentText(reply);
    expect(delivered).toContain('hello there');
    expect(delivered.endsWith(' [signed]')).toBe(true);
    await harness.gateway.dispatcher.whenIdle();
    expect(seen('message_received').some((call) => textOf(call.event).includes('m-live-1'))).toBe(true);
    // Each DM sender has their own session (session.dmScope defaults to per-channel-peer).
    const ownerSession = 'agent:main:testchat:direct:owner';
    expect(seen('session_start').some((call) => call.event.sessionKey === ownerSession)).toBe(true);
    expect(seen('agent_end').at(-1)?.event).toMatchObject({ success: true, sessionKey: ownerSession });
    expect(seen('message_sent').at(-1)?.event).toMatchObject({
      result: { ok: true, messageIds: [reply?.id] },
    });
  });

  it('message_sending can cancel a delivery', async () => {
    const before = channel.sent.length;
    harness.model.enqueue({ text: 'the SECRET is 42' });
    await channel.receive({ text: 'tell me', sender: { id: 'owner' } });
    await harness.settle();
    expect(channel.sent.length).toBe(before);
    expect(seen('message_sending').some((call) => textOf(call.event).includes('the SECRET is 42'))).toBe(
      true,
    );
  });

  it('inbound_claim: the first handler claiming a message answers it instead of the model', async () => {
    const requests = harness.model.messageRequests.length;
    const before = channel.sent.length;
    expect(await channel.receive({ text: 'claim: mine', sender: { id: 'owner' } })).toEqual({
      status: 'journaled',
    });
    const sent = await channel.waitForSent(before + 1);
    expect(sentText(sent.at(-1))).toBe('claimed by the plugin [signed]');
    expect(harness.model.messageRequests.length).toBe(requests);
  });

  it('channel_pairing_requested fires with the code for an unknown sender', async () => {
    const before = channel.sent.length;
    await channel.receive({ text: 'who are you', sender: { id: 'stranger' } });
    await channel.waitForSent(before + 1);
    const event = seen('channel_pairing_requested').at(-1)?.event;
    expect(event).toMatchObject({ channel: 'testchat', sender: { id: 'stranger' } });
    expect(String(event?.code)).toMatch(/^[A-Z2-9]{8}$/);
  });

  it('before_model_resolve overrides the model; before_prompt_build and before_agent_start shape the prompt; llm_input and llm_output fire', async () => {
    await ask('please use haiku for this', 'model-override');
    const request = harness.model.lastRequest;
    expect(request?.model).toBe('claude-haiku-4-5');
    expect(request?.systemText).toContain('POLICY-XYZ');
    expect(request?.lastUserText).toContain('CONTEXT-ABC');
    expect(seen('before_agent_start').length).toBeGreaterThan(0);
    expect(seen('llm_input').at(-1)?.event).toMatchObject({
      model: 'claude-haiku-4-5',
      provider: 'anthropic',
    });
    expect(seen('llm_output').at(-1)?.event).toMatchObject({ model: 'claude-haiku-4-5' });
  });

  it('before_tool_call blocks, rewrites, and fails closed; after_tool_call fires', async () => {
    harness.model.enqueue(
      { toolCalls: [{ name: 'read', input: { path: 'secret.txt' } }] },
      { text: 'done 1' },
      { toolCalls: [{ name: 'read', input: { path: 'a.txt' } }] },
      { text: 'done 2' },
      { toolCalls: [{ name: 'read', input: { path: 'crash.txt' } }] },
      { text: 'done 3' },
    );
    await ask('read the secret', 'tool-block');
    const blocked = JSON.stringify(harness.model.lastRequest?.messages.at(-1));
    expect(blocked).toContain('secrets stay secret');
    await ask('read a', 'tool-rewrite');
    expect(JSON.stringify(harness.model.lastRequest?.messages.at(-1))).toContain('contents of b');
    await ask('read crash', 'tool-fail-closed');
    const failClosed = JSON.stringify(harness.model.lastRequest?.messages.at(-1));
    expect(failClosed).toContain('"is_error":true');
    expect(failClosed).not.toContain('contents of');
    const after = seen('after_tool_call').at(-1)?.event;
    expect(after).toMatchObject({ toolName: 'read', params: { path: 'b.txt' } });
    expect(typeof after?.durationMs).toBe('number');
  });

  it('tool_result_persist changes what the transcript keeps, not what the model saw', async () => {
    const history = await client.request('chat.history', { sessionKey: 'agent:main:main', limit: 1000 });
    const stored = JSON.stringify(history.payload?.messages);
    expect(stored).toContain('[redacted for the transcript]');
    expect(stored).not.toContain('contents of b');
    // ...while the model itself was given the file (checked in the before_tool_call case).
    expect(seen('tool_result_persist').length).toBeGreaterThan(0);
  });

  it('before_message_write can keep a message out of the transcript', async () => {
    await ask('please do-not-store this line', 'write-block');
    const history = await client.request('chat.history', { sessionKey: 'agent:main:main', limit: 1000 });
    const userMessages = (history.payload?.messages as Array<{ role: string }> | undefined)?.filter(
      (message) => message.role === 'user',
    );
    expect(JSON.stringify(userMessages)).not.toContain('do-not-store');
    expect(JSON.stringify(history.payload?.messages)).toContain('do-not-store');
    expect(seen('before_message_write').length).toBeGreaterThan(0);
  });

  it('before_compaction and after_compaction fire around sessions.compact', async () => {
    harness.model.setFallback({ text: 'Short summary of the talk.' });
    const result = await client.request('sessions.compact', { key: 'agent:main:main' });
    expect(result.ok).toBe(true);
    expect(result.payload).toMatchObject({ compacted: true });
    expect(seen('before_compaction').at(-1)?.event).toMatchObject({
      sessionKey: 'agent:main:main',
      reason: 'manual',
    });
    const after = seen('after_compaction').at(-1)?.event;
    expect(after).toMatchObject({ sessionKey: 'agent:main:main', reason: 'manual' });
    expect(Number(after?.tokensAfter)).toBeLessThan(Number(after?.tokensBefore));
    harness.model.setFallback('echo');
  });

  it('before_reset and session_end fire on /new from an authorized sender', async () => {
    const before = channel.sent.length;
    await channel.receive({ text: '/new', sender: { id: 'owner' } });
    const sent = await channel.waitForSent(before + 1);
    expect(sentText(sent.at(-1))).toContain('New session started.');
    const ownerSession = 'agent:main:testchat:direct:owner';
    expect(seen('before_reset').at(-1)?.event).toMatchObject({ reason: 'new', sessionKey: ownerSession });
    expect((seen('before_reset').at(-1)?.event.messages as unknown[] | undefined)?.length).toBeGreaterThan(0);
    expect(seen('session_end').at(-1)?.event).toMatchObject({ reason: 'new', sessionKey: ownerSession });
  });

  it('subagent_spawned fires when a spawn is accepted; subagent_ended once, with the runtime outcome', async () => {
    harness.model.enqueue({
      toolCalls: [{ name: 'sessions_spawn', input: { task: 'count to three', label: 'counting' } }],
    });
    await ask('delegate the counting', 'subagent-hooks');
    const spawned = seen('subagent_spawned');
    expect(spawned).toHaveLength(1);
    expect(spawned[0]?.event).toMatchObject({
      requesterSessionKey: 'agent:main:main',
      agentId: 'main',
      task: 'count to three',
      label: 'counting',
      depth: 1,
    });
    await expect.poll(() => seen('subagent_ended').length, { timeout: 20_000 }).toBe(1);
    expect(seen('subagent_ended')[0]?.event).toMatchObject({
      runId: spawned[0]?.event.runId,
      childSessionKey: spawned[0]?.event.childSessionKey,
      outcome: 'ok',
    });
    await harness.settle(20_000);
  });

  it('every hook in the map fired at least once (gateway_stop is checked after close)', () => {
    const fired = new Set(calls.map((call) => call.hook));
    const missing = hookNames.filter((hook) => hook !== 'gateway_stop' && !fired.has(hook));
    expect(missing).toEqual([]);
  });
});
