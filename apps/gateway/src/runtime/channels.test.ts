import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChannelPlugin,
  type ChannelStartContext,
  defineChannelConfig,
  type Logger,
  z,
} from '@switchboard/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChannelManager, createChannelManager } from './channels.ts';
import { reportIgnoredMessage } from './ignored-messages.ts';
import { createNotAnsweredLog, type NotAnsweredLog } from './not-answered.ts';

interface LogLine {
  readonly level: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>> | undefined;
}

function recordingLogger(lines: LogLine[]): Logger {
  const write = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) =>
    lines.push({ level, message, fields });
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** A channel that keeps its start context, so the test can report as the channel would. */
function contextKeepingChannel(contexts: ChannelStartContext[]): ChannelPlugin {
  return {
    id: 'chat',
    label: 'Chat',
    capabilities: {
      chatTypes: ['direct', 'group'],
      threads: false,
      media: false,
      edits: false,
      typing: false,
      reactions: false,
      textLimit: 1000,
      markup: 'plain',
    },
    config: defineChannelConfig(z.object({})) as ChannelPlugin['config'],
    async start(context) {
      contexts.push(context);
      return {
        async send() {
          return { messageIds: [] };
        },
        async stop() {},
      };
    },
  };
}

const managers: ChannelManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.stop()));
});

async function startManager(): Promise<{
  context: ChannelStartContext;
  notAnswered: NotAnsweredLog;
  lines: LogLine[];
}> {
  const lines: LogLine[] = [];
  const notAnswered = createNotAnsweredLog({ now: () => 42 });
  const contexts: ChannelStartContext[] = [];
  const manager = createChannelManager({
    logger: recordingLogger(lines),
    dataRoot: mkdtempSync(join(tmpdir(), 'switchboard-channels-')),
    receive: async () => ({ status: 'journaled' }),
    notAnswered,
  });
  managers.push(manager);
  await manager.start([{ plugin: 'chat-plugin', channel: contextKeepingChannel(contexts) }], {
    chat: { accounts: { work: {} } },
  });
  const [context] = contexts;
  if (context === undefined) throw new Error('the channel was not started');
  return { context, notAnswered, lines };
}

describe('channel manager: reportIgnored', () => {
  it('records a channel’s admission drop for status, under its channel and account', async () => {
    const { context, notAnswered } = await startManager();
    context.reportIgnored({
      reason: 'guild-not-listed',
      chatId: 'c-1',
      senderId: 'u-1',
      messageId: 'm-1',
      note: 'guild g-1 is not listed under guilds',
    });
    expect(notAnswered.counts()).toEqual({ 'admission:guild-not-listed': 1 });
    expect(notAnswered.recent()).toEqual([
      {
        at: 42,
        reason: 'admission',
        detail: 'guild-not-listed',
        channel: 'chat',
        accountId: 'work',
        chatId: 'c-1',
        senderId: 'u-1',
        messageId: 'm-1',
        note: 'guild g-1 is not listed under guilds',
      },
    ]);
  });

  it('logs the first drop of a chat for a reason at info and the rest at debug', async () => {
    const { context, notAnswered, lines } = await startManager();
    for (let index = 0; index < 3; index += 1)
      context.reportIgnored({ reason: 'channel-not-listed', chatId: 'c-1', messageId: `m-${index}` });
    context.reportIgnored({ reason: 'channel-not-listed', chatId: 'c-2', messageId: 'm-9' });
    const drops = lines.filter((line) => line.message.startsWith('did not answer a message'));
    expect(drops.map((line) => [line.level, line.fields?.chatId])).toEqual([
      ['info', 'c-1'],
      ['debug', 'c-1'],
      ['debug', 'c-1'],
      ['info', 'c-2'],
    ]);
    expect(drops[0]?.message).toBe('did not answer a message: admission (channel-not-listed)');
    expect(drops[0]?.fields).toMatchObject({ channel: 'chat', accountId: 'work', messageId: 'm-0' });
    expect(notAnswered.counts()).toEqual({ 'admission:channel-not-listed': 4 });
  });

  it('keeps counts bounded by what a channel passes: a reason that is not a kebab-case word is unknown, long ids are cut', async () => {
    const { context, notAnswered } = await startManager();
    context.reportIgnored({ reason: 'Guild 123 not listed', chatId: 'x'.repeat(5000) });
    context.reportIgnored({ reason: '' });
    context.reportIgnored(undefined as never);
    expect(notAnswered.counts()).toEqual({ 'admission:unknown': 3 });
    const [latest, , oldest] = notAnswered.recent();
    expect(oldest?.chatId?.length).toBe(200);
    expect(latest).toMatchObject({ reason: 'admission', detail: 'unknown', channel: 'chat' });
  });

  it('never throws into the channel, even when recording fails', () => {
    const failing: NotAnsweredLog = {
      record() {
        throw new Error('broken');
      },
      counts: () => ({}),
      recent: () => [],
    };
    expect(() =>
      reportIgnoredMessage(
        failing,
        recordingLogger([]),
        { channel: 'chat', accountId: 'default' },
        {
          reason: 'guild-not-listed',
        },
      ),
    ).not.toThrow();
  });
});
