// An MCP tool's input JSON Schema: what the model sees and how arguments are checked.
import { z } from 'zod';

type JsonObject = Readonly<Record<string, unknown>>;

/** The outcome of preparing a tool's input schema. */
export type PreparedSchema =
  | { readonly ok: true; readonly jsonSchema: JsonObject }
  | { readonly ok: false; readonly reason: string };

/**
 * The schema the model sees: the server's `inputSchema` without `$schema` (providers reject
 * meta keys they do not know), `type: "object"` filled in when only `properties` are given.
 * A schema that is not an object schema cannot be a tool's parameters: refused with the reason.
 */
export function prepareInputSchema(inputSchema: unknown): PreparedSchema {
  if (inputSchema === undefined) return { ok: true, jsonSchema: { type: 'object', properties: {} } };
  if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) {
    return { ok: false, reason: `its inputSchema is not a JSON object (${JSON.stringify(inputSchema)})` };
  }
  const { $schema: _meta, ...schema } = inputSchema as Record<string, unknown>;
  if (schema.type === undefined) schema.type = 'object';
  if (schema.type !== 'object') {
    return {
      ok: false,
      reason: `its inputSchema has type ${JSON.stringify(schema.type)}; tool parameters must be an object`,
    };
  }
  return { ok: true, jsonSchema: schema };
}

/** Checks a value against a JSON Schema: undefined when valid, else the error text. */
export type JsonSchemaCheck = (value: unknown) => string | undefined;

/**
 * The zod schema core-loop validates the model's arguments with: an object, checked by the
 * JSON Schema `check` (compiled from the server's schema). Its failure lists what the check
 * said, so the model can correct its call.
 */
export function argumentsSchema(check: JsonSchemaCheck | undefined): z.ZodType<Record<string, unknown>> {
  const object = z.record(z.string(), z.unknown());
  if (check === undefined) return object;
  return object.superRefine((value, context) => {
    const problem = check(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  });
}
