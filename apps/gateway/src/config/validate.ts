import JSON5 from 'json5';
import type { z } from 'zod';
import { closestKey } from './did-you-mean.ts';
import { ConfigError, type ConfigProblem, formatKeyPath, throwIfErrors } from './errors.ts';
import { findUnknownKeys, type UnknownKey } from './unknown-keys.ts';

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

/** How bad an unknown key is, by its full key path. */
export type UnknownKeySeverity = (path: string) => ConfigProblem['severity'];

export interface CheckConfigOptions {
  /** The key path of the value checked (`plugins.entries.guard.config`); default: the root. */
  readonly base?: string;
  /** Default: every unknown key is a warning. */
  readonly unknownKeySeverity?: UnknownKeySeverity;
}

export interface CheckedValue<T> {
  /** The parsed value (defaults applied, unknown keys dropped); undefined when there are errors. */
  readonly value: T | undefined;
  /** Every problem found, errors and warnings, each with its full key path. */
  readonly problems: readonly ConfigProblem[];
}

/**
 * Checks a raw config value against a zod schema and reports every problem at once: every
 * key the schema does not know, at any depth (with the closest known key as a suggestion),
 * and every other mismatch as an error naming its key path and what was expected. Unknown
 * keys are dropped before parsing, so a strict object does not fail on them. Never throws.
 */
export function checkConfig<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  options: CheckConfigOptions = {},
): CheckedValue<z.output<Schema>> {
  const base = options.base ?? '';
  const severityOf = options.unknownKeySeverity ?? (() => 'warning');
  const problems: ConfigProblem[] = [];
  let input = structuredClone(raw);
  const unknownKeys = findUnknownKeys(schema, input);
  for (const unknown of unknownKeys) problems.push(unknownKeyProblem(unknown, base, severityOf));
  input = removeUnknownKeys(input, unknownKeys);
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const result = schema.safeParse(input);
    if (result.success) return { value: result.data, problems };
    // Strict objects the walk could not see into (inside unions it matched differently).
    const unrecognized = result.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    const other = result.error.issues.filter((issue) => issue.code !== 'unrecognized_keys');
    for (const issue of unrecognized) {
      for (const key of issue.keys) {
        problems.push(unknownKeyProblem({ parent: issue.path, key, known: [] }, base, severityOf));
      }
    }
    if (other.length > 0) {
      for (const issue of other) {
        problems.push({
          path: formatKeyPath(issue.path, base),
          message: describe(issue, valueAt(input, issue.path)),
          severity: 'error',
        });
      }
      return { value: undefined, problems };
    }
    input = removeUnknownKeys(
      input,
      unrecognized.flatMap((issue) => issue.keys.map((key) => ({ parent: issue.path, key, known: [] }))),
    );
  }
  problems.push({
    path: base === '' ? '(root)' : base,
    message: 'could not settle unknown keys',
    severity: 'error',
  });
  return { value: undefined, problems };
}

export interface ValidatedConfig<T> {
  readonly value: T;
  /** Unknown keys reported as warnings: ignored, never fatal. */
  readonly warnings: readonly ConfigProblem[];
}

/**
 * {@link checkConfig}, throwing a `ConfigError` (`CONFIG_INVALID`) when any problem is an
 * error; the error's `problems` hold the warnings too.
 */
export function validateConfig<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  options: CheckConfigOptions = {},
): ValidatedConfig<z.output<Schema>> {
  const { value, problems } = checkConfig(schema, raw, options);
  throwIfErrors(problems);
  return { value: value as z.output<Schema>, warnings: problems };
}

/** The problem for one unknown key: `unknown key, ignored (did you mean agents.defaults?)`. */
export function unknownKeyProblem(
  unknown: UnknownKey,
  base: string,
  severityOf: UnknownKeySeverity,
): ConfigProblem {
  const path = formatKeyPath([...unknown.parent, unknown.key], base);
  const closest = closestKey(unknown.key, unknown.known);
  const suggestion = closest === undefined ? undefined : formatKeyPath([...unknown.parent, closest], base);
  const severity = severityOf(path);
  const message = `${severity === 'error' ? 'unknown key' : 'unknown key, ignored'}${suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`}`;
  return { path, message, severity, suggestion };
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

function removeUnknownKeys(input: unknown, unknownKeys: readonly UnknownKey[]): unknown {
  for (const unknown of unknownKeys) {
    const target = valueAt(input, unknown.parent);
    if (typeof target === 'object' && target !== null)
      delete (target as Record<string, unknown>)[unknown.key];
  }
  return input;
}
