/**
 * Delivery hot path: a 4,000-character reply streamed in 20-character deltas through the tag
 * stripper, the NO_REPLY gate, the block chunker, the coalescer and the serial pipeline, with
 * a no-op send. Prints medians (and p99) per reply. The last two cases stream a reply whose code
 * blocks sit inside numbered list items, which the fence finder's line scan leaves to mdast.
 *
 *   pnpm exec node --conditions=@switchboard/source apps/gateway/bench/delivery.bench.ts
 */

import { performance } from 'node:perf_hooks';
import {
  chunkText,
  createBlockChunker,
  createReplyStream,
  createTagStripper,
  loadFenceParser,
} from '../src/delivery/index.ts';

// The chunkers find code fences with the Markdown parser, which the gateway loads on its first reply.
await loadFenceParser();

function buildReply(): string {
  const paragraphs: string[] = ['<think>The user wants a deployment summary; keep it short.</think>'];
  let index = 0;
  while (paragraphs.join('\n\n').length < 4000) {
    if (index === 3) {
      paragraphs.push(
        `\`\`\`bash\n${Array.from({ length: 8 }, (_, line) => `kubectl rollout status deploy/api-${line} --timeout=60s`).join('\n')}\n\`\`\``,
      );
    } else {
      paragraphs.push(
        `Step ${index}: the service \`api-${index}\` was rolled out to **production**. Health checks passed within 40 seconds, error rates stayed flat, and no alerts fired during the window.`,
      );
    }
    index++;
  }
  return paragraphs.join('\n\n').slice(0, 4000);
}

/** Numbered steps with a code block inside each item: the fence finder must parse this one. */
function buildListReply(): string {
  const items: string[] = [];
  let index = 1;
  while (items.join('\n\n').length < 4000) {
    items.push(
      `${index}. Roll out \`api-${index}\` and wait for it:\n\n   \`\`\`bash\n${Array.from({ length: 4 }, (_, line) => `   kubectl rollout status deploy/api-${index}-${line} --timeout=60s`).join('\n')}\n   \`\`\``,
    );
    index++;
  }
  return items.join('\n\n').slice(0, 4000);
}

const reply = buildReply();
const listReply = buildListReply();
function toDeltas(text: string): string[] {
  const pieces: string[] = [];
  for (let offset = 0; offset < text.length; offset += 20) pieces.push(text.slice(offset, offset + 20));
  return pieces;
}
const deltas = toDeltas(reply);
const listDeltas = toDeltas(listReply);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

async function measure(
  label: string,
  iterations: number,
  run: () => Promise<unknown> | unknown,
  warmups = 1000,
): Promise<number[]> {
  for (let warm = 0; warm < warmups; warm++) await run();
  const samples: number[] = [];
  for (let iteration = 0; iteration < iterations; iteration++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  const med = median(samples);
  console.log(
    `${label.padEnd(58)} median ${(med * 1000).toFixed(1).padStart(7)} µs   p99 ${(percentile(samples, 0.99) * 1000).toFixed(1).padStart(7)} µs`,
  );
  return samples;
}

let sink = 0;
const noopSend = (): void => {
  sink++;
};

console.log(`reply: ${reply.length} characters in ${deltas.length} deltas of 20; node ${process.version}`);

const streamed = await measure('full reply stream, text_end blocks (telegram limits)', 2000, async () => {
  const stream = createReplyStream({
    send: noopSend,
    channel: { textChunkLimit: 4000, hardTextLimit: 4096 },
    streaming: { mode: 'text_end' },
  });
  stream.onMessageStart();
  for (const delta of deltas) stream.onTextDelta(delta);
  stream.onTextEnd();
  stream.onMessageEnd(reply);
  const summary = await stream.onRunEnd();
  if (summary.sent === 0) throw new Error('nothing was sent');
});

await measure('full reply stream, discord (2000 chars, 17 lines)', 2000, async () => {
  const stream = createReplyStream({
    send: noopSend,
    channel: { textChunkLimit: 2000, maxLinesPerMessage: 17 },
    streaming: { mode: 'text_end' },
  });
  stream.onMessageStart();
  for (const delta of deltas) stream.onTextDelta(delta);
  stream.onMessageEnd(reply);
  await stream.onRunEnd();
});

await measure('full reply stream, streaming off (finals at run end)', 2000, async () => {
  const stream = createReplyStream({ send: noopSend });
  stream.onMessageStart();
  for (const delta of deltas) stream.onTextDelta(delta);
  stream.onMessageEnd(reply);
  await stream.onRunEnd();
});

await measure('tag stripper alone', 2000, () => {
  const stripper = createTagStripper();
  for (const delta of deltas) sink += stripper.push(delta).length;
  sink += stripper.flush().length;
});

await measure('block chunker alone (800/1200, unforced drain per delta)', 2000, () => {
  const chunker = createBlockChunker({ minChars: 800, maxChars: 1200 });
  for (const delta of deltas) {
    chunker.append(delta);
    sink += chunker.drain().length;
  }
  sink += chunker.drain({ force: true }).length;
});

await measure('chunkText of the whole reply at 2000', 2000, () => {
  sink += chunkText(reply, { limit: 2000 }).length;
});

await measure(
  'block chunker alone, code inside list items',
  300,
  () => {
    const chunker = createBlockChunker({ minChars: 800, maxChars: 1200 });
    for (const delta of listDeltas) {
      chunker.append(delta);
      sink += chunker.drain().length;
    }
    sink += chunker.drain({ force: true }).length;
  },
  50,
);

await measure(
  'chunkText, code inside list items, at 2000',
  300,
  () => {
    sink += chunkText(listReply, { limit: 2000 }).length;
  },
  50,
);

const perDelta = (median(streamed) * 1000) / deltas.length;
console.log(`per delta (full text_end stream): ${perDelta.toFixed(2)} µs; sink ${sink > 0 ? 'ok' : 'empty'}`);
