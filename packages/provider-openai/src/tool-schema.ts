// Tool JSON Schemas cleaned per server profile: zod writes complete JSON Schema, and some
// servers reject keywords they do not implement (llama.cpp's grammar converter fails on
// `pattern` and string lengths; small local servers understand only the core shape).
import type { ToolSchemaProfile } from './compat.ts';

const droppedByProfile: Readonly<Record<Exclude<ToolSchemaProfile, 'minimal'>, ReadonlySet<string>>> = {
  full: new Set(['$schema']),
  'llama-cpp': new Set(['$schema', 'pattern', 'format', 'minLength', 'maxLength', 'patternProperties']),
};

/** What the `minimal` profile keeps: the structure a model needs to call the tool. */
const minimalKeywords = new Set([
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'description',
  'anyOf',
  'default',
]);

/** Keys whose value is a map of name → schema. */
const schemaMaps = new Set(['properties', '$defs', 'definitions', 'patternProperties']);
/** Keys whose value is a schema or a list of schemas. */
const schemaValues = new Set([
  'items',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'additionalProperties',
  'prefixItems',
]);

/**
 * A copy of `schema` without the keywords `profile` drops, at every depth (properties,
 * items, combinators, definitions). `minimal` also turns `const` into a one-value `enum`.
 * The input is never changed.
 */
export function cleanToolSchema(
  schema: Readonly<Record<string, unknown>>,
  profile: ToolSchemaProfile,
): Record<string, unknown> {
  return cleanNode(schema, profile) as Record<string, unknown>;
}

function cleanNode(node: unknown, profile: ToolSchemaProfile): unknown {
  if (Array.isArray(node)) return node.map((entry) => cleanNode(entry, profile));
  if (node === null || typeof node !== 'object') return node;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (profile === 'minimal') {
      if (key === 'const') {
        result.enum = [value];
        continue;
      }
      if (!minimalKeywords.has(key)) continue;
    } else if (droppedByProfile[profile].has(key)) continue;
    if (schemaMaps.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      result[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, cleanNode(child, profile)]),
      );
    } else if (schemaValues.has(key)) {
      result[key] = cleanNode(value, profile);
    } else {
      result[key] = value;
    }
  }
  return result;
}
