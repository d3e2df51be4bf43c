// Reading what arrives at the fake Anthropic API and what a test passes it: the request
// body, the 400s the real API answers to a malformed request, and option checks that throw
// TESTKIT_INVALID_OPTIONS / TESTKIT_INVALID_TURN naming the option.
import { TestkitError } from '../shared/errors.ts';
import type { FakeFallback, TurnFunction, TurnSource } from './fake-anthropic-types.ts';
import type { FakeEndpoint, RecordedRequest } from './recorded-request.ts';
import { validateTurn } from './turns.ts';
import type { FakeTurn, MessagesRequestBody } from './types.ts';

export function parseBody(rawBody: string): MessagesRequestBody | undefined {
  if (rawBody === '') return undefined;
  try {
    const value: unknown = JSON.parse(rawBody);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as MessagesRequestBody)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What the real API would reject with 400, in its own wording; undefined when fine. */
export function validateRequestBody(request: RecordedRequest, endpoint: FakeEndpoint): string | undefined {
  if (request.anthropicVersion === undefined) return 'anthropic-version: header is required';
  const body = request.body;
  if (body === undefined)
    return 'There was an issue with the format of your request: the body is not a JSON object';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Field required';
  if (endpoint === 'messages') {
    if (body.max_tokens === undefined) return 'max_tokens: Field required';
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
      return 'max_tokens: Input should be a positive integer';
    }
  }
  return undefined;
}

export function checkTurnSource(
  source: unknown,
  path: string,
  code: 'TESTKIT_INVALID_TURN' | 'TESTKIT_INVALID_OPTIONS',
): TurnSource {
  if (typeof source === 'function') return source as TurnFunction;
  return validateTurn(source, path, code);
}

export function checkFallback(fallback: unknown, path: string): FakeFallback {
  if (fallback === 'echo' || fallback === 'fail') return fallback;
  if (typeof fallback === 'string') {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      `${path} must be "echo", "fail", a turn or a turn function (got ${JSON.stringify(fallback)})`,
      {
        details: { path },
      },
    );
  }
  return checkTurnSource(fallback, path, 'TESTKIT_INVALID_OPTIONS');
}

export function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      `options.${name} must be an integer >= 1 (got ${value})`,
      {
        details: { path: `options.${name}` },
      },
    );
  }
  return value;
}

export function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      `options.${name} must be an integer >= 0 (got ${value})`,
      {
        details: { path: `options.${name}` },
      },
    );
  }
  return value;
}

export function isPromiseLike(value: unknown): value is PromiseLike<FakeTurn> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
