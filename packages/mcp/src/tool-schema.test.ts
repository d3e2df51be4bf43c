import { describe, expect, it } from 'vitest';
import { argumentsSchema, prepareInputSchema } from './tool-schema.ts';

describe('prepareInputSchema', () => {
  it('drops $schema, fills in type object, and refuses non-object schemas with the reason', () => {
    expect(
      prepareInputSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        properties: { a: { type: 'string' } },
      }),
    ).toEqual({ ok: true, jsonSchema: { type: 'object', properties: { a: { type: 'string' } } } });
    expect(prepareInputSchema(undefined)).toEqual({
      ok: true,
      jsonSchema: { type: 'object', properties: {} },
    });
    expect(prepareInputSchema({ type: 'string' })).toEqual({
      ok: false,
      reason: 'its inputSchema has type "string"; tool parameters must be an object',
    });
    expect(prepareInputSchema([1])).toMatchObject({ ok: false });
  });
});

describe('argumentsSchema', () => {
  it('accepts objects, refuses other values, and reports what the JSON Schema check said', () => {
    const lenient = argumentsSchema(undefined);
    expect(lenient.safeParse({ any: 1 }).success).toBe(true);
    expect(lenient.safeParse('text').success).toBe(false);
    const strict = argumentsSchema((value) =>
      typeof (value as { city?: unknown }).city === 'string' ? undefined : 'data must have property city',
    );
    expect(strict.safeParse({ city: 'Oslo' }).success).toBe(true);
    const failure = strict.safeParse({});
    expect(failure.success).toBe(false);
    expect(failure.error?.issues[0]?.message).toBe('data must have property city');
  });
});
