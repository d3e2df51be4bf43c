import JSON5 from 'json5';
import type { z } from 'zod';
import { ConfigError, type ConfigProblem, formatKeyPath } from './errors.ts';

/** Parses JSON5 text; a syntax error names the file, line and column. */
export function parseConfigText(text: string, source: string): unknown {
  try {
    return JSON5.parse(text);
  } catch (error) {
    const { lineNumber, columnNumber, message } = error as {
      lineNumber?: number;
      columnNumber?: number;
      message: string;
    };
    const where = lineNumber === undefined ? source : `${source}:${lineNumber}:${columnNumber ?? 0}`;
    throw new ConfigError('CONFIG_SYNTAX', `${where}: ${message.replace(/^JSON5: /, '')}`);
  }
}

export interface ValidatedConfig<T> {
  readonly value: T;
  /** Unknown keys: reported, ignored, never fatal. */
  readonly warnings: readonly ConfigProblem[];
}

/**
 * Validates a raw config against a schema built from strict objects. Unknown keys become
 * warnings (and are dropped); every other problem is an error naming its key path and
 * what was expected. All problems are reported at once.
 */
export function validateConfig<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
): ValidatedConfig<z.infer<Schema>> {
  const warnings: ConfigProblem[] = [];
  let input = structuredClone(raw);
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const result = schema.safeParse(input);
    if (result.success) return { value: result.data, warnings };
    const unknownKeys = result.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    const other = result.error.issues.filter((issue) => issue.code !== 'unrecognized_keys');
    for (const issue of unknownKeys) {
      for (const key of issue.keys) {
        warnings.push({ path: formatKeyPath([...issue.path, key]), message: 'unknown key, ignored' });
      }
    }
    if (other.length > 0) {
      const problems = other.map((issue) => ({
        path: formatKeyPath(issue.path),
        message: describe(issue, valueAt(input, issue.path)),
      }));
      throw new ConfigError(
        'CONFIG_INVALID',
        `config is invalid:\n${problems.map((problem) => `  ${problem.path}: ${problem.message}`).join('\n')}`,
        problems,
      );
    }
    input = removeKeys(input, unknownKeys);
  }
  throw new ConfigError('CONFIG_INVALID', 'config is invalid: could not settle unknown keys');
}

function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let target = input;
  for (const segment of path) target = (target as Record<PropertyKey, unknown> | undefined)?.[segment];
  return target;
}

function describe(issue: z.core.$ZodIssue, received: unknown): string {
  if (issue.code === 'invalid_type') {
    const kind =
      received === undefined
        ? 'nothing'
        : received === null
          ? 'null'
          : Array.isArray(received)
            ? 'array'
            : typeof received;
    return `expected ${issue.expected}, got ${kind}`;
  }
  if (issue.code === 'invalid_value')
    return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  return issue.message;
}

function removeKeys(input: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const target = valueAt(input, issue.path);
    if (typeof target !== 'object' || target === null) continue;
    for (const key of issue.keys) delete (target as Record<string, unknown>)[key];
  }
  return input;
}
