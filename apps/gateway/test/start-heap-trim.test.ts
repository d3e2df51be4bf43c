// A gateway that starts and then receives nothing gives back the garbage of its start-up
// (module loading, schema construction, the config parse): the idle heap trim counts start-up
// as activity and collects at its first quiet check (decision 0025). Runs the gateway as a
// child process, as an operator does, and reads its debug log and its resident memory.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildGateway } from './child-gateway.ts';
import { pollUntil } from './poll.ts';

const token = 'start-heap-trim-token-0123456789abcdef';
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function residentMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

describe('a gateway left idle after start', { timeout: 90_000 }, () => {
  it('collects its start-up garbage without any message arriving', async () => {
    const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-start-trim-'));
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token } },
        logging: { level: 'debug' },
      }),
    );
    const gateway = await startChildGateway({ stateDirectory, token });
    cleanups.push(() => gateway.stop());
    const status = await (await gateway.client()).request('status', {});
    const pid = Number(status.payload?.pid);
    const afterStart = residentMegabytes(pid);

    // The trim checks every 5 s: start-up marks activity, the next quiet check collects.
    const line = await pollUntil(
      'the heap trim after start-up',
      async () => gateway.output.join('').match(/gave heap back[^\n]*/)?.[0],
      { timeoutMs: 60_000 },
    );
    const heapAfter = /heapMbAfter=(\d+)/.exec(line)?.[1];
    const heapBefore = /heapMbBefore=(\d+)/.exec(line)?.[1];
    expect(Number(heapAfter)).toBeLessThan(Number(heapBefore));
    // The trim returned memory to the system, not just to V8's free lists.
    expect(residentMegabytes(pid)).toBeLessThan(afterStart);
  });
});
