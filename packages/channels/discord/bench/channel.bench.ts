// Benchmarks of the Discord channel through the real discord.js against FakeDiscord on
// 127.0.0.1: inbound throughput (gateway MESSAGE_CREATE → InboundMessage → receive), outbound
// send latency (REST), and the heap one connected account adds. Prints medians of 5 runs.
//
//   node --expose-gc --conditions=@switchboard/source bench/channel.bench.ts
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChannelAccount, resolveChannelAccounts } from '@switchboard/hooks';
import { createFakeDiscord, type FakeDiscord } from '@switchboard/testkit/discord';
import { createDiscordChannel } from '../src/channel.ts';

const runs = 5;
const inboundMessages = 2000;
const outboundMessages = 300;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const collect = (): void => (globalThis as { gc?: () => void }).gc?.();

async function startAccount(
  fake: FakeDiscord,
  onReceive: () => void,
): Promise<{ account: ChannelAccount; stop(): Promise<void> }> {
  const channel = createDiscordChannel();
  const [resolved] = resolveChannelAccounts(channel, { token: fake.token, restApi: fake.restApi }).accounts;
  const controller = new AbortController();
  const account = await channel.start({
    channelId: 'discord',
    accountId: 'default',
    account: resolved!.config,
    signal: controller.signal,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    async receive() {
      onReceive();
      return { status: 'journaled' };
    },
    setStatus() {},
    dataDirectory: mkdtempSync(join(tmpdir(), 'switchboard-discord-bench-')),
    registerHttpRoute() {},
    reportIgnored() {},
  });
  return {
    account,
    async stop() {
      controller.abort();
      await account.stop();
    },
  };
}

async function inboundRun(): Promise<number> {
  const fake = await createFakeDiscord().start();
  const users = Array.from({ length: 20 }, (_, index) => fake.addUser({ username: `user${index}` }).id);
  let received = 0;
  let done: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  const { stop } = await startAccount(fake, () => {
    received += 1;
    if (received === inboundMessages) done();
  });
  const began = performance.now();
  for (let index = 0; index < inboundMessages; index += 1)
    fake.sendDirect(users[index % users.length]!, `message number ${index}`);
  await all;
  const elapsed = performance.now() - began;
  await stop();
  await fake.close();
  return (inboundMessages / elapsed) * 1000;
}

async function outboundRun(): Promise<number> {
  const fake = await createFakeDiscord().start();
  const guild = fake.addGuild({ name: 'Bench', channels: [{ name: 'general' }] });
  const { account, stop } = await startAccount(fake, () => undefined);
  const began = performance.now();
  for (let index = 0; index < outboundMessages; index += 1) {
    await account.send({
      kind: 'text',
      channel: 'discord',
      accountId: 'default',
      peer: { kind: 'channel', id: guild.channels.general! },
      text: `reply number ${index}`,
    });
  }
  const elapsed = performance.now() - began;
  await stop();
  await fake.close();
  return elapsed / outboundMessages;
}

async function heapPerAccount(): Promise<number> {
  const fake = await createFakeDiscord().start();
  fake.addGuild({ name: 'Bench', channels: [{ name: 'general' }, { name: 'random' }] });
  collect();
  const before = process.memoryUsage().heapUsed;
  const started = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const own = await createFakeDiscord().start();
      own.addGuild({ name: 'Bench', channels: [{ name: 'general' }, { name: 'random' }] });
      return { own, handle: await startAccount(own, () => undefined) };
    }),
  );
  collect();
  const after = process.memoryUsage().heapUsed;
  for (const { own, handle } of started) {
    await handle.stop();
    await own.close();
  }
  await fake.close();
  // Includes each account's FakeDiscord (small next to discord.js).
  return (after - before) / 10;
}

const inbound: number[] = [];
const outbound: number[] = [];
const heap: number[] = [];
for (let run = 0; run < runs; run += 1) {
  inbound.push(await inboundRun());
  outbound.push(await outboundRun());
  heap.push(await heapPerAccount());
}
if ((globalThis as { gc?: unknown }).gc === undefined)
  console.log('(run with --expose-gc for a stable heap figure)');
console.log(
  `inbound: median ${Math.round(median(inbound))} messages/s (${inboundMessages} DMs per run, ${runs} runs)`,
);
console.log(
  `outbound: median ${median(outbound).toFixed(2)} ms per send (${outboundMessages} sequential sends per run)`,
);
console.log(
  `heap per connected account: median ${(median(heap) / 1024).toFixed(1)} KB, first run ${(heap[0]! / 1024).toFixed(1)} KB ` +
    '(10 accounts per run, one guild each; the first run includes lazy initialisation)',
);
