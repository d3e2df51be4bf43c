// Benchmarks for the Telegram channel, against FakeTelegram on 127.0.0.1:
// - rendering a 4,000-character Markdown reply to Telegram HTML;
// - inbound throughput: updates through long polling into `receive`;
// - the cost of `send` over a bare grammY `sendMessage` (rendering, retry wrapper).
// Run: pnpm --filter @switchboard/channel-telegram bench
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noopLogger, resolveChannelAccounts } from '@switchboard/hooks';
import { createFakeTelegram } from '@switchboard/testkit/telegram';
import { Bot } from 'grammy';
import { createTelegramChannel, markdownToTelegramHtml } from '../src/index.ts';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 0 ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[middle]!;
}

function reply(): string {
  const parts: string[] = [];
  let index = 0;
  while (parts.join('\n\n').length < 3800) {
    parts.push(
      index % 4 === 3
        ? `\`\`\`ts\nconst value${index} = compute(${index}); // <step ${index}>\nreturn value${index} * 2;\n\`\`\``
        : `Paragraph ${index} with **bold**, _italic_, \`inline code\`, a [link](https://example.com/${index}?a=1&b=2) and a list:\n- first item\n- second item`,
    );
    index += 1;
  }
  return parts.join('\n\n').slice(0, 4000);
}

async function benchRender(): Promise<void> {
  const markdown = reply();
  for (let warm = 0; warm < 200; warm += 1) markdownToTelegramHtml(markdown);
  const samples: number[] = [];
  for (let run = 0; run < 2000; run += 1) {
    const started = performance.now();
    markdownToTelegramHtml(markdown);
    samples.push(performance.now() - started);
  }
  console.log(
    `render ${markdown.length}-char Markdown reply to Telegram HTML: median ${(median(samples) * 1000).toFixed(1)} µs`,
  );
}

async function startAccount(
  fake: Awaited<ReturnType<ReturnType<typeof createFakeTelegram>['start']>>,
  onReceive: () => void,
) {
  const channel = createTelegramChannel();
  const { accounts } = resolveChannelAccounts(channel, {
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    pollingTimeoutSeconds: 1,
  });
  const dataDirectory = await mkdtemp(join(tmpdir(), 'switchboard-telegram-bench-'));
  const controller = new AbortController();
  const account = await channel.start({
    channelId: 'telegram',
    accountId: 'default',
    account: accounts[0]!.config,
    signal: controller.signal,
    logger: noopLogger,
    async receive() {
      onReceive();
      return { status: 'journaled' };
    },
    setStatus() {},
    dataDirectory,
    registerHttpRoute() {},
    reportIgnored() {},
  });
  return {
    account,
    async stop() {
      controller.abort();
      await account.stop();
      await rm(dataDirectory, { recursive: true, force: true });
    },
  };
}

async function benchInbound(): Promise<void> {
  const rates: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const fake = await createFakeTelegram().start();
    let received = 0;
    let done: () => void = () => {};
    const count = 2000;
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const running = await startAccount(fake, () => {
      received += 1;
      if (received === count) done();
    });
    const started = performance.now();
    for (let index = 0; index < count; index += 1)
      fake.pushMessage({ chat: 1000 + (index % 50), text: `message ${index}` });
    await finished;
    rates.push(count / ((performance.now() - started) / 1000));
    await running.stop();
    await fake.close();
  }
  console.log(
    `inbound through long polling into receive (2,000 updates, 50 chats): median ${Math.round(median(rates))} messages/s`,
  );
}

async function benchSend(): Promise<void> {
  const fake = await createFakeTelegram().start();
  const running = await startAccount(fake, () => {});
  const api = new Bot(fake.token, { client: { apiRoot: fake.apiRoot } }).api;
  const text = 'A **short** reply with `code` and a [link](https://example.com).';
  const html = markdownToTelegramHtml(text)[0]!.html;
  const bare: number[] = [];
  const channel: number[] = [];
  for (let run = 0; run < 50; run += 1) {
    await api.sendMessage(7, html, { parse_mode: 'HTML' });
    await running.account.send({
      kind: 'text',
      channel: 'telegram',
      accountId: 'default',
      peer: { kind: 'direct', id: '7' },
      text,
    });
  }
  for (let run = 0; run < 500; run += 1) {
    let started = performance.now();
    await api.sendMessage(7, html, { parse_mode: 'HTML' });
    bare.push(performance.now() - started);
    started = performance.now();
    await running.account.send({
      kind: 'text',
      channel: 'telegram',
      accountId: 'default',
      peer: { kind: 'direct', id: '7' },
      text,
    });
    channel.push(performance.now() - started);
  }
  const ratio = median(channel) / median(bare);
  console.log(
    `send one short reply: channel median ${median(channel).toFixed(3)} ms, bare grammY sendMessage median ${median(bare).toFixed(3)} ms, ratio ${ratio.toFixed(2)}`,
  );
  await running.stop();
  await fake.close();
}

await benchRender();
await benchInbound();
await benchSend();
