// A gateway that does not use OpenAI or Ollama never loads their SDKs (issue 20): importing
// the providers extension, with the rest of the gateway, loads neither `openai` nor `ollama`;
// they are imported on the first call of a model with their api.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function modulesLoadedBy(specifier: string): string[] {
  // Records every module URL Node resolves while importing `specifier`.
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.push(result.url); return result; } });
    await import(${JSON.stringify(specifier)});
    console.log(JSON.stringify(seen));
  `;
  const out = execFileSync(
    process.execPath,
    ['--conditions=@switchboard/source', '--input-type=module', '-e', script],
    {
      cwd: join(import.meta.dirname, '..'),
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  return JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as string[];
}

const sdk = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(openai|ollama)\//;

describe('gateway: provider SDKs load lazily', () => {
  it('the builtin extensions (providers included) load neither the openai nor the ollama SDK', () => {
    const loaded = modulesLoadedBy('./src/extensions/builtin-extensions.ts');
    expect(loaded.some((url) => url.endsWith('/extensions/providers.ts'))).toBe(true);
    expect(loaded.some((url) => url.includes('provider-openai/src/model-factory.ts'))).toBe(true);
    expect(loaded.filter((url) => sdk.test(url))).toEqual([]);
  });

  it('the provider entries do load them (so the check above can fail)', () => {
    const loaded = modulesLoadedBy('@switchboard/provider-openai');
    expect(loaded.some((url) => sdk.exec(url)?.[1] === 'openai')).toBe(true);
  });
});
