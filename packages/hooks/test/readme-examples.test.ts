import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChannelAccountStatus,
  createPluginRegistry,
  emptyUsage,
  type InboundMessage,
  type ReceiveOutcome,
  resolveChannelAccounts,
} from '../src/index.ts';
import examplePlugin, { createExampleChannel } from './example-channel.ts';
import guard from './example-guard-plugin.ts';
import { createRecordingLogger } from './recording-logger.ts';

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.close(resolve);
          server.closeAllConnections();
        }),
    ),
  );
});

async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

function reply(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

describe('the README examples', () => {
  it('are the code these tests run', () => {
    const readme = readFileSync(join(import.meta.dirname, '../README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
    const files = ['example-guard-plugin.ts', 'example-channel.ts'].map((file) =>
      readFileSync(join(import.meta.dirname, file), 'utf8'),
    );
    for (const [index, file] of files.entries()) {
      const lines = (blocks[index] ?? '')
        .split('\n')
        .filter(
          (line) => line.trim() !== '' && !/^import |^\/\/ index\.ts|^export default|^} from /.test(line),
        );
      expect(lines.length).toBeGreaterThan(20);
      expect(lines.filter((line) => !file.includes(line))).toEqual([]);
    }
  });

  it('the guard plugin blocks tools, signs messages and reports runs', async () => {
    const posted: unknown[] = [];
    const metricsUrl = await listen(async (request, response) => {
      posted.push(await readJson(request));
      reply(response, {});
    });
    const registry = createPluginRegistry({ logger: createRecordingLogger() });
    await registry.register(guard, {
      entry: {
        config: { blockedTools: ['exec'], signature: '-- sent by a bot', metricsUrl: `${metricsUrl}/runs` },
      },
    });
    const run = { sessionKey: 'agent:main:main', agentId: 'main', runId: 'r1' };
    await expect(
      registry.hooks.run('before_tool_call', { ...run, toolCallId: 'c1', toolName: 'exec', params: {} }),
    ).resolves.toEqual({ block: true, plugin: 'guard', reason: 'exec is disabled on this gateway' });
    await expect(
      registry.hooks.run('before_tool_call', {
        ...run,
        toolCallId: 'c2',
        toolName: 'read',
        params: { path: 'a' },
      }),
    ).resolves.toEqual({ block: false, params: { path: 'a' } });
    const sending = await registry.hooks.run('message_sending', {
      message: {
        kind: 'text',
        channel: 'example',
        accountId: 'default',
        peer: { kind: 'direct', id: 'u' },
        text: 'hi',
      },
    });
    expect(sending).toMatchObject({ cancel: false, message: { text: 'hi\n\n-- sent by a bot' } });
    await registry.hooks.run('agent_end', {
      ...run,
      messages: [],
      success: true,
      durationMs: 3,
      usage: { ...emptyUsage, totalTokens: 42 },
    });
    expect(posted).toEqual([{ agent: 'main', tokens: 42 }]);
  });

  it('the example channel receives, acknowledges after the journal, sends, edits and stops', async () => {
    const requests: Array<{ method: string; body: Record<string, unknown>; auth: string | undefined }> = [];
    const events: Array<Record<string, unknown>> = [];
    const parked = new Set<{ offset: number; respond: () => void }>();
    const base = await listen(async (request, response) => {
      const method = (request.url ?? '').replace('/api/', '');
      const body = await readJson(request);
      requests.push({ method, body, auth: request.headers.authorization });
      if (method === 'me') return reply(response, { id: 'bot-1' });
      if (method === 'send') return reply(response, { id: `out-${requests.length}` });
      if (method === 'edit' || method === 'typing') return reply(response, { ok: true });
      if (method !== 'poll') return response.writeHead(404).end();
      const offset = Number(body.offset);
      const ready = () => events.filter((event) => Number(event.seq) >= offset);
      if (ready().length > 0) return reply(response, { events: ready() });
      const waiter = {
        offset,
        respond: () => {
          parked.delete(waiter);
          if (!response.writableEnded) reply(response, { events: ready() });
        },
      };
      parked.add(waiter);
      const timer = setTimeout(waiter.respond, 200);
      response.on('close', () => {
        clearTimeout(timer);
        parked.delete(waiter);
      });
    });
    const push = (event: Record<string, unknown>) => {
      events.push(event);
      for (const waiter of [...parked]) waiter.respond();
    };

    const registry = createPluginRegistry({ logger: createRecordingLogger() });
    await registry.register(examplePlugin);
    const channel = registry.channel('example')?.channel ?? createExampleChannel();
    const { accounts } = resolveChannelAccounts(channel, { token: 'secret-token', apiBase: `${base}/api` });
    const account = accounts[0];
    if (account === undefined) throw new Error('no account');
    expect(account.config).toMatchObject({ dmPolicy: 'pairing', requireMention: true });

    const controller = new AbortController();
    const statuses: ChannelAccountStatus[] = [];
    const received: InboundMessage[] = [];
    let journal: ((outcome: ReceiveOutcome) => void) | undefined;
    const running = await channel.start({
      channelId: 'example',
      accountId: account.accountId,
      account: account.config,
      signal: controller.signal,
      logger: createRecordingLogger(),
      receive(message) {
        received.push(message);
        return new Promise<ReceiveOutcome>((resolve) => {
          journal = resolve;
        });
      },
      setStatus: (status) => statuses.push(status),
      dataDirectory: tmpdir(),
      registerHttpRoute: () => {},
      reportIgnored: () => {},
    });
    expect(statuses).toEqual([{ state: 'starting' }, { state: 'connected', identity: { id: 'bot-1' } }]);

    push({
      seq: 0,
      id: 'm-1',
      chat: { id: 'g-1', type: 'group', title: 'Team' },
      from: { id: 'u-1', name: 'Ada' },
      text: '@bot hello',
      date: 1_700_000_000,
      mentionsMe: true,
    });
    await expect.poll(() => received.length).toBe(1);
    expect(received[0]).toMatchObject({
      channel: 'example',
      accountId: 'default',
      chatType: 'group',
      peer: { kind: 'group', id: 'g-1', name: 'Team' },
      sender: { id: 'u-1', name: 'Ada' },
      wasMentioned: true,
      timestamp: 1_700_000_000_000,
    });
    // Until the gateway has journaled the message, the channel does not poll past it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const pollOffsets = () =>
      requests.filter((entry) => entry.method === 'poll').map((entry) => entry.body.offset);
    expect(pollOffsets()).toEqual([0]);
    journal?.({ status: 'journaled' });
    await expect.poll(() => pollOffsets().at(-1)).toBe(1);

    const peer = { kind: 'group', id: 'g-1' } as const;
    const sent = await running.send({
      kind: 'text',
      channel: 'example',
      accountId: 'default',
      peer,
      text: 'hi **Ada**',
    });
    expect(sent.messageIds).toHaveLength(1);
    await running.edit?.({ peer, messageId: sent.messageIds[0] ?? '', text: 'edited' });
    await running.typing?.({ peer });
    expect(
      requests.filter((entry) => entry.method !== 'poll').map((entry) => [entry.method, entry.body]),
    ).toEqual([
      ['me', {}],
      ['send', { to: 'g-1', text: 'hi **Ada**' }],
      ['edit', { to: 'g-1', id: sent.messageIds[0], text: 'edited' }],
      ['typing', { to: 'g-1' }],
    ]);
    expect(new Set(requests.map((entry) => entry.auth))).toEqual(new Set(['Bearer secret-token']));

    controller.abort();
    await running.stop();
    expect(statuses.at(-1)).toEqual({ state: 'stopped' });
    const pollsAtStop = pollOffsets().length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pollOffsets().length).toBe(pollsAtStop);
  });
});
