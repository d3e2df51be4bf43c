// How the fake Cloud API answers: Graph's JSON, Graph's error envelope, and the raw body of
// a request.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers with a Graph error (`error.code`, `type: OAuthException`, a fresh `fbtrace_id`). */
export function graphError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  extra: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...extra }).end(
    JSON.stringify({
      error: {
        message,
        type: 'OAuthException',
        code,
        error_data: { messaging_product: 'whatsapp', details: message },
        fbtrace_id: randomBytes(8).toString('base64url'),
      },
    }),
  );
}

/** Answers 200 with a JSON body. */
export function json(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Reads a whole request body. */
export function readRawBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
