// WebChat end to end: the real gateway with testkit's fake Anthropic, the page served from
// the gateway's port, driven in headless Chromium. The tests run in order on one page, as a
// user would: sign in, chat, use tools, switch sessions, stop a reply, hit an error.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { type ChromiumSession, launchChromium } from './webchat-chromium.ts';

const repositoryRoot = join(import.meta.dirname, '..', '..', '..');
const screenshotPath = join(repositoryRoot, 'test-artifacts', 'webchat.png');

let harness: TestGateway;
let browser: ChromiumSession;
let page: Page;
const sentFrames: string[] = [];
const receivedFrames: string[] = [];
const pageErrors: string[] = [];
const requestedUrls: string[] = [];
const consoleErrors: string[] = [];

const lastAssistant = () => page.locator('.message.assistant').last();

async function send(text: string): Promise<void> {
  await page.locator('#input').fill(text);
  await page.locator('#input').press('Enter');
}

/** Waits until the newest assistant turn reaches a state (final, aborted, error, streaming). */
async function waitForLastTurn(value: string): Promise<void> {
  await page.waitForFunction(
    (expected) => {
      const turns = document.querySelectorAll('.message.assistant');
      return (turns[turns.length - 1] as HTMLElement | undefined)?.dataset.state === expected;
    },
    value,
    { timeout: 10_000 },
  );
}

async function waitForState(value: string): Promise<void> {
  await page.waitForFunction((expected) => document.documentElement.dataset.state === expected, value, {
    timeout: 10_000,
  });
}

beforeAll(async () => {
  harness = await startTestGateway({
    config: {
      // A credential profile makes rate limits cool down, so errors can say how long to wait.
      auth: {
        profiles: { 'anthropic:main': { provider: 'anthropic', mode: 'api_key', apiKey: 'test-key' } },
      },
      // Rate limits fail the turn at once (no wait inside the run), so the error is shown.
      agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', rateLimitMaxWaitSeconds: 0 } },
    },
  });
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.setDefaultTimeout(8000);
  page.on('websocket', (socket) => {
    socket.on('framesent', (frame) => sentFrames.push(String(frame.payload)));
    socket.on('framereceived', (frame) => receivedFrames.push(String(frame.payload)));
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('request', (request) => requestedUrls.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe('WebChat in headless Chromium', () => {
  it('asks for the token once, refuses a wrong one, and remembers the right one', async () => {
    await page.goto(harness.gateway.httpUrl);
    await waitForState('login');
    expect(await page.locator('#login').isVisible()).toBe(true);

    await page.locator('#token').fill('not-the-token');
    await page.locator('#connect').click();
    await page.locator('#login-error', { hasText: 'refused this token' }).waitFor();

    await page.locator('#token').fill(harness.gateway.token ?? '');
    await page.locator('#connect').click();
    await waitForState('ready');
    expect(await page.locator('#login').isHidden()).toBe(true);
    expect(await page.locator('#status-text').textContent()).toBe('Connected');
    expect(await page.locator('#session-title').textContent()).toBe('Main session');

    const connect = sentFrames
      .map((frame) => JSON.parse(frame) as { method?: string; params?: Record<string, unknown> })
      .filter((frame) => frame.method === 'connect')
      .at(-1);
    expect(connect?.params).toMatchObject({
      client: { id: 'webchat-ui', mode: 'webchat' },
      scopes: ['operator.read', 'operator.write', 'operator.admin'],
      caps: ['tool-events', 'session-scoped-events'],
      auth: { token: harness.gateway.token },
    });

    await page.reload();
    await waitForState('ready');
    expect(await page.locator('#login').isHidden()).toBe(true);
  });

  it('streams a reply as it arrives and renders its Markdown and code', async () => {
    const reply = [
      'To see disk usage, ',
      'run **`df`** for file systems ',
      'and `du` for folders:\n\n',
      '## Quick check\n\n',
      '- `df -h` shows every mount\n',
      '- `du -sh *` sizes the current folder\n\n',
      '```bash\n',
      'df -h /\n',
      'du -sh ~/* | sort -h | tail -5\n',
      '```\n\n',
      'See the [coreutils manual](https://www.gnu.org/software/coreutils/manual/) for more.',
    ];
    harness.model.enqueue({
      text: reply,
      usage: { input_tokens: 1234, output_tokens: 56 },
      latency: { chunkMs: 90 },
    });
    await send('How do I check disk usage?');
    const assistant = lastAssistant();
    await assistant.locator('.content', { hasText: 'disk usage' }).waitFor();
    // Mid-stream: some text shown, the turn still open (the caret is there), not all of it yet.
    expect(await assistant.getAttribute('data-state')).toBe('streaming');
    expect(await assistant.locator('.caret').count()).toBe(1);
    const partial = (await assistant.locator('.content').textContent()) ?? '';
    expect(partial).not.toContain('coreutils manual');

    await waitForLastTurn('final');
    expect(await assistant.locator('h2').textContent()).toBe('Quick check');
    expect(await assistant.locator('li').allTextContents()).toEqual([
      'df -h shows every mount',
      'du -sh * sizes the current folder',
    ]);
    expect(await assistant.locator('.code-head span').textContent()).toBe('bash');
    expect(await assistant.locator('.code pre code').textContent()).toBe(
      'df -h /\ndu -sh ~/* | sort -h | tail -5',
    );
    expect(await assistant.locator('strong code').textContent()).toBe('df');
    const link = assistant.locator('a');
    expect(await link.getAttribute('href')).toBe('https://www.gnu.org/software/coreutils/manual/');
    expect(await link.getAttribute('rel')).toContain('noopener');
    expect(await assistant.locator('.usage').textContent()).toBe('Tokens: 1,234 in · 56 out · $0.0045');
    expect(await page.locator('#stop').isHidden()).toBe(true);
  });

  it('shows tool activity in the reply, in the order it happened', async () => {
    harness.model.enqueue(
      { text: 'Let me look.', toolCalls: [{ name: 'ls', input: { path: '.' } }] },
      { text: 'Your workspace has no files yet.' },
    );
    await send("What's in my workspace?");
    const assistant = lastAssistant();
    await waitForLastTurn('final');
    const tool = assistant.locator('details.tool');
    expect(await tool.getAttribute('data-status')).toBe('done');
    expect(await tool.locator('.tool-name').textContent()).toBe('ls');
    expect(await tool.locator('.tool-args').textContent()).toBe('{"path":"."}');
    const order = await assistant
      .locator('.content > *')
      .evaluateAll((nodes) => nodes.map((node) => node.className || node.tagName.toLowerCase()));
    expect(order).toEqual(['p', 'tool', 'p']);
    expect(await assistant.locator('.content').textContent()).toContain('Your workspace has no files yet.');
  });

  it('never turns model output into HTML (hostile reply)', async () => {
    await page.locator('#new-chat').click();
    await page.locator('.empty').waitFor();
    harness.model.enqueue({
      text:
        'Here: <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script>\n\n' +
        '[click me](javascript:window.__pwned=3) <a href="javascript:window.__pwned=4">x</a>\n\n' +
        '```html\n</code></pre><img src=y onerror="window.__pwned=5">\n```\n\n' +
        '<iframe src="https://example.com"></iframe> ![pixel](https://tracker.example/p.gif)',
    });
    await send('Say something hostile');
    await waitForLastTurn('final');
    const assistant = lastAssistant();
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('.messages img, .messages script, .messages iframe').count()).toBe(0);
    expect(await page.locator('.messages a[href^="javascript"]').count()).toBe(0);
    const text = (await assistant.locator('.content').textContent()) ?? '';
    expect(text).toContain('<img src=x onerror="window.__pwned=1">');
    expect(text).toContain('<script>window.__pwned=2</script>');
    expect(await assistant.locator('.code pre code').textContent()).toBe(
      '</code></pre><img src=y onerror="window.__pwned=5">',
    );
    // The image became a link; the browser fetched nothing for it.
    expect(await assistant.locator('a[href="https://tracker.example/p.gif"]').textContent()).toBe('🖼 pixel');
    expect(pageErrors).toEqual([]);
  });

  it('switches sessions: new chats, the session list, history on load', async () => {
    const sessions = page.locator('#sessions .session');
    await page.locator('#new-chat').click();
    await page.locator('.empty').waitFor();
    expect(await page.locator('#session-title').textContent()).toBe('New chat');
    await send('Remember the word pelican.');
    await waitForLastTurn('final');
    // The fake model echoes the last user message when nothing is scripted.
    expect(await lastAssistant().locator('.content').textContent()).toContain('Remember the word pelican.');
    await page.waitForFunction(() => document.querySelectorAll('#sessions .session').length === 3);
    expect(await page.locator('#session-title').textContent()).toBe('Remember the word pelican.');
    expect(await sessions.locator('.session-title').allTextContents()).toEqual(
      expect.arrayContaining(['Main session', 'Remember the word pelican.', 'Say something hostile']),
    );

    await sessions.filter({ hasText: 'Main session' }).click();
    await page.locator('.message.user', { hasText: 'How do I check disk usage?' }).waitFor();
    expect(await page.locator('.message.user').allTextContents()).toEqual([
      'How do I check disk usage?',
      "What's in my workspace?",
    ]);
    // History keeps the Markdown, the tool call and its result, and the usage of each turn.
    const turns = page.locator('.message.assistant');
    expect(await turns.count()).toBe(2);
    expect(await turns.nth(0).locator('.code pre code').textContent()).toContain('df -h /');
    expect(await turns.nth(0).locator('.usage').textContent()).toBe('Tokens: 1,234 in · 56 out · $0.0045');
    expect(await turns.nth(1).locator('details.tool .tool-name').textContent()).toBe('ls');
    expect(await turns.nth(1).locator('details.tool').getAttribute('data-status')).toBe('done');

    await sessions.filter({ hasText: 'pelican' }).click();
    await page.locator('.message.user', { hasText: 'pelican' }).waitFor();
    expect(await page.locator('.message').count()).toBe(2);

    // A reload comes back to the session last open.
    await page.reload();
    await waitForState('ready');
    await page.locator('.message.user', { hasText: 'pelican' }).waitFor();
  });

  it('stops a long reply with the stop button', async () => {
    harness.model.enqueue({
      text: Array.from({ length: 120 }, (_, index) => `Sentence ${index + 1} of a very long story. `),
      latency: { chunkMs: 60 },
    });
    await send('Tell me a very long story.');
    const assistant = lastAssistant();
    await assistant.locator('.content', { hasText: 'Sentence 3 ' }).waitFor();
    await page.locator('#stop').waitFor({ state: 'visible' });
    const stoppedAt = Date.now();
    await page.locator('#stop').click();
    await waitForLastTurn('aborted');
    expect(Date.now() - stoppedAt).toBeLessThan(3000);
    expect(await assistant.locator('.stopped').textContent()).toBe('Stopped');
    expect(await assistant.locator('.content').textContent()).not.toContain('Sentence 120 ');
    await page.waitForFunction(() => (document.getElementById('stop') as HTMLButtonElement).hidden);
    const aborted = harness.gateway.dispatcher.stats();
    expect(aborted.runningRuns).toBe(0);
  });

  it('marks a session it never opened as running while another client runs a turn there', async () => {
    // The page connects with session-scoped events: of runs in sessions it never opened it
    // gets a `session.run` summary at the start and the end, not their streamed events.
    const elsewhere = await harness.connect({ caps: ['session-scoped-events'] });
    await elsewhere.requestFinal('agent', {
      message: 'hello from elsewhere',
      sessionKey: 'agent:main:elsewhere',
      idempotencyKey: 'elsewhere-1',
    });
    // The end summary refreshes the list, which now has the new session.
    await page.locator('#sessions .session', { hasText: 'elsewhere' }).waitFor();
    harness.model.enqueue({
      text: Array.from({ length: 30 }, (_, index) => `word ${index} `),
      latency: { chunkMs: 60 },
    });
    const slow = elsewhere.requestFinal('agent', {
      message: 'a slow one',
      sessionKey: 'agent:main:elsewhere',
      idempotencyKey: 'elsewhere-2',
    });
    await page.locator('#sessions .session', { hasText: 'elsewhere' }).locator('.running').waitFor();
    await slow;
    await page.waitForFunction(() => document.querySelectorAll('#sessions .running').length === 0);
    const frames = receivedFrames.map(
      (frame) => JSON.parse(frame) as { event?: string; payload?: { runId?: string; state?: string } },
    );
    const about = (runId: string) => frames.filter((frame) => frame.payload?.runId === runId);
    expect(about('elsewhere-2').map((frame) => `${frame.event} ${frame.payload?.state}`)).toEqual([
      'session.run started',
      'session.run ended',
    ]);
  });

  it('says in plain words when the model provider rate-limits, with the wait', async () => {
    await page.locator('#sessions .session', { hasText: 'Main session' }).click();
    await page.locator('.message.user', { hasText: 'disk usage' }).waitFor();
    harness.model.enqueue({ fault: { type: 'rate_limit', retryAfterSeconds: 42 } });
    await send('And memory usage?');
    const error = lastAssistant().locator('.error-box');
    await error.waitFor();
    expect(await error.locator('strong').textContent()).toBe(
      'The model provider is rate-limiting this gateway.',
    );
    expect(await error.textContent()).toContain('Try again in 42 s.');
    expect(await lastAssistant().getAttribute('data-state')).toBe('error');
    expect(await page.locator('#sessions .running').count()).toBe(0);
    // No script errors and no Content-Security-Policy violations so far.
    expect(consoleErrors).toEqual([]);

    mkdirSync(join(repositoryRoot, 'test-artifacts'), { recursive: true });
    await page.locator('#input').fill('Thanks! Can you also explain inodes?');
    await page.setViewportSize({ width: 1280, height: 960 }); // the whole conversation, for the README
    await page.mouse.move(0, 0); // no hover highlight in the picture
    await page.screenshot({ path: screenshotPath });

    // Loaded again from history, the failed turn still says what happened.
    await page.locator('#input').fill('');
    await page.reload();
    await waitForState('ready');
    const fromHistory = lastAssistant().locator('.error-box');
    await fromHistory.waitFor();
    expect(await fromHistory.locator('strong').textContent()).toBe(
      'The model provider is rate-limiting this gateway.',
    );
    expect(await fromHistory.textContent()).toContain('Try again in 42 s.');
  });

  it('tells the user when the gateway goes away', async () => {
    await harness.gateway.close('test over', 100);
    await page.locator('#banner', { hasText: 'Reconnecting' }).waitFor();
    expect(await page.locator('#status-text').textContent()).toBe('Offline');
    expect(pageErrors).toEqual([]);
    // Everything the page loaded came from the gateway itself.
    expect(requestedUrls.length).toBeGreaterThan(5);
    for (const url of requestedUrls) expect(url.startsWith(`${harness.gateway.httpUrl}/`), url).toBe(true);
  });
});
