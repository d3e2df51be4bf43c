// How the fake reads Bot API parameters (they arrive as JSON values, or as strings from a
// query, a form or a multipart body) and how it answers an error.

/** An API error answer (`{ ok: false, error_code, description }`). */
export class ApiFailure extends Error {
  readonly status: number;
  readonly parameters: Record<string, unknown> | undefined;
  constructor(status: number, description: string, parameters?: Record<string, unknown>) {
    super(description);
    this.status = status;
    this.parameters = parameters;
  }
}

/** 400 `Bad Request: <description>`. */
export function bad(description: string): ApiFailure {
  return new ApiFailure(400, `Bad Request: ${description}`);
}

/** An object parameter, or a string holding one as JSON. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** An array parameter, or a string holding one as JSON. */
export function asArray(value: unknown): unknown[] | undefined {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      return Array.isArray(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return Array.isArray(value) ? value : undefined;
}

/** An integer parameter, or a string of digits. */
export function asInteger(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

/** `true` or `'true'`. */
export function asBoolean(value: unknown): boolean {
  return value === true || value === 'true';
}
