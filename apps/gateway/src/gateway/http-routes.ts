// The gateway port's HTTP side: routes plugins and channel accounts register (webhooks),
// checked against the gateway token when they ask for it, then the WebChat page.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PluginRegistry } from '@switchboard/hooks';
import { tokensMatch } from '../protocol/handshake.ts';
import type { ChannelManager } from '../runtime/channels.ts';
import { createWebChat } from '../webchat/index.ts';

export interface GatewayHttpOptions {
  readonly registry: PluginRegistry;
  readonly channels: ChannelManager;
  /** The gateway token; undefined when auth mode is none. */
  readonly token: string | undefined;
}

export function createGatewayHttpHandler(
  options: GatewayHttpOptions,
): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  const { registry, channels, token } = options;
  const webChat = createWebChat();
  return async (request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    for (const registration of [...registry.httpRoutes(), ...channels.routes()]) {
      const route = registration.route;
      const matches =
        route.match === 'prefix'
          ? path === route.path || path.startsWith(`${route.path}/`)
          : path === route.path;
      if (!matches) continue;
      if (route.methods !== undefined && !route.methods.includes(request.method ?? 'GET')) continue;
      if (route.auth === 'gateway' && token !== undefined) {
        const header = request.headers.authorization ?? '';
        const presented = header.startsWith('Bearer ') ? header.slice(7) : '';
        if (!tokensMatch(presented, token)) {
          response
            .writeHead(401, { 'content-type': 'application/json' })
            .end(JSON.stringify({ ok: false, error: 'unauthorized' }));
          return true;
        }
      }
      await route.handler(request, response);
      return true;
    }
    return webChat(request, response);
  };
}
