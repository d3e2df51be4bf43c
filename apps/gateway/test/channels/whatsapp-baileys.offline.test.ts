// WhatsApp (Baileys) messages written while the gateway is down. WhatsApp keeps them for the
// linked device and delivers them at its next login as `offline` stanzas, which Baileys 7
// acknowledges to the server and emits as `messages.upsert` of type `append` (not `notify`):
// if the channel skipped them, nothing would ever deliver them again. The real gateway runs as
// a child process on testkit's fake Baileys socket (see whatsapp-baileys.conformance.test.ts
// and decision 0007 for the socket-factory switch); it is stopped, people write, and it is
// started again on the same state directory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { conformanceAccess, waitForReplyMatching } from '@switchboard/testkit/conformance';
import {
  createWhatsAppBaileysConformanceDriver,
  type WhatsAppBaileysConformanceDriver,
} from '@switchboard/testkit/whatsapp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from '../child-gateway.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WhatsApp (baileys): messages written while the gateway is down', () => {
  const driver: WhatsAppBaileysConformanceDriver = createWhatsAppBaileysConformanceDriver();
  let model: FakeAnthropic;
  let gateway: ChildGateway;

  beforeAll(async () => {
    await driver.start();
    model = await createFakeAnthropic({ fallback: 'echo' }).start();
    const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-whatsapp-offline-'));
    const token = 'whatsapp-offline-token-0123456789abcdef';
    const config = {
      gateway: { port: 0, auth: { mode: 'token', token } },
      models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
      agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
      messages: { queue: { debounceMs: 0 } },
      channels: { whatsapp: driver.channelConfig(conformanceAccess(driver)) },
    };
    writeFileSync(join(stateDirectory, 'switchboard.json'), JSON.stringify(config, null, 2));
    gateway = await startChildGateway({ stateDirectory, token, environment: driver.environment() });
    // The gateway listens before its WhatsApp account has logged in: wait for the login, so
    // the first message is a live one.
    await driver.world.waitForLink((state) => state.open, 30_000);
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await driver.stop();
    await model?.close();
  });

  const prompts = () => model.messageRequests.map((request) => request.lastUserText ?? '');
  const count = (texts: readonly string[], pattern: RegExp) =>
    texts.filter((text) => pattern.test(text)).length;

  it('answers each of them exactly once after the gateway starts again, and marks them read', async () => {
    const world = driver.world;
    const { conversation } = await driver.sendDirect('alice', 'hello before the outage');
    await waitForReplyMatching(driver, conversation, /hello before the outage/, 30_000);
    await gateway.settle();

    await gateway.stop();
    await world.waitForLink((state) => !state.open, 10_000);
    const { messageId: first } = await driver.sendDirect('alice', 'first question while you were down');
    const { messageId: second } = await driver.sendDirect('alice', 'second question while you were down');
    const { messageId: inGroup } = await driver.sendGroup('bob', 'group question while you were down', true);

    await gateway.restart();
    await waitForReplyMatching(driver, conversation, /first question while you were down/, 30_000);
    await waitForReplyMatching(driver, conversation, /second question while you were down/, 30_000);
    const groupReply = await waitForReplyMatching(
      driver,
      driver.group,
      /group question while you were down/,
      30_000,
    );
    expect(groupReply.replyToMessageId).toBe(inGroup);
    await gateway.settle();
    await pause(300);

    const texts = driver.replies(conversation).map((reply) => reply.text);
    expect(count(texts, /first question while you were down/)).toBe(1);
    expect(count(texts, /second question while you were down/)).toBe(1);
    expect(count(texts, /hello before the outage/)).toBe(1);
    expect(count(prompts(), /first question while you were down/)).toBe(1);
    expect(count(prompts(), /second question while you were down/)).toBe(1);
    const read = world.readReceipts().map((key) => key.id);
    expect(read).toEqual(expect.arrayContaining([first, second, inGroup]));
  }, 120_000);

  it('answers an offline delivery of a message it already took in only once (the journal dedupes by id)', async () => {
    const world = driver.world;
    const { messageId, conversation } = await driver.sendDirect('alice', 'deliver me live and offline');
    await waitForReplyMatching(driver, conversation, /deliver me live and offline/, 30_000);
    await gateway.settle();

    // Down, and WhatsApp delivers the same message again at the next login (an `append` upsert).
    await gateway.stop();
    await world.waitForLink((state) => !state.open, 10_000);
    await driver.redeliver(messageId);
    const { messageId: fresh } = await driver.sendDirect('alice', 'a new one after the redelivery');
    await gateway.restart();
    await waitForReplyMatching(driver, conversation, /a new one after the redelivery/, 30_000);
    await gateway.settle();
    await pause(300);

    const texts = driver.replies(conversation).map((reply) => reply.text);
    expect(count(texts, /deliver me live and offline/)).toBe(1);
    expect(count(prompts(), /deliver me live and offline/)).toBe(1);
    expect(world.readReceipts().map((key) => key.id)).toContain(fresh);
  }, 120_000);
});
