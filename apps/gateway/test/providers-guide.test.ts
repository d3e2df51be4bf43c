// The config examples of docs/guide/providers.md work as written: each parses without a
// problem, and its models resolve to the api and endpoint the guide says, with the compat
// flags it sets (issue 20).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGatewayConfig } from '../src/config/load.ts';
import type { GatewayConfig } from '../src/config/schema.ts';
import { coreExtension } from '../src/extensions/core.ts';
import { setUpExtensions } from '../src/extensions/host.ts';
import { providersExtension } from '../src/extensions/providers.ts';
import { createModelCatalog } from '../src/runtime/models.ts';

const guide = readFileSync(
  join(import.meta.dirname, '..', '..', '..', 'docs', 'guide', 'providers.md'),
  'utf8',
);
const examples = [...guide.matchAll(/```json5\n([\s\S]*?)```/g)].map((match) => match[1] as string);

async function catalogOf(config: GatewayConfig, environment: NodeJS.ProcessEnv) {
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);
  const logger = { debug: log, info: log, warn: log, error: log, child: () => logger } as never;
  const host = await setUpExtensions([coreExtension, providersExtension], {
    config: () => config,
    stateDirectory: '/nonexistent',
    store: {} as never,
    logger,
    hooks: {} as never,
    plugins: { tools: () => [] } as never,
    now: Date.now,
    workspaceFor: () => '/nonexistent',
  });
  return createModelCatalog(config, environment, (api, settings) => {
    const registration = host.modelProviders.get(api);
    if (registration === undefined) throw new Error(`no api ${api}`);
    return registration.createModel(settings);
  });
}

describe('docs/guide/providers.md', () => {
  it('has three config examples, each valid as written', () => {
    expect(examples).toHaveLength(3);
    for (const example of examples) {
      const { problems } = checkGatewayConfig(example, 'guide', { OPENROUTER_API_KEY: 'sk-or-test' });
      expect(problems).toEqual([]);
    }
  });

  it('resolves the models the examples name to the right api, endpoint and limits', async () => {
    const checked = examples.map(
      (example) =>
        checkGatewayConfig(example, 'guide', { OPENROUTER_API_KEY: 'sk-or' }).config as GatewayConfig,
    );
    const [oneLine, ollama, compatible] = checked;
    const implicit = (await catalogOf(oneLine as GatewayConfig, {})).resolve('ollama/qwen3:8b');
    expect(implicit.model).toMatchObject({
      api: 'ollama',
      baseUrl: 'http://127.0.0.1:11434',
      contextWindow: 32_768,
    });
    const viaHost = (await catalogOf(oneLine as GatewayConfig, { OLLAMA_HOST: '0.0.0.0:11500' })).resolve(
      'ollama/qwen3:8b',
    );
    expect(viaHost.model.baseUrl).toBe('http://127.0.0.1:11500');
    const declared = (await catalogOf(ollama as GatewayConfig, {})).resolve('ollama/qwen3:8b');
    expect(declared.model).toMatchObject({ api: 'ollama', contextWindow: 40_960, thinking: 'adaptive' });
    const catalog = await catalogOf(compatible as GatewayConfig, {});
    expect(catalog.resolve('local/qwen3-coder').model).toMatchObject({
      api: 'openai-completions',
      baseUrl: 'http://127.0.0.1:8080/v1',
      compat: { toolSchemaProfile: 'llama-cpp' },
    });
    const hosted = catalog.resolve('openrouter/deepseek/deepseek-chat-v3.1');
    expect(hosted).toMatchObject({
      apiKey: 'sk-or',
      model: { api: 'openai-completions', id: 'deepseek/deepseek-chat-v3.1' },
    });
    const openai = (await catalogOf(oneLine as GatewayConfig, { OPENAI_API_KEY: 'sk-test' })).resolve(
      'openai/gpt-5',
    );
    expect(openai).toMatchObject({
      apiKey: 'sk-test',
      model: { api: 'openai-responses', thinking: 'adaptive' },
    });
    const compatibleServer = (
      await catalogOf(oneLine as GatewayConfig, {
        OPENAI_API_KEY: 'k',
        OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1',
      })
    ).resolve('openai/any');
    expect(compatibleServer.model).toMatchObject({
      api: 'openai-completions',
      baseUrl: 'http://127.0.0.1:1234/v1',
    });
  });

  it('models.mode "replace" drops the implicit providers; a bad compat flag is a config error with its path', async () => {
    const { config } = checkGatewayConfig(
      '{ models: { mode: "replace", providers: { local: { api: "openai-completions", baseUrl: "http://127.0.0.1:8080/v1" } } } }',
      'test',
      {},
    );
    const catalog = await catalogOf(config as GatewayConfig, {});
    expect(catalog.providers).toEqual(['local']);
    expect(() => catalog.resolve('ollama/x')).toThrow(/models\.providers has: local/);
    const { problems } = checkGatewayConfig(
      '{ models: { providers: { local: { api: "openai-completions", compat: { toolSchemaProfile: "tiny" } } } } }',
      'test',
      {},
    );
    expect(problems.map((problem) => problem.path)).toContain(
      'models.providers.local.compat.toolSchemaProfile',
    );
  });
});
