// Admission before downloads (issue 18, decision 0026), end to end: the real gateway in a
// child process, the Telegram channel's grammY client against FakeTelegram, the model behind
// FakeAnthropic. A photo from a sender the gateway does not admit costs no download and no
// file; an admitted one is downloaded once, when its turn runs; an image over the cap stops
// mid-stream and the model and the operator are told; a crash between the journal and the
// turn still downloads and answers after the restart.
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { createFakeTelegram, type FakeTelegram } from '@switchboard/testkit/telegram';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';

const token = 'lazy-media-token-0123456789abcdef';
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const alice = 7001;
const stranger = 7002;
/** The gateway's inline image cap (runtime/run/inbound-media.ts). */
const imageCapBytes = 5 * 1024 * 1024;

interface Fixture {
  readonly telegram: FakeTelegram;
  readonly model: FakeAnthropic;
  readonly gateway: ChildGateway;
  readonly stateDirectory: string;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startFixture(environment?: NodeJS.ProcessEnv): Promise<Fixture> {
  const telegram = await createFakeTelegram({ botUsername: 'media_bot' }).start();
  cleanups.push(() => telegram.close());
  const model = await createFakeAnthropic({ fallback: 'echo' }).start();
  cleanups.push(() => model.close());
  const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-lazy-media-'));
  writeFileSync(
    join(stateDirectory, 'switchboard.json'),
    JSON.stringify({
      gateway: { port: 0, auth: { mode: 'token', token } },
      models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
      agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
      messages: { queue: { debounceMs: 0 } },
      channels: {
        telegram: {
          botToken: telegram.token,
          apiRoot: telegram.apiRoot,
          pollingTimeoutSeconds: 1,
          dmPolicy: 'pairing',
          allowFrom: [String(alice)],
        },
      },
    }),
  );
  const gateway = await startChildGateway({
    stateDirectory,
    token,
    environment,
  });
  cleanups.push(() => gateway.stop());
  return { telegram, model, gateway, stateDirectory };
}

/** Every file under `directory`, recursively (the channel's data directories hold media). */
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

const mediaFiles = (fixture: Fixture): string[] =>
  filesUnder(join(fixture.stateDirectory, 'channels')).filter((path) => path.split('/').includes('media'));

const downloads = (telegram: FakeTelegram) => telegram.requestsFor('downloadFile');

/** The model request whose last user message carries `marker`. */
function requestWith(model: FakeAnthropic, marker: string) {
  return model.messageRequests.find((request) =>
    JSON.stringify(request.messages.at(-1)?.content).includes(marker),
  );
}

describe('lazy inbound media through the gateway', () => {
  it('downloads nothing for an unpaired sender, and exactly once after pairing approves them', async () => {
    const fixture = await startFixture();
    const { telegram, model, gateway } = fixture;
    telegram.pushPhoto({ chat: stranger, bytes: png, caption: 'who are you?', mimeType: 'image/png' });
    const [pairing] = await telegram.waitForMessages(stranger, 1, 30_000);
    const code = /\b([A-HJ-NP-Z2-9]{8})\b/.exec(pairing?.text ?? '')?.[1];
    expect(code, `no pairing code in ${pairing?.text}`).toBeDefined();
    await gateway.settle();
    expect(telegram.requestsFor('getFile')).toEqual([]);
    expect(downloads(telegram)).toEqual([]);
    expect(mediaFiles(fixture)).toEqual([]);
    expect(model.messageRequests).toEqual([]);

    const approved = await (await gateway.client()).request('pairing.approve', { channel: 'telegram', code });
    expect(approved.ok, JSON.stringify(approved.error)).toBe(true);
    telegram.pushPhoto({ chat: stranger, bytes: png, caption: 'now look at this', mimeType: 'image/png' });
    const replies = await telegram.waitForMessages(stranger, 2, 30_000);
    expect(replies[1]?.text).toMatch(/now look at this/);
    await gateway.settle();
    expect(downloads(telegram).map((request) => request.status)).toEqual([200]);
    expect(mediaFiles(fixture)).toHaveLength(1);
    const request = requestWith(model, 'now look at this');
    expect(JSON.stringify(request?.messages.at(-1)?.content)).toContain(`"data":"${png.toString('base64')}"`);
  }, 120_000);

  it('stops an image over the cap mid-stream, tells the model and logs it; a declared one is never fetched', async () => {
    const fixture = await startFixture();
    const { telegram, model, gateway } = fixture;
    const size = 32 * 1024 * 1024;
    telegram.pushPhoto({
      chat: alice,
      bytes: Buffer.alloc(size, 3),
      caption: 'a huge one',
      mimeType: 'image/jpeg',
      declareSize: false,
    });
    const [reply] = await telegram.waitForMessages(alice, 1, 60_000);
    // The echo model repeats its prompt: the note about the attachment reached it.
    expect(reply?.text).toMatch(/a huge one/);
    expect(reply?.text).toMatch(/too large to fetch: over the 5 MB limit/);
    await gateway.settle();
    const [download] = downloads(telegram);
    expect(download?.bytesSent).toBeGreaterThan(imageCapBytes);
    expect(download?.bytesSent).toBeLessThan(size);
    expect(mediaFiles(fixture)).toEqual([]);
    expect(JSON.stringify(requestWith(model, 'a huge one')?.messages.at(-1)?.content)).not.toContain(
      '"type":"image"',
    );
    expect(gateway.output.join('')).toMatch(/inbound media too large/);

    // Telegram says the size: refused before getFile.
    const getFilesBefore = telegram.requestsFor('getFile').length;
    telegram.pushPhoto({ chat: alice, bytes: Buffer.alloc(imageCapBytes + 1, 4), caption: 'declared big' });
    const replies = await telegram.waitForMessages(alice, 2, 60_000);
    expect(replies[1]?.text).toMatch(/declared big[\s\S]*too large to fetch/);
    expect(telegram.requestsFor('getFile')).toHaveLength(getFilesBefore);
    expect(downloads(telegram)).toHaveLength(1);
  }, 120_000);

  it('downloads and answers after a SIGKILL between the journal and the turn', async () => {
    const fixture = await startFixture({ NODE_ENV: 'test', SWITCHBOARD_TEST_CRASH_AT: 'after-journal' });
    const { telegram, model, gateway } = fixture;
    telegram.pushPhoto({ chat: alice, bytes: png, caption: 'survive the crash', mimeType: 'image/png' });
    expect(await gateway.waitForExit(60_000)).toBe('SIGKILL');
    expect(downloads(telegram)).toEqual([]);
    expect(model.messageRequests).toEqual([]);

    await gateway.restart({});
    const [reply] = await telegram.waitForMessages(alice, 1, 60_000);
    expect(reply?.text).toMatch(/survive the crash/);
    await gateway.settle();
    expect(downloads(telegram).map((request) => request.status)).toEqual([200]);
    const content = JSON.stringify(requestWith(model, 'survive the crash')?.messages.at(-1)?.content);
    expect(content).toContain(`"data":"${png.toString('base64')}"`);
    expect(telegram.messagesIn(alice)).toHaveLength(1);
  }, 120_000);
});
