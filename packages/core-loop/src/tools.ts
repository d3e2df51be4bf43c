import { z } from 'zod';
import { CoreLoopError } from './errors.ts';
import type { AgentTool, AnyAgentTool, ToolSpec } from './types.ts';

/**
 * Declares a tool with its argument types inferred from the zod schema:
 *
 * ```ts
 * const read = defineTool({
 *   name: 'read_file',
 *   description: 'Read a file of the workspace',
 *   parameters: z.object({ path: z.string() }),
 *   async execute(id, { path }, signal) { return { content: [{ type: 'text', text: await load(path, signal) }] }; },
 * });
 * ```
 */
export function defineTool<Schema extends z.ZodType, Details = unknown>(
  tool: AgentTool<Schema, Details>,
): AgentTool<Schema, Details> {
  return tool;
}

type JsonSchema = Readonly<Record<string, unknown>>;

const specCache = new WeakMap<AnyAgentTool, ToolSpec>();
/** Converting a zod schema is costly; tools rebuilt per run usually share their schema object. */
const schemaCache = new WeakMap<object, Record<string, unknown>>();

/**
 * The tool as the model sees it: its zod schema converted to JSON Schema (input side, no
 * `$schema` key), or its own `parametersJsonSchema` when it has one. Computed once per tool object, and once per schema object across tools.
 * Throws `CORE_LOOP_INVALID_TOOL` when the schema does not describe an object or cannot be
 * represented.
 */
export function toolSpec(tool: AnyAgentTool): ToolSpec {
  const cached = specCache.get(tool);
  if (cached !== undefined) return cached;
  if (tool.parametersJsonSchema !== undefined) return jsonSchemaSpec(tool, tool.parametersJsonSchema);
  const sharedSchema = schemaCache.get(tool.parameters);
  if (sharedSchema !== undefined) {
    const spec: ToolSpec = { name: tool.name, description: tool.description, parameters: sharedSchema };
    specCache.set(tool, spec);
    return spec;
  }
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(tool.parameters, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
  } catch (error) {
    throw new CoreLoopError(
      'CORE_LOOP_INVALID_TOOL',
      `Tool "${tool.name}": its parameters schema cannot be turned into JSON Schema (${errorText(error)}).`,
      { cause: error, details: { tool: tool.name } },
    );
  }
  delete schema.$schema;
  if (schema.type !== 'object') {
    throw new CoreLoopError(
      'CORE_LOOP_INVALID_TOOL',
      `Tool "${tool.name}": parameters must be a zod object schema (z.object({...})), got JSON Schema type ${JSON.stringify(schema.type)}.`,
      { details: { tool: tool.name } },
    );
  }
  const spec: ToolSpec = { name: tool.name, description: tool.description, parameters: schema };
  specCache.set(tool, spec);
  schemaCache.set(tool.parameters, schema);
  return spec;
}

/** The spec of a tool that brings its own JSON Schema (no `$schema` key; must describe an object). */
function jsonSchemaSpec(tool: AnyAgentTool, jsonSchema: Readonly<Record<string, unknown>>): ToolSpec {
  if (jsonSchema.type !== 'object') {
    throw new CoreLoopError(
      'CORE_LOOP_INVALID_TOOL',
      `Tool "${tool.name}": parametersJsonSchema must describe an object ("type": "object"), got type ${JSON.stringify(jsonSchema.type)}.`,
      { details: { tool: tool.name } },
    );
  }
  const { $schema: _ignored, ...parameters } = jsonSchema;
  const spec: ToolSpec = { name: tool.name, description: tool.description, parameters };
  specCache.set(tool, spec);
  return spec;
}

/** Checks a tool list: valid names, no duplicates, object schemas. Throws `CORE_LOOP_INVALID_TOOL`. */
export function assertValidTools(tools: readonly AnyAgentTool[]): void {
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    if (typeof tool.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(tool.name)) {
      throw new CoreLoopError(
        'CORE_LOOP_INVALID_TOOL',
        `tools[${index}]: name ${JSON.stringify(tool.name)} must be 1-64 characters of letters, digits, _ and -.`,
        { details: { index } },
      );
    }
    if (seen.has(tool.name)) {
      throw new CoreLoopError(
        'CORE_LOOP_INVALID_TOOL',
        `tools[${index}]: a tool named "${tool.name}" is already in the list; tool names must be unique.`,
        { details: { index, tool: tool.name } },
      );
    }
    seen.add(tool.name);
    if (typeof tool.execute !== 'function') {
      throw new CoreLoopError('CORE_LOOP_INVALID_TOOL', `Tool "${tool.name}": execute must be a function.`, {
        details: { tool: tool.name },
      });
    }
    toolSpec(tool);
  });
}

/** The outcome of validating a tool call's arguments. */
export type ArgumentValidation =
  | { readonly ok: true; readonly args: unknown }
  | { readonly ok: false; readonly message: string };

/**
 * Validates the model's arguments against the tool's schema. Works on a copy (the model's
 * arguments are never changed). When the arguments fail as given, scalar values are
 * coerced toward the types the JSON Schema names (`"5"` → `5`, `"true"` → `true`,
 * `5` → `"5"`) and validated again. The failure text lists every failing path with its
 * message, then the received arguments.
 */
export function validateToolArguments(tool: AnyAgentTool, args: unknown): ArgumentValidation {
  const first = tool.parameters.safeParse(args);
  if (first.success) return { ok: true, args: first.data };
  const spec = toolSpec(tool);
  const coerced = coerce(args, spec.parameters, spec.parameters);
  if (coerced !== args) {
    const second = tool.parameters.safeParse(coerced);
    if (second.success) return { ok: true, args: second.data };
  }
  const lines = first.error.issues.map((issue) => {
    const path = issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
    return `  - ${path}: ${issue.message}`;
  });
  return {
    ok: false,
    message: `Validation failed for tool "${tool.name}":\n${lines.join('\n')}\n\nReceived arguments:\n${safeStringify(args)}`,
  };
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------------
// Schema-guided coercion (returns the same value when nothing changed)

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const reference = schema.$ref;
  if (typeof reference !== 'string' || !reference.startsWith('#/')) return schema;
  let target: unknown = root;
  for (const part of reference.slice(2).split('/')) {
    if (typeof target !== 'object' || target === null) return schema;
    target = (target as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return typeof target === 'object' && target !== null ? (target as JsonSchema) : schema;
}

function allowedTypes(schema: JsonSchema, root: JsonSchema): Set<string> {
  const types = new Set<string>();
  const type = schema.type;
  if (typeof type === 'string') types.add(type);
  else if (Array.isArray(type)) for (const entry of type) if (typeof entry === 'string') types.add(entry);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (typeof branch === 'object' && branch !== null) {
        for (const entry of allowedTypes(resolve(branch as JsonSchema, root), root)) types.add(entry);
      }
    }
  }
  if (Array.isArray(schema.enum)) for (const entry of schema.enum) types.add(jsonType(entry));
  if ('const' in schema) types.add(jsonType(schema.const));
  return types;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function accepts(types: Set<string>, value: unknown): boolean {
  const type = jsonType(value);
  if (types.has(type)) return true;
  return type === 'integer' && types.has('number');
}

function coerceScalar(value: unknown, types: Set<string>): unknown {
  if (types.has('integer') || types.has('number')) {
    if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
      const number = Number(value);
      if (types.has('number') || Number.isInteger(number)) return number;
    }
    if (typeof value === 'boolean') return value ? 1 : 0;
  }
  if (types.has('boolean')) {
    if (value === 'true' || value === 1) return true;
    if (value === 'false' || value === 0) return false;
  }
  if (types.has('string') && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  if (types.has('null') && (value === '' || value === 0 || value === false)) return null;
  return value;
}

function coerce(value: unknown, rawSchema: JsonSchema, root: JsonSchema): unknown {
  const schema = resolve(rawSchema, root);
  const types = allowedTypes(schema, root);
  if (types.size > 0 && !accepts(types, value)) return coerceScalar(value, types);
  if (Array.isArray(value)) {
    const items = schema.items;
    if (typeof items !== 'object' || items === null || Array.isArray(items)) return value;
    let changed = false;
    const next = value.map((entry) => {
      const result = coerce(entry, items as JsonSchema, root);
      if (result !== entry) changed = true;
      return result;
    });
    return changed ? next : value;
  }
  if (typeof value === 'object' && value !== null) {
    const properties = schema.properties;
    if (typeof properties !== 'object' || properties === null) return value;
    let changed = false;
    const next: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const [key, propertySchema] of Object.entries(properties as Record<string, unknown>)) {
      if (!(key in next) || typeof propertySchema !== 'object' || propertySchema === null) continue;
      const result = coerce(next[key], propertySchema as JsonSchema, root);
      if (result !== next[key]) {
        next[key] = result;
        changed = true;
      }
    }
    return changed ? next : value;
  }
  return value;
}
