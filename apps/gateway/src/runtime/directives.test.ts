import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteSessionStore, type SessionStore } from '@switchboard/sessions';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayConfigSchema } from '../config/schema.ts';
import { createDirectives } from './directives.ts';
import { createLiveConfig } from './live-config.ts';
import { createModelCatalog } from './models.ts';

const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function setup() {
  const config = gatewayConfigSchema.parse({
    models: {
      providers: {
        anthropic: {
          apiKey: 'k',
          models: [{ id: 'claude-sonnet-4-6', contextWindow: 200000, maxTokens: 4096 }],
        },
        local: { apiKey: 'k', models: [{ id: 'small', contextWindow: 32000, maxTokens: 1024 }] },
      },
    },
    agents: {
      defaults: { model: 'anthropic/claude-sonnet-4-6', thinking: 'low' },
      list: [{ id: 'main' }, { id: 'coder', model: 'local/small', thinking: 'high' }],
    },
  });
  const store = await createSqliteSessionStore({
    stateDirectory: mkdtempSync(join(tmpdir(), 'switchboard-directives-')),
  });
  stores.push(store);
  const directives = createDirectives({
    config: createLiveConfig(config),
    store,
    hooks: {} as never,
    registry: {} as never,
    catalog: createModelCatalog(config, {}),
    dispatcher: { status: () => ({ active: undefined, queued: 0 }) } as never,
    now: () => 0,
  });
  const ask = async (sessionKey: string, agentId: string, text: string) => {
    const outcome = await directives.handle({ text, sessionKey, agentId, channel: 'test' });
    return outcome.kind === 'handled' ? (outcome.reply ?? '') : '';
  };
  return { store, ask };
}

describe('directives: /status and /model', () => {
  it('/status shows the model and thinking level the runner uses: the agent own, then the session overrides', async () => {
    const { store, ask } = await setup();
    const status = await ask('agent:coder:main', 'coder', '/status');
    expect(status).toContain('Model: local/small (window 32,000)');
    expect(status).toContain('Thinking: high');
    expect(await ask('agent:coder:main', 'coder', '/model')).toContain('Model: local/small.');

    const defaults = await ask('agent:main:main', 'main', '/status');
    expect(defaults).toContain('Model: anthropic/claude-sonnet-4-6 (window 200,000)');
    expect(defaults).toContain('Thinking: low');

    await store.ensureSession('agent:coder:main', { agentId: 'coder' });
    await store.patchSession('agent:coder:main', {
      modelOverride: 'claude-sonnet-4-6',
      providerOverride: 'anthropic',
      thinkingLevel: 'minimal',
    });
    const overridden = await ask('agent:coder:main', 'coder', '/status');
    expect(overridden).toContain('Model: anthropic/claude-sonnet-4-6 (window 200,000)');
    expect(overridden).toContain('Thinking: minimal');

    await store.patchSession('agent:coder:main', { modelOverride: 'small', providerOverride: 'local' });
    expect(await ask('agent:coder:main', 'coder', '/status')).toContain('Model: local/small (window 32,000)');
    expect(await ask('agent:coder:main', 'coder', '/model')).toContain('Model: local/small.');
  });
});
