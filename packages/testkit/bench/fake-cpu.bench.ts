// CPU time the fake itself spends per zero-latency streamed turn, measured with the fake
// alone in a child process (so the client's cost and other load on the machine do not
// count), driven by a keep-alive node:http client in this process.
//
//   node --conditions=@switchboard/source bench/fake-cpu.bench.ts [runs] [requests] [concurrency]
import { fork } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { createFakeAnthropic } from '@switchboard/testkit/anthropic';

const replyText = 'The quick brown fox jumps over the lazy dog. '.repeat(6).slice(0, 240);

if (process.env.FAKE_ANTHROPIC_BENCH_CHILD === '1') {
  const fake = await createFakeAnthropic({ fallback: { text: replyText }, recordLimit: 1000 }).start();
  process.send?.({ port: fake.port });
  process.on('message', (message: string) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send?.({ cpuMicroseconds: usage.user + usage.system });
    } else if (message === 'stop') void fake.close().then(() => process.exit(0));
  });
} else {
  const runs = Number(process.argv[2] ?? 5);
  const requests = Number(process.argv[3] ?? 20_000);
  const concurrency = Number(process.argv[4] ?? 16);
  const child = fork(import.meta.filename, [], {
    env: { ...process.env, FAKE_ANTHROPIC_BENCH_CHILD: '1' },
    execArgv: process.execArgv,
  });
  const nextMessage = <Type>(): Promise<Type> =>
    new Promise((resolve) => child.once('message', resolve as never));
  const { port } = await nextMessage<{ port: number }>();
  const cpu = async (): Promise<number> => {
    child.send('cpu');
    return (await nextMessage<{ cpuMicroseconds: number }>()).cpuMicroseconds;
  };
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const body = JSON.stringify({
    model: 'claude-bench',
    max_tokens: 1024,
    stream: true,
    system: 'You are a benchmark.',
    messages: [{ role: 'user', content: 'Say something short.' }],
  });
  const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'k' };
  const once = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { port, host: '127.0.0.1', path: '/v1/messages', method: 'POST', headers, agent },
        (incoming) => {
          incoming.on('data', () => {});
          incoming.on('end', resolve);
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  const drive = async (count: number): Promise<void> => {
    let remaining = count;
    const worker = async (): Promise<void> => {
      while (remaining > 0) {
        remaining -= 1;
        await once();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };

  await drive(2_000);
  const perRequest: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const before = await cpu();
    await drive(requests);
    perRequest.push(((await cpu()) - before) / requests);
  }
  perRequest.sort((a, b) => a - b);
  const median = perRequest[Math.floor(perRequest.length / 2)]!;
  console.log(
    `fake Anthropic API CPU per zero-latency streamed turn (15 text deltas, fake alone in a child process): median ${median.toFixed(1)} µs  (runs: ${perRequest.map((value) => value.toFixed(1)).join(', ')})`,
  );
  console.log(`  => one core could serve about ${Math.round(1_000_000 / median)} streamed turns/s`);
  child.send('stop');
  agent.destroy();
}
