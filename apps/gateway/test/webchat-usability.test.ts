// WebChat usability in headless Chromium against the real gateway and testkit's fake
// Anthropic: a waiting turn shows a visible indicator, chat titles live on the gateway
// (sessions.patch with a label) so every browser shows them, a "jump to newest" control
// when new text is below the view, and a backdrop that closes the mobile session drawer.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { payloadOf } from './protocol-client.ts';
import { type ChromiumBrowser, launchChromiumBrowser } from './webchat-chromium.ts';

const repositoryRoot = join(import.meta.dirname, '..', '..', '..');
const artifacts = join(repositoryRoot, 'test-artifacts');

let harness: TestGateway;
let chromium: ChromiumBrowser;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

/** Records script errors and console errors (CSP violations among them) of a page. */
function watch(target: Page): Page {
  target.setDefaultTimeout(8000);
  target.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  target.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return target;
}

/** Opens the page signed in through the token link, and waits until it is connected. */
async function openSignedIn(target: Page): Promise<void> {
  await target.goto(`${harness.gateway.httpUrl}/#token=${harness.gateway.token ?? ''}`);
  await target.waitForFunction(() => document.documentElement.dataset.state === 'ready');
}

const lastAssistant = (target: Page = page) => target.locator('.message.assistant').last();

async function send(text: string): Promise<void> {
  await page.locator('#input').fill(text);
  await page.locator('#input').press('Enter');
}

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

/** Pixels of conversation below the visible part of the message list. */
function hiddenBelow(): Promise<number> {
  return page.locator('#messages').evaluate((node) => node.scrollHeight - node.scrollTop - node.clientHeight);
}

async function labelOnGateway(key: string): Promise<unknown> {
  const client = await harness.connect({ scopes: ['operator.read'] });
  try {
    const list = payloadOf<{ sessions: Array<Record<string, unknown>> }>(
      await client.request('sessions.list', { limit: 100 }),
    );
    return list.sessions.find((row) => row.key === key)?.label;
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  harness = await startTestGateway();
  chromium = await launchChromiumBrowser();
  context = await chromium.newContext();
  page = watch(await context.newPage());
  await openSignedIn(page);
}, 30_000);

afterAll(async () => {
  await chromium?.close();
  await harness?.close();
});

describe('sessions.patch', () => {
  it('sets, trims and clears a session label, refuses bad ones, and needs operator.write', async () => {
    const client = await harness.connect();
    const key = 'agent:main:labelled';
    await client.requestFinal('agent', { message: 'hello', idempotencyKey: 'labelled-1', sessionKey: key });

    const set = await client.request('sessions.patch', { key, label: '  Weekly report  ' });
    expect(set.payload).toMatchObject({ ok: true, key, entry: { key, label: 'Weekly report' } });
    const filtered = await client.request('sessions.list', { label: 'Weekly report' });
    expect(payloadOf<{ sessions: Array<{ key: string }> }>(filtered).sessions.map((row) => row.key)).toEqual([
      key,
    ]);

    const invalid = async (params: Record<string, unknown>) =>
      (await client.request('sessions.patch', params)).error?.details?.code;
    expect(await invalid({ key, label: '   ' })).toBe('INVALID_PARAMS');
    expect(await invalid({ key, label: 'x'.repeat(65) })).toBe('INVALID_PARAMS');
    expect(await invalid({ key, label: 42 })).toBe('INVALID_PARAMS');
    expect(await invalid({ key, thinkingLevel: 'high' })).toBe('INVALID_PARAMS');
    expect(await invalid({ key: 'agent:main:nobody-here', label: 'Ghost' })).toBe('NOT_FOUND');

    const reader = await harness.connect({ scopes: ['operator.read'] });
    const refused = await reader.request('sessions.patch', { key, label: 'Nope' });
    expect(refused.error?.details).toMatchObject({ code: 'MISSING_SCOPE', missingScope: 'operator.write' });

    const cleared = await client.request('sessions.patch', { key, label: null });
    expect(cleared.ok).toBe(true);
    expect(await labelOnGateway(key)).toBeUndefined();
  });
});

describe('WebChat usability in headless Chromium', () => {
  it('shows a visible working indicator while a turn waits for the model', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    harness.model.enqueue(async () => {
      await held;
      return { text: 'Done thinking.' };
    });
    try {
      await send('Take your time.');
      const typing = lastAssistant().locator('.typing');
      await typing.waitFor();
      expect(await lastAssistant().getAttribute('data-state')).toMatch(/^(pending|streaming)$/);
      const dots = await typing.locator('> *').evaluateAll((nodes) =>
        nodes.map((node) => {
          const box = node.getBoundingClientRect();
          return { width: box.width, height: box.height, color: getComputedStyle(node).backgroundColor };
        }),
      );
      expect(dots).toHaveLength(3);
      for (const dot of dots) {
        expect(dot.width).toBeGreaterThanOrEqual(5);
        expect(dot.height).toBeGreaterThanOrEqual(5);
        expect(dot.color).not.toBe('rgba(0, 0, 0, 0)');
      }
      expect(await typing.getAttribute('aria-label')).toBe('The agent is working');
    } finally {
      release();
    }
    await waitForLastTurn('final');
    expect(await lastAssistant().locator('.typing').count()).toBe(0);
    expect(await lastAssistant().locator('.content').textContent()).toBe('Done thinking.');
  });

  it('follows a long reply when at the bottom, and offers "jump to newest" when scrolled up', async () => {
    await page.locator('#new-chat').click();
    await page.locator('.empty').waitFor();
    const paragraph = (name: string, index: number) =>
      `${name} paragraph ${index + 1}: ${'some words to fill the line '.repeat(8)}\n\n`;

    // The whole reply arrives at once: the view follows it to its end.
    harness.model.enqueue({
      text: Array.from({ length: 40 }, (_, index) => paragraph('Long', index)).join(''),
    });
    await send('Write a lot at once.');
    await waitForLastTurn('final');
    expect(await lastAssistant().locator('.content').textContent()).toContain('Long paragraph 40:');
    expect(await hiddenBelow()).toBeLessThan(2);
    expect(await page.locator('#jump').isHidden()).toBe(true);

    // Scrolled up to read while a reply streams in: the view stays, the control appears.
    harness.model.enqueue({
      text: Array.from({ length: 30 }, (_, index) => paragraph('Streamed', index)),
      latency: { chunkMs: 60 },
    });
    await send('Now write slowly.');
    await lastAssistant().locator('.content', { hasText: 'Streamed paragraph 2:' }).waitFor();
    await page.locator('#messages').evaluate((node) => {
      node.scrollTop = 0;
    });
    const jump = page.locator('#jump');
    await jump.waitFor({ state: 'visible' });
    await lastAssistant().locator('.content', { hasText: 'Streamed paragraph 8:' }).waitFor();
    expect(await page.locator('#messages').evaluate((node) => node.scrollTop)).toBe(0);
    expect(await hiddenBelow()).toBeGreaterThan(200);
    // It sits above the composer, inside the visible area.
    const box = await jump.boundingBox();
    const composer = await page.locator('#input').boundingBox();
    expect(box !== null && composer !== null && box.y + box.height <= composer.y).toBe(true);

    await jump.click();
    expect(await hiddenBelow()).toBeLessThan(2);
    await jump.waitFor({ state: 'hidden' });
    // Back at the bottom, the rest of the reply is followed again.
    await waitForLastTurn('final');
    expect(await lastAssistant().locator('.content').textContent()).toContain('Streamed paragraph 30:');
    expect(await hiddenBelow()).toBeLessThan(2);
    expect(await jump.isHidden()).toBe(true);
  });

  it('stores chat titles on the gateway, so a fresh browser shows them too', async () => {
    await page.locator('#new-chat').click();
    await page.locator('.empty').waitFor();
    const key = String(await page.evaluate(() => localStorage.getItem('switchboard.webchat.session')));
    await send('Plan the   garden\nparty for Saturday');
    await waitForLastTurn('final');
    // The first message becomes the title, stored as the session's label.
    expect(await page.locator('#session-title').textContent()).toBe('Plan the garden party for Saturday');
    await expect
      .poll(() => labelOnGateway(key), { timeout: 5000 })
      .toBe('Plan the garden party for Saturday');

    // Renamed in place.
    await page.locator('#rename').click();
    const field = page.locator('#title-input');
    expect(await field.inputValue()).toBe('Plan the garden party for Saturday');
    await field.fill('Garden party');
    await field.press('Enter');
    expect(await field.isHidden()).toBe(true);
    expect(await page.locator('#session-title').textContent()).toBe('Garden party');
    await expect.poll(() => labelOnGateway(key), { timeout: 5000 }).toBe('Garden party');
    expect(await page.locator('#sessions .session[aria-current="true"] .session-title').textContent()).toBe(
      'Garden party',
    );

    // Another browser (its own local storage) shows the same title.
    const other = await chromium.newContext();
    try {
      const second = watch(await other.newPage());
      await openSignedIn(second);
      expect(await second.evaluate(() => localStorage.getItem('switchboard.webchat.titles'))).toBeNull();
      const row = second.locator('#sessions .session', { hasText: 'Garden party' });
      await row.waitFor();
      expect(await second.locator('#sessions .session-title', { hasText: 'New chat' }).count()).toBe(0);
      await row.click();
      await second.locator('.message.user', { hasText: 'garden' }).waitFor();
      expect(await second.locator('#session-title').textContent()).toBe('Garden party');
    } finally {
      await other.close();
    }
  });

  it('closes the mobile session drawer from its backdrop (or Escape)', async () => {
    const phoneContext = await chromium.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const phone = watch(await phoneContext.newPage());
      await openSignedIn(phone);
      const drawerRight = () =>
        phone.locator('#sidebar').evaluate((node) => node.getBoundingClientRect().right);
      const backdrop = phone.locator('#backdrop');
      expect(await drawerRight()).toBeLessThanOrEqual(0);
      expect(await backdrop.isVisible()).toBe(false);

      await phone.locator('#menu').click();
      expect(await phone.locator('#menu').getAttribute('aria-expanded')).toBe('true');
      expect(await drawerRight()).toBeGreaterThan(200);
      expect(await backdrop.boundingBox()).toEqual({ x: 0, y: 0, width: 390, height: 844 });
      mkdirSync(artifacts, { recursive: true });
      await phone.screenshot({ path: join(artifacts, 'webchat-mobile-drawer.png') });

      await phone.mouse.click(360, 420); // beside the drawer, on the backdrop
      await phone.waitForFunction(() => !document.getElementById('app')?.classList.contains('sidebar-open'), {
        timeout: 3000,
      });
      expect(await phone.locator('#menu').getAttribute('aria-expanded')).toBe('false');
      expect(await drawerRight()).toBeLessThanOrEqual(0);
      expect(await backdrop.isVisible()).toBe(false);

      await phone.locator('#menu').click();
      await phone.keyboard.press('Escape');
      expect(await drawerRight()).toBeLessThanOrEqual(0);
      expect(await phone.locator('#menu').getAttribute('aria-expanded')).toBe('false');
    } finally {
      await phoneContext.close();
    }
    // No script errors and no Content-Security-Policy violations in any page.
    expect(problems).toEqual([]);
  });
});
