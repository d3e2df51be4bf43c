// Benchmarks of the Slack channel against the fake Slack on 127.0.0.1, through bolt:
// - Markdown → mrkdwn conversion and re-splitting of a 4,000-character reply;
// - inbound latency and throughput: a user message posted by the fake until the channel
//   acknowledged it (HTTP: signed POST → bolt verification → receive → 200; Socket Mode:
//   envelope → receive → ack);
// - outbound: `send` of a short reply (chat.postMessage round trip).
// Run: pnpm --filter @switchboard/channel-slack bench
import { performance } from 'node:perf_hooks';
import { createFakeSlack, type FakeSlack } from '@switchboard/testkit/slack';
import { markdownToMrkdwn, splitMrkdwn } from '../src/index.ts';
import { type Harness, startHarness } from '../test/harness.ts';

const rounds = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

function benchConversion(): void {
  const paragraph = 'Some **bold** text, a [link](https://example.com/a?b=1&c=2), `code <x>` and *italics*. ';
  const code = Array.from({ length: 40 }, (_, index) => `  if (a < b && c > ${index}) { run(); }`).join('\n');
  const reply =
    `# Heading\n\n${paragraph.repeat(20)}\n\n- item **one**\n- item two\n\n\`\`\`ts\n${code}\n\`\`\`\n\n${paragraph.repeat(6)}`.slice(
      0,
      4000,
    );
  const perRound: number[] = [];
  const iterations = 2000;
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    for (let index = 0; index < iterations; index += 1) splitMrkdwn(markdownToMrkdwn(reply), 4000);
    perRound.push(((performance.now() - started) * 1000) / iterations);
  }
  console.log(
    `markdown → mrkdwn + split, ${reply.length}-char reply: median ${median(perRound).toFixed(1)} µs per reply (${rounds} rounds × ${iterations})`,
  );
}

async function withAccount(
  mode: 'http' | 'socket',
  run: (fake: FakeSlack, harness: Harness) => Promise<void>,
): Promise<void> {
  const fake = await createFakeSlack({
    workspaces: [{ teamId: 'T0BENCH', delivery: mode }],
    socket: { pingIntervalMs: 0 },
  }).start();
  fake.addUser({ id: 'U0BENCH', name: 'bench' });
  fake.addChannel({ id: 'C0BENCH', name: 'bench' });
  const workspace = fake.workspace();
  const harness = await startHarness({
    config: {
      mode,
      botToken: workspace.botToken,
      ...(mode === 'http' ? { signingSecret: workspace.signingSecret } : { appToken: workspace.appToken }),
      slackApiUrl: fake.slackApiUrl,
    },
  });
  if (mode === 'http') fake.setRequestUrl(`${harness.httpUrl}/slack/default/events`);
  try {
    await run(fake, harness);
  } finally {
    await harness.stop();
    await fake.close();
  }
}

async function benchInbound(mode: 'http' | 'socket'): Promise<void> {
  const messages = 200;
  const latencies: number[] = [];
  const throughputs: number[] = [];
  await withAccount(mode, async (fake) => {
    const dm = fake.directChannel('U0BENCH').id;
    for (let round = 0; round < rounds; round += 1) {
      const started = performance.now();
      for (let index = 0; index < messages; index += 1) {
        const before = performance.now();
        const posted = await fake.postUserMessage({
          user: 'U0BENCH',
          channel: dm,
          text: `message ${round}-${index}`,
        });
        if (!posted.delivered) throw new Error('an event was not acknowledged');
        latencies.push(performance.now() - before);
      }
      throughputs.push(messages / ((performance.now() - started) / 1000));
    }
  });
  console.log(
    `inbound ${mode.padEnd(6)}: median ${median(latencies).toFixed(2)} ms, p95 ${percentile(latencies, 0.95).toFixed(2)} ms per event (post → ack), median ${median(throughputs).toFixed(0)} events/s sequential (${rounds} rounds × ${messages})`,
  );
}

async function benchOutbound(): Promise<void> {
  const messages = 200;
  const latencies: number[] = [];
  await withAccount('http', async (_fake, harness) => {
    for (let index = 0; index < messages * rounds; index += 1) {
      const before = performance.now();
      await harness.account.send({
        kind: 'text',
        channel: 'slack',
        accountId: 'default',
        peer: { kind: 'channel', id: 'C0BENCH' },
        text: `reply **${index}** with a [link](https://example.com)`,
      });
      latencies.push(performance.now() - before);
    }
  });
  console.log(
    `outbound send: median ${median(latencies).toFixed(2)} ms, p95 ${percentile(latencies, 0.95).toFixed(2)} ms per message (chat.postMessage round trip, ${rounds * messages} sends)`,
  );
}

benchConversion();
await benchInbound('http');
await benchInbound('socket');
await benchOutbound();
