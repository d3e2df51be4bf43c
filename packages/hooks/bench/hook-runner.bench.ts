// Cost of the hook runner on the gateway's per-message path. Prints the median time per
// call over several rounds, for: the `has` check the hot path makes first, and a run of
// each kind with typical handler counts.
//   node --conditions=@switchboard/source bench/hook-runner.bench.ts
import {
  createHookBus,
  type HookEvent,
  type OutboundMessage,
  type ToolResultMessage,
} from '@switchboard/hooks';

const rounds = 15;
const iterations = 20_000;

const message: OutboundMessage = {
  kind: 'text',
  channel: 'telegram',
  accountId: 'default',
  peer: { kind: 'direct', id: '42' },
  text: 'Hello there, this is a reply chunk.',
};
const toolCall: HookEvent<'before_tool_call'> = {
  sessionKey: 'agent:main:main',
  agentId: 'main',
  runId: 'r1',
  toolCallId: 'c1',
  toolName: 'exec',
  params: { command: 'ls' },
};
const toolResult: ToolResultMessage = {
  role: 'toolResult',
  toolCallId: 'c1',
  toolName: 'exec',
  content: [{ type: 'text', text: 'ok' }],
  isError: false,
  timestamp: 0,
};
const inbound: HookEvent<'message_received'> = {
  message: {
    chatType: 'direct',
    channel: 'telegram',
    accountId: 'default',
    messageId: '1',
    peer: { kind: 'direct', id: '42' },
    sender: { id: '42' },
    text: 'hi',
    timestamp: 0,
  },
};

async function measure(label: string, operation: () => unknown): Promise<number> {
  const perCall: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    for (let index = 0; index < iterations; index++) {
      const result = operation();
      if (result instanceof Promise) await result;
    }
    perCall.push(((performance.now() - started) * 1_000_000) / iterations);
  }
  perCall.sort((left, right) => left - right);
  const median = perCall[Math.floor(perCall.length / 2)] ?? 0;
  console.log(`${label.padEnd(58)} ${median.toFixed(0).padStart(7)} ns/call`);
  return median;
}

const empty = createHookBus();
const baseline = await measure('has(message_sending), nobody listening', () => empty.has('message_sending'));
const runEmpty = await measure('run(message_sending), no handlers', () =>
  empty.run('message_sending', { message }),
);

const one = createHookBus();
one.add(
  'message_sending',
  (event) => (event.message.kind === 'text' ? { text: event.message.text } : undefined),
  {
    plugin: 'p1',
  },
);
const runOne = await measure('run(message_sending), 1 sync handler', () =>
  one.run('message_sending', { message }),
);

const five = createHookBus();
for (let index = 0; index < 5; index++) {
  five.add('message_sending', () => undefined, { plugin: `p${index}`, priority: index });
}
const runFive = await measure('run(message_sending), 5 sync handlers', () =>
  five.run('message_sending', { message }),
);

const asyncOne = createHookBus();
asyncOne.add('message_sending', async () => ({ text: 'rewritten' }), { plugin: 'async' });
const runAsync = await measure('run(message_sending), 1 async handler (timer armed)', () =>
  asyncOne.run('message_sending', { message }),
);

const gate = createHookBus();
for (let index = 0; index < 3; index++)
  gate.add('before_tool_call', () => undefined, { plugin: `g${index}` });
await measure('run(before_tool_call), 3 sync handlers', () => gate.run('before_tool_call', toolCall));

const observers = createHookBus();
for (let index = 0; index < 5; index++)
  observers.add('message_received', async () => {}, { plugin: `o${index}` });
await measure('run(message_received), 5 async observers', () => observers.run('message_received', inbound));

const sync = createHookBus();
for (let index = 0; index < 3; index++) {
  sync.add('before_message_write', (event) => ({ message: event.message }), { plugin: `s${index}` });
}
await measure('runSync(before_message_write), 3 handlers', () =>
  sync.runSync('before_message_write', { sessionKey: 's', agentId: 'a', message: toolResult }),
);

console.log('');
console.log(`run with no handlers / has:        ${(runEmpty / baseline).toFixed(1)}x`);
console.log(`run with 1 handler / no handlers:  ${(runOne / runEmpty).toFixed(1)}x`);
console.log(`run with 5 handlers / 1 handler:   ${(runFive / runOne).toFixed(1)}x`);
console.log(`1 async handler / 1 sync handler:  ${(runAsync / runOne).toFixed(1)}x`);
