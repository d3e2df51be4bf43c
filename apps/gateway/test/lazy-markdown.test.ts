// The Markdown parser the reply chunker uses loads with the first reply, not at start
// (delivery/fences.ts, issue 28: about 10 MB resident for a gateway that never replies to a
// channel). In-process tests preload it (test/setup-fence-parser.ts), so this one runs the
// gateway as a child process, where nothing is preloaded: a reply with a code block longer
// than one Telegram message must still arrive cut at a safe place, every piece with its
// code block closed and reopened.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic } from '@switchboard/testkit/anthropic';
import { createFakeTelegram } from '@switchboard/testkit/telegram';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildGateway } from './child-gateway.ts';

const token = 'lazy-markdown-token-0123456789abcdef';
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('the reply chunker in a fresh gateway process', { timeout: 60_000 }, () => {
  it('splits the first reply with a long code block at safe places, fences balanced', async () => {
    const code = Array.from({ length: 400 }, (_, line) => `console.log("line ${line}");`).join('\n');
    const reply = `Here is the script:\n\n\`\`\`js\n${code}\n\`\`\`\n\nRun it with node.`;
    const telegram = await createFakeTelegram().start();
    cleanups.push(() => telegram.close());
    const model = await createFakeAnthropic({ fallback: () => ({ text: reply }) }).start();
    cleanups.push(() => model.close());
    const sender = 4242;
    telegram.user(sender, { firstName: 'Ada', username: 'ada' });
    const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-lazy-markdown-'));
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
        channels: {
          telegram: {
            botToken: telegram.token,
            apiRoot: telegram.apiRoot,
            pollingTimeoutSeconds: 1,
            dmPolicy: 'allowlist',
            allowFrom: [String(sender)],
          },
        },
      }),
    );
    const gateway = await startChildGateway({ stateDirectory, token });
    cleanups.push(() => gateway.stop());

    telegram.pushMessage({ chat: telegram.privateChat(sender), text: 'write me a script' });
    const messages = await telegram.waitForMessages(sender, 2, 30_000);
    await gateway.settle();
    const texts = telegram.messagesIn(sender).map((message) => message.text);
    expect(texts.length).toBeGreaterThanOrEqual(2);
    for (const message of telegram.messagesIn(sender)) {
      expect(message.source.length).toBeLessThanOrEqual(4096);
      // Every piece that holds code renders it as a closed code block.
      if (message.text.includes('console.log')) {
        expect(message.source.match(/<pre>/g)?.length ?? 0).toBe(
          message.source.match(/<\/pre>/g)?.length ?? 0,
        );
        expect(message.source).toContain('<pre');
      }
    }
    const allCode = texts.join('\n');
    for (const line of [0, 199, 399]) expect(allCode).toContain(`console.log("line ${line}");`);
    expect(messages[0]?.text).toContain('Here is the script');
    expect(gateway.output.join('')).not.toContain('fence parser is not loaded');
  });
});
