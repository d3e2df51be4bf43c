// Headless Chromium for the WebChat tests and bench: Debian's `chromium` driven by
// playwright-core, with a fresh profile each time and no background traffic.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium } from 'playwright-core';

/** Where Chromium is expected; `SWITCHBOARD_CHROMIUM` overrides it. */
const chromiumPath: string = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';

const chromiumArguments: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** Fails (does not skip) with the command that installs Chromium when it is missing. */
function requireChromium(): string {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `The WebChat browser tests need Chromium at ${chromiumPath}, and it is not there. ` +
        'Install it with: sudo apt-get install -y chromium (Debian), or point SWITCHBOARD_CHROMIUM ' +
        'at another Chromium or Chrome binary (for example /usr/bin/google-chrome on Ubuntu, where the ' +
        'chromium package is only a snap wrapper).',
    );
  }
  return chromiumPath;
}

export interface ChromiumSession {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Starts headless Chromium with a fresh user-data-dir (removed again on close). */
export async function launchChromium(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<ChromiumSession> {
  const executablePath = requireChromium();
  const profile = mkdtempSync(join(tmpdir(), 'switchboard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [...chromiumArguments],
    viewport: options.viewport ?? { width: 1280, height: 880 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The settings every test context shares: 1:1 pixels, light colours, no motion. */
const contextDefaults: BrowserContextOptions = {
  viewport: { width: 1280, height: 880 },
  deviceScaleFactor: 1,
  colorScheme: 'light',
  reducedMotion: 'reduce',
};

export interface ChromiumBrowser {
  readonly browser: Browser;
  /** A fresh, isolated context: its own local storage, cookies and cache. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Starts headless Chromium for tests that need several independent browsers (one process,
 * one isolated context each, like separate browser profiles).
 */
export async function launchChromiumBrowser(): Promise<ChromiumBrowser> {
  const browser = await chromium.launch({
    executablePath: requireChromium(),
    headless: true,
    args: [...chromiumArguments],
  });
  return {
    browser,
    newContext: (options = {}) => browser.newContext({ ...contextDefaults, ...options }),
    close: () => browser.close(),
  };
}
