// Benchmarks of the WhatsApp channel's own work. Run:
//   node --conditions=@switchboard/source bench/whatsapp.bench.ts
// Prints medians over several rounds:
// 1. rendering a long Markdown reply (12 KB, prose and code) to WhatsApp messages;
// 2. converting a Baileys protobuf message to an inbound message;
// 3. inbound end to end on the baileys transport: FakeWhatsApp → WebSocket → fake socket
//    (protobuf decode, event buffer) → channel → receive, messages per second;
// 4. inbound end to end on the cloud transport: signed webhook POST → signature check →
//    receive → 200, messages per second.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChannelStartContext,
  type HttpRoute,
  noopLogger,
  resolveChannelAccounts,
} from '@switchboard/hooks';
import { createFakeWhatsApp, createFakeWhatsAppCloud } from '@switchboard/testkit/whatsapp';
import { proto, type WAMessage } from 'baileys';
import { convertInbound } from '../src/baileys/inbound.ts';
import { createWhatsAppChannel } from '../src/channel.ts';
import type { WhatsAppAccountConfig } from '../src/config.ts';
import { renderWhatsAppMessages } from '../src/format.ts';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

function timeSync(rounds: number, iterations: number, work: () => void): number {
  const perCall: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < iterations; index += 1) work();
    perCall.push(Number(process.hrtime.bigint() - started) / 1e3 / iterations);
  }
  return median(perCall);
}

// 1. Rendering.
const prose = Array.from(
  { length: 20 },
  (_, index) => `Paragraph ${index}: **bold** and _italic_ ${'lorem ipsum dolor '.repeat(20)}`,
);
const code = Array.from({ length: 80 }, (_, index) => `  const value${index} = compute(${index});`).join(
  '\n',
);
const reply = `${prose.join('\n\n')}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`;
const renderMicros = timeSync(7, 200, () => renderWhatsAppMessages(reply, 4000));
const pieces = renderWhatsAppMessages(reply, 4000).length;

// 2. Conversion.
const message = proto.WebMessageInfo.fromObject({
  key: { remoteJid: '120363000000000001@g.us', id: 'ABC', participant: '100015551230001@lid' },
  message: {
    extendedTextMessage: {
      text: '@15550009999 hello',
      contextInfo: { mentionedJid: ['200000000009999@lid'] },
    },
  },
  messageTimestamp: 1_700_000_000,
  pushName: 'Alice',
}) as WAMessage;
Object.assign(message.key!, { participantAlt: '15551230001@s.whatsapp.net', addressingMode: 'lid' });
const conversionContext = {
  channel: 'whatsapp',
  accountId: 'default',
  ownJids: ['15550009999:1@s.whatsapp.net', '200000000009999:1@lid'],
  resolvePhoneJid: async () => undefined,
  groupName: async () => 'Team',
};
const conversions: number[] = [];
for (let round = 0; round < 7; round += 1) {
  const started = process.hrtime.bigint();
  for (let index = 0; index < 2_000; index += 1) await convertInbound(message, conversionContext);
  conversions.push(Number(process.hrtime.bigint() - started) / 1e3 / 2_000);
}
const convertMicros = median(conversions);

function context(config: Record<string, unknown>, onReceive: () => void) {
  const channel = createWhatsAppChannel();
  const account = resolveChannelAccounts(channel, config).accounts[0]!;
  const routes: HttpRoute[] = [];
  const controller = new AbortController();
  const start: ChannelStartContext<WhatsAppAccountConfig> = {
    channelId: 'whatsapp',
    accountId: 'default',
    account: account.config,
    signal: controller.signal,
    logger: noopLogger,
    async receive() {
      onReceive();
      return { status: 'journaled' };
    },
    setStatus() {},
    dataDirectory: mkdtempSync(join(tmpdir(), 'whatsapp-bench-')),
    registerHttpRoute: (route) => routes.push(route),
    reportIgnored() {},
  };
  return { start, routes, controller };
}

// 3. Baileys end to end.
const world = await createFakeWhatsApp({ autoLink: true }).start();
const alice = world.addUser('+15551230001');
let baileysReceived = 0;
let baileysTarget = 0;
let baileysDone: () => void = () => {};
const baileys = context({ transport: 'baileys', sendReadReceipts: false, printQr: false }, () => {
  baileysReceived += 1;
  if (baileysReceived === baileysTarget) baileysDone();
});
const baileysChannel = createWhatsAppChannel({ makeSocket: world.makeSocket });
const baileysAccount = await baileysChannel.start(baileys.start);
await world.waitForLink((state) => state.open, 10_000);
const baileysRates: number[] = [];
for (let round = 0; round < 5; round += 1) {
  const batch = 500;
  baileysTarget = baileysReceived + batch;
  const done = new Promise<void>((resolve) => {
    baileysDone = resolve;
  });
  const started = performance.now();
  for (let index = 0; index < batch; index += 1)
    await world.sendText(alice.phone, `message ${round}.${index}`);
  await done;
  baileysRates.push(batch / ((performance.now() - started) / 1000));
}
baileys.controller.abort();
await baileysAccount.stop();
await world.close();

// 4. Cloud end to end.
const cloud = await createFakeWhatsAppCloud().start();
const cloudContext = context({ transport: 'cloud', sendReadReceipts: false, ...cloud.credentials }, () => {});
const cloudAccount = await createWhatsAppChannel().start(cloudContext.start);
const server = createServer((request, response) => void cloudContext.routes[0]!.handler(request, response));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
cloud.setWebhook(`http://127.0.0.1:${(server.address() as AddressInfo).port}${cloudContext.routes[0]!.path}`);
const cloudRates: number[] = [];
for (let round = 0; round < 5; round += 1) {
  const batch = 300;
  const started = performance.now();
  for (let index = 0; index < batch; index += 1)
    await cloud.sendText('15551230001', `message ${round}.${index}`);
  cloudRates.push(batch / ((performance.now() - started) / 1000));
}
cloudContext.controller.abort();
await cloudAccount.stop();
server.closeAllConnections();
server.close();
await cloud.close();

console.log(
  `render a 12 KB Markdown reply into ${pieces} WhatsApp messages: median ${renderMicros.toFixed(1)} µs`,
);
console.log(`convert one Baileys group message to an inbound message: median ${convertMicros.toFixed(2)} µs`);
console.log(
  `baileys inbound end to end (fake world → socket → channel → receive, 500 back to back): median ${median(baileysRates).toFixed(0)} msg/s`,
);
console.log(
  `cloud inbound end to end (signed webhook → verify → receive → 200, one at a time): median ${median(cloudRates).toFixed(0)} msg/s`,
);
console.log(
  `ratio: channel conversion is ${(1e6 / median(baileysRates) / convertMicros) | 0}× cheaper than the whole baileys round trip`,
);
