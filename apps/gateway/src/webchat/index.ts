import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Serves the WebChat page (`/` and its assets) from the gateway's own port. Returns false for
 * paths it does not own. (Being built: issue 9.)
 */
export function createWebChat(): (request: IncomingMessage, response: ServerResponse) => boolean {
  return () => false;
}
