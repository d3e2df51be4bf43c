import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CoreLoopError } from './errors.ts';
import { assertValidTools, defineTool, toolSpec, validateToolArguments } from './tools.ts';

const noop = async () => ({ content: [] });

describe('tools', () => {
  it('turns the zod schema into JSON Schema once, without $schema', () => {
    const tool = defineTool({
      name: 'search',
      description: 'Search the web',
      parameters: z.object({ query: z.string().min(1), limit: z.number().int().max(50).default(10) }),
      execute: noop,
    });
    const spec = toolSpec(tool);
    expect(spec.parameters.$schema).toBeUndefined();
    expect(spec.parameters).toMatchObject({ type: 'object', required: ['query'] });
    expect(toolSpec(tool)).toBe(spec);
  });

  it("sends a tool's own JSON Schema as is (without $schema) and still validates with its zod schema", () => {
    const jsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { city: { type: 'string', description: 'City name', pattern: '^[A-Z]' } },
      required: ['city'],
    };
    const tool = defineTool({
      name: 'weather',
      description: 'Weather of a city',
      parameters: z.object({ city: z.string() }),
      parametersJsonSchema: jsonSchema,
      execute: noop,
    });
    const spec = toolSpec(tool);
    expect(spec.parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string', description: 'City name', pattern: '^[A-Z]' } },
      required: ['city'],
    });
    expect(toolSpec(tool)).toBe(spec);
    expect(validateToolArguments(tool, { city: 5 })).toEqual({ ok: true, args: { city: '5' } });
    expect(validateToolArguments(tool, {}).ok).toBe(false);
    const scalar = defineTool({ ...tool, name: 'scalar', parametersJsonSchema: { type: 'string' } });
    expect(() => toolSpec(scalar)).toThrow(/Tool "scalar": parametersJsonSchema must describe an object/);
  });

  it('refuses a non-object schema, bad names and duplicates, naming the tool', () => {
    const scalar = defineTool({ name: 'bad', description: 'x', parameters: z.string(), execute: noop });
    expect(() => toolSpec(scalar)).toThrow(/Tool "bad": parameters must be a zod object schema/);
    expect(() => assertValidTools([{ ...scalar, name: 'has space' }])).toThrow(
      /tools\[0\]: name "has space"/,
    );
    try {
      assertValidTools([scalar]);
    } catch (error) {
      expect((error as CoreLoopError).code).toBe('CORE_LOOP_INVALID_TOOL');
    }
  });

  it('validates with defaults applied and coerces scalars deep inside objects and arrays', () => {
    const tool = defineTool({
      name: 'plan',
      description: 'x',
      parameters: z.object({
        steps: z.array(z.object({ order: z.number().int(), done: z.boolean() })),
        title: z.string(),
        limit: z.number().default(5),
        mode: z.union([z.literal('fast'), z.literal('slow')]).optional(),
      }),
      execute: noop,
    });
    const original = { steps: [{ order: '1', done: 'false' }], title: 42 };
    const result = validateToolArguments(tool, original);
    expect(result).toEqual({ ok: true, args: { steps: [{ order: 1, done: false }], title: '42', limit: 5 } });
    expect(original).toEqual({ steps: [{ order: '1', done: 'false' }], title: 42 });
  });

  it('does not coerce what cannot be coerced, and explains every failing path', () => {
    const tool = defineTool({
      name: 'plan',
      description: 'x',
      parameters: z.object({ count: z.number().int(), tags: z.array(z.string()) }),
      execute: noop,
    });
    const result = validateToolArguments(tool, { count: '1.5', tags: 'a' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('Validation failed for tool "plan"');
    expect(result.message).toContain('  - count:');
    expect(result.message).toContain('  - tags:');
    expect(result.message).toContain('Received arguments:\n{\n  "count": "1.5"');
  });

  it('follows $ref definitions (recursive schemas) when coercing', () => {
    interface Tree {
      value: number;
      children: Tree[];
    }
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ value: z.number(), children: z.array(tree) }));
    const tool = defineTool({
      name: 'tree',
      description: 'x',
      parameters: z.object({ root: tree }),
      execute: noop,
    });
    expect(JSON.stringify(toolSpec(tool).parameters)).toContain('"$ref":"#/$defs/');
    expect(
      validateToolArguments(tool, { root: { value: '1', children: [{ value: '2.5', children: [] }] } }),
    ).toEqual({
      ok: true,
      args: { root: { value: 1, children: [{ value: 2.5, children: [] }] } },
    });
  });
});
