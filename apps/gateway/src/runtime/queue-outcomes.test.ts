import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutboundMessage } from '@switchboard/hooks';
import { createSqliteSessionStore, type QueuedMessage, type SessionStore } from '@switchboard/sessions';
import { afterEach, describe, expect, it } from 'vitest';
import { createInboundJournal } from './journal.ts';
import { createNotAnsweredLog } from './not-answered.ts';
import type { OutboundOptions, OutboundResult } from './outbound.ts';
import { createQueueOutcomes } from './queue-outcomes.ts';
import { createRunRegistry } from './runs.ts';
import type { TurnInput } from './turn-input.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function setup() {
  const store = await createSqliteSessionStore({
    stateDirectory: mkdtempSync(join(tmpdir(), 'switchboard-queue-outcomes-')),
  });
  stores.push(store);
  const sent: Array<{ message: OutboundMessage; options: OutboundOptions | undefined }> = [];
  const notAnswered = createNotAnsweredLog({ now: () => 5 });
  const runs = createRunRegistry();
  const handle = createQueueOutcomes({
    journal: createInboundJournal({ store, logger: silent }),
    runs,
    send: async (message, options): Promise<OutboundResult> => {
      sent.push({ message, options });
      return { status: 'sent', messageIds: ['x'] };
    },
    logger: silent,
    notAnswered,
    capFor: () => 7,
  });
  return { store, sent, notAnswered, runs, handle };
}

async function queued(
  store: SessionStore,
  id: string,
  text = `text ${id}`,
): Promise<QueuedMessage<TurnInput>> {
  const ref = { channel: 'telegram', accountId: 'default', messageId: id };
  await store.journalInbound({ ...ref, payload: {} });
  const payload: TurnInput = {
    kind: 'message',
    ref,
    origin: 'channel',
    text,
    agentId: 'main',
    sessionKey: 'agent:main:telegram:direct:42',
    chatType: 'direct',
    channel: 'telegram',
    accountId: 'default',
    peer: { kind: 'direct', id: '42' },
    senderId: '42',
    receivedAt: 1,
  };
  return { id, text, payload, routeKey: 'r', lane: 'main', mode: 'collect', enqueuedAt: 1, arrival: 1 };
}

const stateOf = async (store: SessionStore, id: string) =>
  (await store.journalInbound({ channel: 'telegram', accountId: 'default', messageId: id })).record.state;

describe('queue outcomes', () => {
  it('a full queue under drop "new" fails the record with its reason and tells the sender, once', async () => {
    const { store, sent, notAnswered, handle } = await setup();
    const message = await queued(store, 'm1', 'please book the table for 8');
    handle({
      type: 'dropped',
      sessionKey: message.payload.sessionKey,
      reason: 'cap-new',
      messages: [message],
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await stateOf(store, 'm1')).toBe('failed');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.message).toMatchObject({ channel: 'telegram', peer: { id: '42' } });
    const notice = sent[0]?.message.kind === 'text' ? sent[0].message.text : '';
    expect(notice).toContain('limit 7');
    expect(notice).toContain('please book the table for 8');
    expect(sent[0]?.options?.idempotencyKey).toBe('telegram:default:m1:dropped');
    expect(notAnswered.counts()).toEqual({ 'queue-full:cap-new': 1 });
  });

  it('a duplicate leaves the journal alone: the queued copy answers it', async () => {
    const { store, sent, notAnswered, handle } = await setup();
    const message = await queued(store, 'm2');
    handle({
      type: 'dropped',
      sessionKey: message.payload.sessionKey,
      reason: 'duplicate',
      messages: [message],
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await stateOf(store, 'm2')).toBe('received');
    expect(sent).toEqual([]);
    expect(notAnswered.counts()).toEqual({ 'duplicate:duplicate': 1 });
  });

  it('a summarized message stays open for the turn that will answer it', async () => {
    const { store, sent, notAnswered, handle } = await setup();
    const message = await queued(store, 'm3');
    handle({ type: 'summarized', sessionKey: message.payload.sessionKey, messages: [message] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await stateOf(store, 'm3')).toBe('received');
    expect(sent).toEqual([]);
    expect(notAnswered.counts()).toEqual({});
  });
});
