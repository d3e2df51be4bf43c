/**
 * Finds every key of a config value that its zod schema does not know, at every depth:
 * strict objects (which zod reports) and plain `z.object`s (which zod silently strips) alike.
 * Objects that accept extra keys on purpose (`z.looseObject`, `.catchall(...)`) have none.
 */
import type { z } from 'zod';

/** A key the schema does not know. */
export interface UnknownKey {
  /** Path segments from the walked value to the object holding the key. */
  readonly parent: readonly PropertyKey[];
  readonly key: string;
  /** The keys that object may have (for "did you mean"). */
  readonly known: readonly string[];
}

// The parts of zod 4's schema definitions (`schema._zod.def`) the walk reads.
interface SchemaNode {
  readonly _zod: { readonly def: SchemaDefinition };
}
interface SchemaDefinition {
  readonly type: string;
  readonly innerType?: SchemaNode;
  readonly in?: SchemaNode;
  readonly getter?: () => SchemaNode;
  readonly shape?: Readonly<Record<string, SchemaNode>>;
  readonly catchall?: SchemaNode;
  readonly element?: SchemaNode;
  readonly valueType?: SchemaNode;
  readonly items?: readonly SchemaNode[];
  readonly rest?: SchemaNode | null;
  readonly options?: readonly SchemaNode[];
  readonly left?: SchemaNode;
  readonly right?: SchemaNode;
}

const wrappers = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);
const maximumDepth = 64;

/** Every unknown key in `value`, parents before children, in the value's key order. */
export function findUnknownKeys(schema: z.ZodType, value: unknown): UnknownKey[] {
  const found: UnknownKey[] = [];
  walk(schema as unknown as SchemaNode, value, [], found, 0);
  return found;
}

/** Strips wrappers (optional, default, ...), follows a pipe's input and resolves lazy schemas. */
function unwrap(schema: SchemaNode): SchemaDefinition {
  let definition = schema._zod.def;
  for (let step = 0; step < 32; step += 1) {
    if (wrappers.has(definition.type) && definition.innerType !== undefined) {
      definition = definition.innerType._zod.def;
    } else if (definition.type === 'pipe' && definition.in !== undefined) {
      definition = definition.in._zod.def;
    } else if (definition.type === 'lazy' && definition.getter !== undefined) {
      definition = definition.getter()._zod.def;
    } else break;
  }
  return definition;
}

interface ObjectPart {
  readonly shape: Readonly<Record<string, SchemaNode>>;
  /** Extra keys are allowed (loose object or catchall), validated by this schema. */
  readonly catchall: SchemaNode | undefined;
}

/** The object schemas a value must satisfy (one, or both sides of an intersection). */
function objectParts(definition: SchemaDefinition): ObjectPart[] | undefined {
  if (definition.type === 'object') {
    const catchall = definition.catchall;
    const allowsExtra = catchall !== undefined && unwrap(catchall).type !== 'never';
    return [{ shape: definition.shape ?? {}, catchall: allowsExtra ? catchall : undefined }];
  }
  if (definition.type === 'intersection' && definition.left !== undefined && definition.right !== undefined) {
    const left = objectParts(unwrap(definition.left));
    const right = objectParts(unwrap(definition.right));
    return left === undefined || right === undefined ? undefined : [...left, ...right];
  }
  return undefined;
}

function walk(
  schema: SchemaNode,
  value: unknown,
  path: readonly PropertyKey[],
  found: UnknownKey[],
  depth: number,
): void {
  if (depth > maximumDepth || value === undefined || value === null) return;
  const definition = unwrap(schema);
  const parts = objectParts(definition);
  if (parts !== undefined) {
    if (!isPlainObject(value)) return;
    const known = [...new Set(parts.flatMap((part) => Object.keys(part.shape)))];
    const children: Array<[string, SchemaNode]> = [];
    for (const key of Object.keys(value)) {
      const owners = parts.filter((part) => Object.hasOwn(part.shape, key));
      if (owners.length > 0) {
        for (const owner of owners) children.push([key, owner.shape[key]!]);
        continue;
      }
      const catchalls = parts.flatMap((part) => (part.catchall === undefined ? [] : [part.catchall]));
      if (catchalls.length === 0) found.push({ parent: path, key, known });
      else for (const catchall of catchalls) children.push([key, catchall]);
    }
    for (const [key, child] of children) walk(child, value[key], [...path, key], found, depth + 1);
    return;
  }
  switch (definition.type) {
    case 'record':
      if (!isPlainObject(value) || definition.valueType === undefined) return;
      for (const [key, item] of Object.entries(value))
        walk(definition.valueType, item, [...path, key], found, depth + 1);
      return;
    case 'array':
      if (!Array.isArray(value) || definition.element === undefined) return;
      value.forEach((item, index) => {
        walk(definition.element!, item, [...path, index], found, depth + 1);
      });
      return;
    case 'tuple':
      if (!Array.isArray(value)) return;
      value.forEach((item, index) => {
        const itemSchema = definition.items?.[index] ?? definition.rest ?? undefined;
        if (itemSchema !== undefined) walk(itemSchema, item, [...path, index], found, depth + 1);
      });
      return;
    case 'union': {
      const option = bestOption(definition.options ?? [], value);
      if (option !== undefined) walk(option, value, path, found, depth + 1);
      return;
    }
    default:
      return;
  }
}

/**
 * The union member to look for unknown keys against: for an object, the object member that
 * knows most of its keys (the first on a tie); for an array, the first array member.
 */
function bestOption(options: readonly SchemaNode[], value: unknown): SchemaNode | undefined {
  if (Array.isArray(value)) return options.find((option) => unwrap(option).type === 'array');
  if (!isPlainObject(value)) return undefined;
  let best: SchemaNode | undefined;
  let bestScore = -1;
  for (const option of options) {
    const parts = objectParts(unwrap(option));
    if (parts === undefined) continue;
    const score = Object.keys(value).filter((key) =>
      parts.some((part) => Object.hasOwn(part.shape, key)),
    ).length;
    if (score > bestScore) {
      best = option;
      bestScore = score;
    }
  }
  return best;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
