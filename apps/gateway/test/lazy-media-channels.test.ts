// Admission before downloads (issue 18, decision 0026) on every channel package: the real
// gateway in a child process, each channel's real SDK against its platform fake. A photo from
// a sender the gateway does not admit (unpaired, not on the allowlist) is never downloaded
// from the platform and leaves no file; the same photo from an allowed sender is downloaded
// exactly once, when its turn runs, and the model gets its bytes.
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import type { ChannelConformanceDriver } from '@switchboard/testkit/conformance';
import { createDiscordConformanceDriver } from '@switchboard/testkit/discord';
import { createSlackConformanceDriver } from '@switchboard/testkit/slack';
import { createTelegramConformanceDriver } from '@switchboard/testkit/telegram';
import {
  createWhatsAppBaileysConformanceDriver,
  createWhatsAppCloudConformanceDriver,
} from '@switchboard/testkit/whatsapp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';

const token = 'lazy-media-channels-token-0123456789';
/** A 2×1 PNG, distinct from the conformance suite's pixel. */
const photo = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR42mP8z8DwnwEIGBkYAA8CAQBfqHNkAAAAAElFTkSuQmCC',
  'base64',
);

interface ChannelCase {
  readonly label: string;
  readonly driver: ChannelConformanceDriver;
  /** How many media downloads the platform fake served so far. */
  readonly downloads: () => number;
}

function cases(): ChannelCase[] {
  const telegram = createTelegramConformanceDriver();
  const discord = createDiscordConformanceDriver();
  const slack = createSlackConformanceDriver({ mode: 'http' });
  const baileys = createWhatsAppBaileysConformanceDriver();
  const cloud = createWhatsAppCloudConformanceDriver();
  return [
    {
      label: 'telegram',
      driver: telegram,
      downloads: () => telegram.fake.requestsFor('downloadFile').length,
    },
    { label: 'discord', driver: discord, downloads: () => discord.fake.attachmentDownloads.length },
    { label: 'slack', driver: slack, downloads: () => slack.fake.fileDownloads.length },
    { label: 'whatsapp (baileys)', driver: baileys, downloads: () => baileys.world.mediaDownloads().length },
    { label: 'whatsapp (cloud)', driver: cloud, downloads: () => cloud.cloud.mediaDownloads().length },
  ];
}

/** Every file under `directory`, recursively. */
function filesUnder(directory: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(directory);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(directory, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

for (const channelCase of cases()) {
  const { driver } = channelCase;
  describe(`lazy inbound media: ${channelCase.label}`, () => {
    let model: FakeAnthropic;
    let gateway: ChildGateway;
    let stateDirectory: string;
    const mediaFiles = () =>
      filesUnder(join(stateDirectory, 'channels')).filter((path) => path.split('/').includes('media'));

    beforeAll(async () => {
      await driver.start();
      model = await createFakeAnthropic({ fallback: 'echo' }).start();
      stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-lazy-media-channels-'));
      writeFileSync(
        join(stateDirectory, 'switchboard.json'),
        JSON.stringify({
          gateway: { port: 0, auth: { mode: 'token', token } },
          models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
          agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
          messages: { queue: { debounceMs: 0 } },
          channels: {
            [driver.channelId]: driver.channelConfig({
              dmPolicy: 'pairing',
              allowFrom: [driver.userId('alice')],
            }),
          },
        }),
      );
      const environment = driver.environment?.();
      gateway = await startChildGateway({
        stateDirectory,
        token,
        environment,
      });
      await driver.onGatewayStarted?.({ httpUrl: gateway.httpUrl });
    }, 90_000);

    afterAll(async () => {
      await gateway?.stop();
      await driver.stop();
      await model?.close();
    });

    it('downloads nothing for an unpaired sender and once for an allowed one', async () => {
      const image = { bytes: photo, mimeType: 'image/png', fileName: 'photo.png' };
      const refused = await driver.sendImage('mallory', 'let me in', image);
      const [pairing] = await driver.waitForReplies(refused.conversation, 1, 30_000);
      expect(pairing?.text).toMatch(/\b[A-HJ-NP-Z2-9]{8}\b/);
      await gateway.settle();
      expect(channelCase.downloads()).toBe(0);
      expect(mediaFiles()).toEqual([]);
      expect(model.messageRequests).toEqual([]);

      const admitted = await driver.sendImage('alice', 'what is on this photo?', image);
      const [reply] = await driver.waitForReplies(admitted.conversation, 1, 30_000);
      expect(reply?.text).toMatch(/what is on this photo\?/);
      await gateway.settle();
      expect(channelCase.downloads()).toBe(1);
      expect(mediaFiles()).toHaveLength(1);
      const content = JSON.stringify(model.lastRequest?.messages.at(-1)?.content);
      expect(content).toContain(`"data":"${photo.toString('base64')}"`);
    }, 90_000);
  });
}
