import { describe, expect, it } from 'vitest';
import { validateCompat } from '../src/compat.ts';
import { ProviderOpenAIError, providerOpenAIErrorCodes } from '../src/errors.ts';
import { createOpenAIModel } from '../src/models.ts';
import { cleanToolSchema } from '../src/tool-schema.ts';

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    pattern: { type: 'string', pattern: '^a', minLength: 1, format: 'email' },
    mode: { const: 'fast' },
    tags: { type: 'array', items: { type: 'string', maxLength: 5 } },
  },
  required: ['pattern'],
  additionalProperties: false,
};

describe('tool schema profiles', () => {
  it('full drops only $schema; llama-cpp drops string constraints at every depth; minimal keeps the core', () => {
    expect(cleanToolSchema(schema, 'full')).toEqual({
      type: 'object',
      properties: schema.properties,
      required: ['pattern'],
      additionalProperties: false,
    });
    expect(cleanToolSchema(schema, 'llama-cpp')).toEqual({
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        mode: { const: 'fast' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['pattern'],
      additionalProperties: false,
    });
    expect(cleanToolSchema(schema, 'minimal')).toEqual({
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        mode: { enum: ['fast'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['pattern'],
    });
    // The input is untouched.
    expect(schema.properties.pattern.pattern).toBe('^a');
  });

  it('rejects unknown compat flags and values, naming the key path', () => {
    expect(() => validateCompat({ supportsTool: true }, 'models.providers.local.compat')).toThrow(
      /models\.providers\.local\.compat\.supportsTool is not a compat flag/,
    );
    expect(() => validateCompat({ maxTokensField: 'n_predict' })).toThrow(/maxTokensField must be/);
    expect(() => validateCompat({ requiresStringContent: 'yes' })).toThrow(ProviderOpenAIError);
    expect(validateCompat({ toolSchemaProfile: 'minimal' })).toEqual({ toolSchemaProfile: 'minimal' });
  });

  it('builds models from known ids and configured values, and documents its error codes', () => {
    expect(
      createOpenAIModel({ api: 'openai-responses', provider: 'openai', id: 'gpt-5-mini' }),
    ).toMatchObject({
      contextWindow: 400_000,
      thinking: 'adaptive',
      input: ['text', 'image'],
    });
    const local = createOpenAIModel({
      api: 'openai-completions',
      provider: 'local',
      id: 'qwen3',
      contextWindow: 32_768,
      compat: { supportsTools: false },
    });
    expect(local).toMatchObject({
      contextWindow: 32_768,
      maxOutputTokens: 8192,
      input: ['text'],
      compat: { supportsTools: false },
    });
    expect(local.thinking).toBeUndefined();
    expect(() => createOpenAIModel({ api: 'ollama', provider: 'x', id: 'y' })).toThrow(/api must be/);
    for (const text of Object.values(providerOpenAIErrorCodes)) expect(text.length).toBeGreaterThan(20);
  });
});
