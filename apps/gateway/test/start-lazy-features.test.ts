// The built bundle starts without the code of the memory and sandbox packages (decision 0025):
// their extensions register tools and prompt sections at start, and the packages load with the
// first turn that uses them. Only the bundle splits them off (from source, a package's index
// loads whole), so this test builds one, runs it as a child process with a module hook that
// records every module Node resolves, and reads the list before and after the first turn.
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createFakeAnthropic } from '@switchboard/testkit/anthropic';
import { build } from 'tsdown';
import { afterAll, describe, expect, it } from 'vitest';
import bundleConfig from '../tsdown.config.ts';
import { startChildGateway } from './child-gateway.ts';

const gatewayDirectory = join(import.meta.dirname, '..');
// Inside the package, so the bundle resolves its dependencies from apps/gateway/node_modules.
const outDirectory = join(gatewayDirectory, `.bundle-test-lazy-features-${process.pid}`);
const token = 'lazy-features-token-0123456789abcdef';
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The bundle chunk that defines `name` (a function only the lazily loaded part declares). */
function chunkDefining(name: string): string {
  const chunks = readdirSync(outDirectory).filter((file) => file.endsWith('.mjs'));
  const defining = chunks.filter((file) =>
    new RegExp(`function ${name}\\(`).test(readFileSync(join(outDirectory, file), 'utf8')),
  );
  expect(defining, `chunks defining ${name}`).toHaveLength(1);
  return pathToFileURL(join(outDirectory, defining[0] ?? '')).href;
}

describe('the built bundle at start', { timeout: 120_000 }, () => {
  it('loads the memory and sandbox packages with the first turn, not before', async () => {
    cleanups.push(() => rmSync(outDirectory, { recursive: true, force: true }));
    await build({
      ...bundleConfig,
      config: false,
      cwd: gatewayDirectory,
      outDir: outDirectory,
      sourcemap: false,
      logLevel: 'warn',
      copy: [],
    });
    const memoryChunk = chunkDefining('openMemoryIndex');
    const sandboxChunk = chunkDefining('createSandboxTools');
    // MCP is not configured here: its manager (and the MCP SDK) never loads.
    const mcpChunk = chunkDefining('createMcpManager');

    const scratch = mkdtempSync(join(tmpdir(), 'switchboard-lazy-features-'));
    const loadedList = join(scratch, 'loaded.txt');
    const hook = join(scratch, 'record-modules.mjs');
    writeFileSync(
      hook,
      `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); appendFileSync(${JSON.stringify(loadedList)}, result.url + '\\n'); return result; } });
`,
    );
    appendFileSync(loadedList, '');
    const loaded = () => readFileSync(loadedList, 'utf8').split('\n');

    const model = await createFakeAnthropic({ fallback: 'echo' }).start();
    cleanups.push(() => model.close());
    const stateDirectory = join(scratch, 'state');
    mkdirSync(stateDirectory);
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
      }),
    );
    const gateway = await startChildGateway({
      stateDirectory,
      token,
      entry: join(outDirectory, 'main.mjs'),
      environment: { NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` },
    });
    cleanups.push(() => gateway.stop());

    const client = await gateway.client();
    const atStart = loaded();
    expect(atStart.some((url) => url.includes('start-gateway'))).toBe(true);
    expect(atStart).not.toContain(memoryChunk);
    expect(atStart).not.toContain(sandboxChunk);
    expect(atStart).not.toContain(mcpChunk);

    // The default features are on: the first turn offers memory_search and the sandboxed exec.
    const { final } = await client.requestFinal('agent', { message: 'hello', idempotencyKey: 'lazy-1' });
    expect(final.ok, JSON.stringify(final)).toBe(true);
    const offered = (model.requests.at(-1)?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(['memory_search', 'exec']));
    expect(loaded()).toContain(memoryChunk);
    expect(loaded()).toContain(sandboxChunk);
    expect(loaded()).not.toContain(mcpChunk);
  });
});
