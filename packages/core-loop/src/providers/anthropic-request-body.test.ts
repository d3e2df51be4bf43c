import { describe, expect, it } from 'vitest';
import { anthropicRequestBody, type RequestTool } from './anthropic-request-body.ts';

const schema = { type: 'object', properties: { path: { type: 'string', description: 'A "quoted" path\n' } } };
const params = {
  model: 'claude-sonnet-4-6',
  max_tokens: 1024,
  stream: true as const,
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'héllo ✓ "there"' }] }],
};

function decoded(bytes: Uint8Array): unknown {
  return JSON.parse(Buffer.from(bytes).toString('utf8'));
}

describe('Anthropic request body', () => {
  it('is the JSON of the whole request, system and tools included', () => {
    const tools: RequestTool[] = [
      { name: 'read_file', description: 'Reads a file ✓', parameters: schema },
      { name: 'list', description: 'Lists', parameters: { type: 'object', properties: {} } },
    ];
    const system = { text: 'You are "helpful".\nBe brief ✓', cacheControl: { type: 'ephemeral' as const } };
    expect(decoded(anthropicRequestBody(params, system, tools))).toEqual({
      ...params,
      system: [{ type: 'text', text: system.text, cache_control: { type: 'ephemeral' } }],
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters,
      })),
    });
    // No system prompt, no tools, no cache control: none of their keys.
    expect(decoded(anthropicRequestBody(params, undefined, []))).toEqual(params);
    expect(decoded(anthropicRequestBody(params, { text: 'x', cacheControl: undefined }, []))).toEqual({
      ...params,
      system: [{ type: 'text', text: 'x' }],
    });
  });

  it('encodes an edited prompt or tool afresh, even on the same schema object', () => {
    const system = { text: 'first', cacheControl: { type: 'ephemeral' as const } };
    const tool: RequestTool = { name: 'read_file', description: 'Reads a file', parameters: schema };
    anthropicRequestBody(params, system, [tool]);
    const edited = decoded(
      anthropicRequestBody(params, { text: 'second', cacheControl: { type: 'ephemeral', ttl: '1h' } }, [
        { ...tool, description: 'Reads a file, edited' },
      ]),
    ) as { system: unknown; tools: { description: string }[] };
    expect(edited.system).toEqual([
      { type: 'text', text: 'second', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect(edited.tools[0]?.description).toBe('Reads a file, edited');
    // And the first versions are still what they were.
    const again = decoded(anthropicRequestBody(params, system, [tool])) as {
      system: { text: string }[];
      tools: { description: string }[];
    };
    expect(again.system[0]?.text).toBe('first');
    expect(again.tools[0]?.description).toBe('Reads a file');
  });
});
