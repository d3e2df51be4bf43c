// Every message the gateway decides not to answer at admission (access policy, pairing, a
// journal duplicate, a channel's own admission through `reportIgnored`) is counted and listed
// in `status`, and logged at info once per chat and reason, at debug after that.
import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus } from '../src/cli/operator/status-command.ts';
import { startTestGateway, type TestGateway } from './harness.ts';
import { createTestChannel } from './test-channel.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

interface NotAnsweredStatus {
  readonly counts: Record<string, number>;
  readonly recent: Array<{
    readonly reason: string;
    readonly detail: string;
    readonly channel: string;
    readonly accountId: string;
    readonly chatId?: string;
    readonly senderId?: string;
    readonly messageId?: string;
    readonly note?: string;
  }>;
}

async function status(harness: TestGateway): Promise<Record<string, unknown>> {
  const response = await (await harness.connect()).request('status', {});
  expect(response.ok).toBe(true);
  return response.payload as Record<string, unknown>;
}

/** Log lines about one not-answered decision, by level. */
function dropLines(harness: TestGateway, reason: string): { info: string[]; debug: string[] } {
  const lines = harness.logs.filter((line) => line.includes(`did not answer a message: ${reason}`));
  return {
    info: lines.filter((line) => / INFO /.test(line)),
    debug: lines.filter((line) => / DEBUG /.test(line)),
  };
}

describe('gateway: admission diagnostics', () => {
  it('counts and lists gateway admission drops (pairing, allowlist, no mention, disabled DMs, duplicates) in status', async () => {
    const channel = createTestChannel();
    const harness = await startTestGateway({
      plugins: [channel.plugin],
      config: {
        channels: {
          testchat: {
            groups: { 'room-1': {} },
            accounts: {
              default: {},
              strict: { dmPolicy: 'allowlist', allowFrom: ['user-1'] },
              quiet: { dmPolicy: 'disabled' },
            },
          },
        },
      },
      model: { turns: [{ text: 'hello back' }] },
    });
    running.push(harness);

    // Pairing pending: the first message gets a code, both are not answered by the model.
    await channel.receive({ text: 'hi', sender: { id: 'stranger' }, messageId: 'p-1' });
    await channel.receive({ text: 'hello?', sender: { id: 'stranger' }, messageId: 'p-2' });
    // Not on the allowlist of the strict account.
    await channel.receive({ text: 'hi', sender: { id: 'someone-else' }, messageId: 'a-1' }, 'strict');
    // DMs off on the quiet account.
    await channel.receive({ text: 'hi', sender: { id: 'user-1' }, messageId: 'd-1' }, 'quiet');
    // Group chatter without a mention, three times in the same room; one in an unlisted room.
    for (const messageId of ['g-1', 'g-2', 'g-3'])
      await channel.receive({ text: 'chatter', chatType: 'group', wasMentioned: false, messageId } as never);
    await channel.receive({
      text: '@bot hi',
      chatType: 'group',
      wasMentioned: true,
      peer: { kind: 'group', id: 'room-2' },
      messageId: 'g-4',
    } as never);
    // An allowlisted sender's message delivered twice by the platform: answered once.
    await channel.receive({ text: 'hi', messageId: 'twice' }, 'strict');
    expect(await channel.receive({ text: 'hi', messageId: 'twice' }, 'strict')).toEqual({
      status: 'duplicate',
    });
    await harness.settle();

    const payload = await status(harness);
    const notAnswered = payload.notAnswered as NotAnsweredStatus;
    expect(notAnswered.counts).toEqual({
      'admission:pairing-required': 2,
      'admission:dm-not-allowlisted': 1,
      'admission:dm-disabled': 1,
      'admission:not-mentioned': 3,
      'admission:group-not-allowlisted': 1,
      'duplicate:already-journaled': 1,
    });
    expect(notAnswered.recent[0]).toMatchObject({
      reason: 'duplicate',
      detail: 'already-journaled',
      channel: 'testchat',
      accountId: 'strict',
      chatId: 'user-1',
      messageId: 'twice',
    });
    expect(notAnswered.recent.find((entry) => entry.messageId === 'g-4')).toMatchObject({
      reason: 'admission',
      detail: 'group-not-allowlisted',
      accountId: 'default',
      chatId: 'room-2',
      senderId: 'user-1',
    });
    expect(notAnswered.recent.find((entry) => entry.messageId === 'a-1')).toMatchObject({
      detail: 'dm-not-allowlisted',
      accountId: 'strict',
      senderId: 'someone-else',
    });
    expect(notAnswered.recent).toHaveLength(9);

    // One info line per chat and reason; the repeats go to debug.
    expect(dropLines(harness, 'admission (not-mentioned)').info).toHaveLength(1);
    expect(dropLines(harness, 'admission (not-mentioned)').debug).toHaveLength(2);
    expect(dropLines(harness, 'admission (pairing-required)').info).toHaveLength(1);
    expect(dropLines(harness, 'admission (pairing-required)').debug).toHaveLength(1);
    expect(dropLines(harness, 'admission (not-mentioned)').info[0]).toMatch(/chatId=room-1/);

    const printed = formatStatus(payload);
    expect(printed).toMatch(/Not answered since start: .*admission:not-mentioned 3/);
    expect(printed).toMatch(/testchat chat room-2: admission \(group-not-allowlisted\)/);
    // The model saw only the one admitted message.
    expect(harness.model.messageRequests.length).toBe(1);
  });

  it('records what a channel reports it ignored before receive, with its note', async () => {
    const channel = createTestChannel();
    const harness = await startTestGateway({
      plugins: [channel.plugin],
      config: { channels: { testchat: { accounts: { work: {} } } } },
    });
    running.push(harness);
    for (const messageId of ['m-1', 'm-2'])
      channel.reportIgnored(
        {
          reason: 'guild-not-listed',
          chatId: 'channel-9',
          senderId: 'user-7',
          messageId,
          note: 'guild g-1 is not listed under guilds',
        },
        'work',
      );

    const payload = await status(harness);
    const notAnswered = payload.notAnswered as NotAnsweredStatus;
    expect(notAnswered.counts).toEqual({ 'admission:guild-not-listed': 2 });
    expect(notAnswered.recent[0]).toEqual({
      at: expect.any(Number),
      reason: 'admission',
      detail: 'guild-not-listed',
      channel: 'testchat',
      accountId: 'work',
      chatId: 'channel-9',
      senderId: 'user-7',
      messageId: 'm-2',
      note: 'guild g-1 is not listed under guilds',
    });
    expect(dropLines(harness, 'admission (guild-not-listed)').info).toHaveLength(1);
    expect(formatStatus(payload)).toMatch(
      /testchat chat channel-9: admission \(guild-not-listed\) - guild g-1 is not listed under guilds/,
    );
  });
});
