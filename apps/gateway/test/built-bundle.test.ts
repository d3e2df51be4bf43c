// The shipped bundle (what `pnpm build` writes to dist/ and a deployment runs) starts, answers
// a message and serves WebChat. Tests otherwise run the TypeScript source, where every
// dependency of every workspace package resolves; the bundle resolves third-party packages
// from the gateway's own dependencies only, so a feature package's dependency the gateway does
// not list (croner once) breaks only the bundle. Built into a folder of its own, so the dist/
// a developer or a bench uses is left alone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic } from '@switchboard/testkit/anthropic';
import { build } from 'tsdown';
import { afterAll, describe, expect, it } from 'vitest';
import bundleConfig from '../tsdown.config.ts';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';

const gatewayDirectory = join(import.meta.dirname, '..');
// Inside the package, so the bundle resolves its dependencies from apps/gateway/node_modules.
const outDirectory = join(gatewayDirectory, `.bundle-test-${process.pid}`);
const token = 'built-bundle-token-0123456789abcdef';
const cleanups: Array<() => Promise<void> | void> = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('the built bundle', { timeout: 120_000 }, () => {
  it('starts with the default features, answers over the protocol and serves WebChat', async () => {
    cleanups.push(() => rmSync(outDirectory, { recursive: true, force: true }));
    await build({
      ...bundleConfig,
      config: false,
      cwd: gatewayDirectory,
      outDir: outDirectory,
      sourcemap: false,
      logLevel: 'warn',
      copy: [
        { from: ['src/webchat/static/*', '!src/webchat/static/*.d.ts'], to: join(outDirectory, 'webchat') },
      ],
    });

    const model = await createFakeAnthropic({ fallback: 'echo' }).start();
    cleanups.push(() => model.close());
    const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-bundle-'));
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
      }),
    );
    const gateway: ChildGateway = await startChildGateway({
      stateDirectory,
      token,
      entry: join(outDirectory, 'main.mjs'),
    });
    cleanups.push(() => gateway.stop());

    const client = await gateway.client();
    const { final } = await client.requestFinal('agent', {
      message: 'hello from the bundle',
      idempotencyKey: 'b1',
    });
    expect(final.ok, JSON.stringify(final)).toBe(true);
    expect(JSON.stringify(final.payload)).toContain('hello from the bundle');
    // The default features were on: the model was offered their tools.
    const offered = (model.requests.at(-1)?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(['memory_search', 'exec', 'cron', 'sessions_spawn']));

    const page = await fetch(`${gateway.httpUrl}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    expect(gateway.output.join('')).not.toMatch(/Cannot find (package|module)/);
  });
});
