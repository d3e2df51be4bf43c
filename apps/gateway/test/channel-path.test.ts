import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { createTestChannel, sentText } from './test-channel.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

async function start(channelConfig: Record<string, unknown>, turns: Array<{ text: string }> = []) {
  const channel = createTestChannel();
  const harness = await startTestGateway({
    plugins: [channel.plugin],
    config: { channels: { testchat: channelConfig } },
    model: { turns },
  });
  running.push(harness);
  return { harness, channel };
}

const text = (entry: { message: { kind: string } }) => (entry.message as unknown as { text: string }).text;

describe('gateway: the channel path', () => {
  it('asks an unknown DM sender to pair; nothing reaches the model until approved', async () => {
    const { harness, channel } = await start({}, [{ text: 'welcome aboard' }]);
    const outcome = await channel.receive({ text: 'hello?', sender: { id: 'stranger' } });
    expect(outcome).toEqual({ status: 'dropped', reason: 'pairing-required' });
    const [pairingMessage] = await channel.waitForSent(1);
    const code = /code: ([A-Z2-9]{8})/.exec(text(pairingMessage!))?.[1];
    expect(code).toBeDefined();
    expect(harness.model.messageRequests.length).toBe(0);

    const again = await channel.receive({ text: 'hello again', sender: { id: 'stranger' } });
    expect(again.status).toBe('dropped');
    expect(channel.sent.length).toBe(1);

    const admin = await harness.connect();
    const list = await admin.request('pairing.list', {});
    expect((list.payload?.requests as Array<{ code: string }> | undefined)?.[0]?.code).toBe(code);
    expect((await admin.request('pairing.approve', { channel: 'testchat', code })).ok).toBe(true);

    expect(await channel.receive({ text: 'now?', sender: { id: 'stranger' } })).toEqual({
      status: 'journaled',
    });
    const replies = await channel.waitForSent(2);
    expect(text(replies[1]!)).toBe('welcome aboard');
    expect(replies[1]?.message.peer).toEqual({ kind: 'direct', id: 'stranger' });
    expect(harness.model.lastRequest?.lastUserText).toBe('now?');
  });

  it('answers an allowlisted sender, and a redelivered message id only once', async () => {
    const { harness, channel } = await start({ dmPolicy: 'allowlist', allowFrom: ['user-1'] }, [
      { text: 'one answer' },
    ]);
    expect(await channel.receive({ text: 'hi', messageId: 'platform-7' })).toEqual({ status: 'journaled' });
    expect(await channel.receive({ text: 'hi', messageId: 'platform-7' })).toEqual({ status: 'duplicate' });
    await channel.waitForSent(1);
    await harness.gateway.dispatcher.whenIdle();
    expect(channel.sent.length).toBe(1);
    expect(harness.model.messageRequests.length).toBe(1);
    expect(await channel.receive({ text: 'hi', sender: { id: 'someone-else' } })).toEqual({
      status: 'dropped',
      reason: 'dm-not-allowlisted',
    });
  });

  it('ignores a group message without a mention and answers one with a mention, threaded to it', async () => {
    const { harness, channel } = await start({ dmPolicy: 'open', groups: { 'room-1': {} } }, [
      { text: 'group reply' },
    ]);
    expect(
      await channel.receive({ text: 'chatter', chatType: 'group', wasMentioned: false } as never),
    ).toEqual({ status: 'dropped', reason: 'not-mentioned' });
    expect(
      await channel.receive({
        text: '@bot help',
        chatType: 'group',
        wasMentioned: true,
        messageId: 'g-1',
      } as never),
    ).toEqual({ status: 'journaled' });
    const [reply] = await channel.waitForSent(1);
    expect(reply?.message).toMatchObject({
      peer: { kind: 'group', id: 'room-1' },
      replyToMessageId: 'g-1',
      text: 'group reply',
    });
    expect(harness.model.messageRequests.length).toBe(1);
    const sessions = await (await harness.connect()).request('sessions.list', {});
    expect(
      (sessions.payload?.sessions as Array<{ key: string }> | undefined)?.map((session) => session.key),
    ).toContain('agent:main:testchat:group:room-1');
  });

  it('splits a long reply at the channel text limit and shows typing while the run lasts', async () => {
    const long = Array.from({ length: 12 }, (_, index) => `Paragraph ${index} ${'word '.repeat(15)}`).join(
      '\n\n',
    );
    const { harness, channel } = await start({ dmPolicy: 'open' }, [{ text: long }]);
    await channel.receive({ text: 'tell me a lot' });
    await channel.waitForSent(1);
    await harness.gateway.dispatcher.whenIdle();
    expect(channel.sent.length).toBeGreaterThan(1);
    for (const entry of channel.sent) expect(text(entry).length).toBeLessThanOrEqual(500);
    const normalize = (value: string) => value.replace(/\s+/g, ' ').trim();
    expect(normalize(channel.sent.map(text).join('\n\n'))).toBe(normalize(long));
    expect(channel.typing.length).toBeGreaterThan(0);
  });

  it('runs directives from authorized senders without the model', async () => {
    const { harness, channel } = await start({ dmPolicy: 'allowlist', allowFrom: ['user-1'] }, [
      { text: 'first' },
    ]);
    await channel.receive({ text: 'hello' });
    await channel.waitForSent(1);
    await channel.receive({ text: '/status' });
    const [, status] = await channel.waitForSent(2);
    expect(text(status!)).toContain('Session: agent:main:testchat:direct:user-1');
    await channel.receive({ text: '/new' });
    const [, , reset] = await channel.waitForSent(3);
    expect(text(reset!)).toBe('New session started.');
    expect(harness.model.messageRequests.length).toBe(1);
  });

  it('gives each account a private data directory and mounts its webhook routes on the gateway port', async () => {
    const { harness, channel } = await start({ accounts: { work: {}, home: {} } });
    for (const accountId of ['work', 'home']) {
      const directory = channel.dataDirectories.get(accountId);
      expect(directory).toBe(join(harness.stateDirectory, 'channels', 'testchat', accountId));
      expect(statSync(directory!).mode & 0o777).toBe(0o700);
      const response = await fetch(`${harness.gateway.httpUrl}/hooks/testchat/${accountId}`, {
        method: 'POST',
      });
      expect(await response.json()).toEqual({ account: accountId });
    }
    expect((await fetch(`${harness.gateway.httpUrl}/hooks/testchat/nobody`, { method: 'POST' })).status).toBe(
      404,
    );
    expect((await fetch(`${harness.gateway.httpUrl}/hooks/testchat/work`, { method: 'GET' })).status).toBe(
      404,
    );
  });

  it('retries a send the channel marks retryable, and gives up on one it does not', async () => {
    const { harness, channel } = await start({ dmPolicy: 'open' }, [
      { text: 'first reply' },
      { text: 'second reply' },
    ]);
    channel.failNextSends(2, true);
    await channel.receive({ text: 'hello' });
    const [delivered] = await channel.waitForSent(1);
    expect(sentText(delivered)).toBe('first reply');
    channel.failNextSends(1, false);
    await channel.receive({ text: 'again' });
    await harness.settle();
    expect(channel.sent.map(sentText)).toEqual(['first reply']);
    expect(harness.logs.some((line) => line.includes('send failed, retrying'))).toBe(true);
  });
});
