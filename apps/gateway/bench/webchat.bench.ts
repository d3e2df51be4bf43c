// WebChat first load in headless Chromium: bytes over the wire and time until the page is
// usable, with the browser cache off (a first visit every time).
//
//   node --conditions=@switchboard/source bench/webchat.bench.ts
//
// "sign-in ready": navigation start → the token form is shown and focused (no token stored).
// "chat ready": navigation start → connected, sessions listed, a 6-message history rendered
// (token passed in the URL fragment, as `switchboard webchat --with-token` prints it).
import { startTestGateway } from '../test/harness.ts';
import { launchChromium } from '../test/webchat-chromium.ts';

const runs = 9;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const harness = await startTestGateway({ model: { turns: [] } });
const browser = await launchChromium();
try {
  // A short conversation, so "chat ready" includes loading and rendering history.
  const client = await harness.connect();
  for (const [index, text] of ['How do I list files?', 'And hidden ones?', 'Thanks!'].entries()) {
    harness.model.enqueue({ text: `Use \`ls\`${index > 0 ? ' -a' : ''}.\n\n\`\`\`sh\nls -la\n\`\`\`` });
    await client.request('chat.send', {
      sessionKey: 'main',
      message: text,
      idempotencyKey: `bench-${index}`,
    });
    await client.waitForEvent(
      (event) =>
        event.event === 'chat' &&
        event.payload?.runId === `bench-${index}` &&
        event.payload.state === 'final',
    );
  }

  const measure = async (url: string, state: 'login' | 'ready') => {
    const page = await browser.context.newPage();
    const session = await browser.context.newCDPSession(page);
    await session.send('Network.enable');
    await session.send('Network.setCacheDisabled', { cacheDisabled: true });
    let bytes = 0;
    let requests = 0;
    session.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
      bytes += event.encodedDataLength;
      requests += 1;
    });
    await page.addInitScript(() => {
      localStorage.clear();
      const marks: Record<string, number> = {};
      (window as unknown as { __marks: Record<string, number> }).__marks = marks;
      new MutationObserver(() => {
        const value = document.documentElement?.dataset.state;
        if (value !== undefined && marks[value] === undefined) marks[value] = performance.now();
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
    });
    await page.goto(url);
    await page.waitForFunction(
      (expected) =>
        (window as unknown as { __marks: Record<string, number> }).__marks[expected] !== undefined,
      state,
    );
    const elapsed = await page.evaluate(
      (expected) =>
        (window as unknown as { __marks: Record<string, number> }).__marks[expected] ?? Number.NaN,
      state,
    );
    const parsed = await page.evaluate(
      () =>
        (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)
          ?.domContentLoadedEventEnd ?? Number.NaN,
    );
    const result = { bytes, requests, elapsed, parsed };
    await page.close();
    return result;
  };

  type Sample = { bytes: number; requests: number; elapsed: number; parsed: number };
  const signIn: Sample[] = [];
  const ready: Sample[] = [];
  // The floor: the same browser loading a tiny JSON document from the gateway (no page at all).
  const floor: number[] = [];
  const floorPage = await browser.context.newPage();
  for (let run = 0; run < runs; run += 1) {
    await floorPage.goto(`${harness.gateway.httpUrl}/healthz?run=${run}`);
    floor.push(
      await floorPage.evaluate(
        () =>
          (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)
            ?.domContentLoadedEventEnd ?? Number.NaN,
      ),
    );
  }
  await floorPage.close();
  await measure(harness.gateway.httpUrl, 'login'); // warm-up: the gateway reads and gzips the files once
  for (let run = 0; run < runs; run += 1) {
    signIn.push(await measure(`${harness.gateway.httpUrl}/`, 'login'));
    ready.push(await measure(`${harness.gateway.httpUrl}/#token=${harness.gateway.token ?? ''}`, 'ready'));
  }
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const medianBytes = median(signIn.map((entry) => entry.bytes));
  console.log(`WebChat first load, headless Chromium, cache disabled, median of ${runs} runs`);
  console.log(
    `  transferred:   ${kib(medianBytes)} in ${median(signIn.map((entry) => entry.requests))} HTTP requests (gzip, headers included)`,
  );
  console.log(
    `  parsed:        ${median(signIn.map((entry) => entry.parsed)).toFixed(0)} ms (DOMContentLoaded: HTML, CSS, four modules)`,
  );
  const floorMs = median(floor);
  const signInMs = median(signIn.map((entry) => entry.elapsed));
  console.log(
    `  sign-in ready: ${signInMs.toFixed(0)} ms (token form shown; ${(signInMs / floorMs).toFixed(1)}x the ${floorMs.toFixed(0)} ms this browser takes for an empty document)`,
  );
  console.log(
    `  chat ready:    ${median(ready.map((entry) => entry.elapsed)).toFixed(0)} ms (connect + sessions + 6-message history)`,
  );
} finally {
  await browser.close();
  await harness.close();
}
