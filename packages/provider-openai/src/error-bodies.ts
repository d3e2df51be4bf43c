// Some servers (vLLM before its OpenAI-shaped errors) answer failures with a top-level
// `{ "object": "error", "message": … }` body. The SDK reads only `error`, so their words
// would be lost ("400 status code (no body)") and a bad request would look like an overflow.
// This fetch wraps such a body in `error`; any other response passes through untouched.

/** Wraps `fetch` so error bodies without an `error` object are given one. */
export function withNormalizedErrorBodies(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
    const text = await response.text();
    let body = text;
    try {
      const parsed: unknown = JSON.parse(text);
      if (
        parsed !== null &&
        typeof parsed === 'object' &&
        !('error' in parsed) &&
        typeof (parsed as { message?: unknown }).message === 'string'
      ) {
        body = JSON.stringify({ error: parsed });
      }
    } catch {
      // Not JSON after all: the SDK reports the text as it is.
    }
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
