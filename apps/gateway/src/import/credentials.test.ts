import { describe, expect, it } from 'vitest';
import { planCredentials } from './credentials.ts';

describe('planCredentials', () => {
  it("reads the default agent first, keeps the first of two secrets under one id, and the default agent's order", () => {
    const plan = planCredentials(
      [
        {
          agentId: 'work',
          source: 'work/auth-profiles.json',
          profiles: { 'anthropic:shared': { type: 'api_key', provider: 'anthropic', key: 'sk-work' } },
          order: { anthropic: ['anthropic:shared'] },
        },
        {
          agentId: 'main',
          source: 'main/auth-profiles.json',
          profiles: {
            'anthropic:shared': { type: 'api_key', provider: 'anthropic', key: 'sk-main' },
            'anthropic:env': {
              type: 'api_key',
              provider: 'anthropic',
              keyRef: { source: 'env', id: 'ANTHROPIC_KEY' },
            },
            'openai:vault': {
              type: 'token',
              provider: 'openai',
              tokenRef: { source: 'exec', id: 'vault read' },
            },
          },
          order: { anthropic: ['anthropic:env', 'anthropic:shared'] },
        },
      ],
      'main',
    );
    expect(plan.credentials).toEqual([
      {
        profileId: 'anthropic:shared',
        credential: { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-main' },
      },
    ]);
    expect(plan.configProfiles).toEqual({
      'anthropic:env': { provider: 'anthropic', mode: 'api_key', apiKey: '${ANTHROPIC_KEY}' },
    });
    expect(plan.order).toEqual({ anthropic: ['anthropic:env', 'anthropic:shared'] });
    const texts = plan.notes.map((note) => `${note.status}: ${note.text}`);
    expect(texts).toContainEqual(
      expect.stringMatching(/^changed: anthropic:shared \(agent work\): a different credential/),
    );
    expect(texts).toContainEqual(
      expect.stringMatching(/^changed: agent work ordered anthropic profiles differently/),
    );
    expect(texts).toContainEqual(
      expect.stringMatching(/^unsupported: openai:vault \(openai, token\): no usable secret/),
    );
    expect(JSON.stringify(plan.notes)).not.toContain('sk-');
  });
});
