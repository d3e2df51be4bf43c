// Idle memory with channels (issue 28): a gateway with no channel against one with all four
// channel packages configured and connected — Telegram (long polling), Discord (gateway
// connection), Slack (Socket Mode... here HTTP mode) and WhatsApp (linked device) — each
// against its testkit fake, driven by the real SDK. Each SDK loads only when its account
// starts, so the difference is what four running accounts cost.
//
//   pnpm --filter @switchboard/gateway build
//   pnpm exec node --conditions=@switchboard/source apps/gateway/bench/channels-idle.bench.ts [--source]
import type { ChannelConformanceDriver } from '@switchboard/testkit/conformance';
import { createDiscordConformanceDriver } from '@switchboard/testkit/discord';
import { createSlackConformanceDriver } from '@switchboard/testkit/slack';
import { createTelegramConformanceDriver } from '@switchboard/testkit/telegram';
import { createWhatsAppBaileysConformanceDriver } from '@switchboard/testkit/whatsapp';
import {
  against,
  benchConfig,
  gatewayEntry,
  median,
  processStats,
  startFakeModel,
  startGatewayProcess,
  stop,
} from './gateway-process.ts';

const source = process.argv.includes('--source');
const entry = gatewayEntry(source);
const rounds = 3;

const drivers: ChannelConformanceDriver[] = [
  createTelegramConformanceDriver(),
  createDiscordConformanceDriver(),
  createSlackConformanceDriver({ mode: 'http' }),
  createWhatsAppBaileysConformanceDriver(),
];
const model = await startFakeModel();
for (const driver of drivers) await driver.start();

interface Reading {
  readonly startMs: number;
  readonly rssMb: number;
}

async function idle(running: readonly ChannelConformanceDriver[]): Promise<Reading> {
  const config = benchConfig(model.baseURL);
  const environment: Record<string, string> = {};
  if (running.length > 0) {
    // The WhatsApp fake's socket factory is loaded from the testkit's sources.
    environment.NODE_OPTIONS = '--conditions=@switchboard/source';
    config.channels = Object.fromEntries(
      running.map((driver) => [
        driver.channelId,
        driver.channelConfig({ dmPolicy: 'open', allowFrom: ['*'] }),
      ]),
    );
    for (const driver of running) Object.assign(environment, driver.environment?.() ?? {});
  }
  const gateway = await startGatewayProcess({ entry, source, config, environment });
  for (const driver of running)
    await driver.onGatewayStarted?.({ httpUrl: `http://127.0.0.1:${gateway.port}` });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const reading = { startMs: gateway.startMs, rssMb: processStats(gateway.child.pid!).rssMb };
  await stop(gateway);
  return reading;
}

const none: Reading[] = [];
const four: Reading[] = [];
for (let round = 0; round < rounds; round += 1) {
  none.push(await idle([]));
  four.push(await idle(drivers));
}
const alone = new Map<string, Reading>();
for (const driver of drivers) alone.set(driver.channelId, await idle([driver]));
for (const driver of drivers) await driver.stop();
model.child.kill();

const rss = (readings: Reading[]) => median(readings.map((reading) => reading.rssMb));
const start = (readings: Reading[]) => median(readings.map((reading) => reading.startMs));
console.log(
  `Switchboard channels idle bench (${source ? 'sources' : 'built bundle'}), Node ${process.version}, median of ${rounds}`,
);
console.log(`idle RSS, no channel: ${rss(none).toFixed(1)} MB ${against(rss(none), 64, 'MB')}`);
console.log(
  `idle RSS, Telegram + Discord + Slack + WhatsApp running: ${rss(four).toFixed(1)} MB (+${(rss(four) - rss(none)).toFixed(1)} MB) ${against(rss(four), 80, 'MB')}`,
);
console.log(
  `each alone (one run): ${[...alone].map(([channel, reading]) => `${channel} +${(reading.rssMb - rss(none)).toFixed(1)} MB`).join(', ')}`,
);
console.log(
  `start to first hello-ok: no channel ${start(none).toFixed(0)} ms, four channels ${start(four).toFixed(0)} ms`,
);
