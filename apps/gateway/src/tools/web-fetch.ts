import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ToolError } from './errors.ts';

// The CommonJS exports, not the ES module facades: node:http's facade reads its lazy
// `WebSocket` getter, which loads undici at start (see protocol/server.ts).
const { request: httpRequest } = process.getBuiltinModule('node:http');
const { request: httpsRequest } = process.getBuiltinModule('node:https');

export interface WebFetchOptions {
  /** Hosts (names or literal addresses) allowed even though they are private or loopback. */
  readonly allowHosts?: readonly string[];
  /** Allow every private, loopback and link-local address (not recommended). */
  readonly allowPrivateNetworks?: boolean;
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
  readonly maxRedirects?: number;
}

export interface WebFetchResult {
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  readonly truncated: boolean;
}

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True for loopback, private, link-local, multicast and other non-public addresses. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^64:ff9b::(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1] !== undefined) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(lower, 'ipv6');
}

function refuse(message: string): never {
  throw new ToolError('TOOL_WEB_FETCH_REFUSED', message);
}

/** Reduces an HTML document to readable text; other content is returned as is. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|noscript)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<\/(p|div|h[1-6]|section|article|table)>/gi, '\n\n')
    .replace(/<br\s*\/?>|<\/(li|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Fetches a public web page for the agent. The host is resolved first and every address
 * checked; the connection is pinned to the checked address (no DNS rebinding), redirects
 * are followed by hand and checked again, and the body is capped.
 */
export async function webFetch(rawUrl: string, options: WebFetchOptions = {}): Promise<WebFetchResult> {
  const maxRedirects = options.maxRedirects ?? 5;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    refuse(`not a valid URL: ${rawUrl}`);
  }
  for (let redirect = 0; ; redirect += 1) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      refuse(`only http and https URLs can be fetched, not ${url.protocol}`);
    if (url.username !== '' || url.password !== '') refuse('URLs with credentials are not fetched');
    const address = await checkedAddress(url, options);
    const response = await fetchOnce(url, address, options);
    if (response.status >= 300 && response.status < 400 && response.location !== undefined) {
      if (redirect >= maxRedirects) refuse(`too many redirects fetching ${rawUrl}`);
      url = new URL(response.location, url);
      continue;
    }
    const contentType = response.contentType;
    const text = /html/i.test(contentType) ? htmlToText(response.body) : response.body;
    return { url: url.toString(), status: response.status, contentType, text, truncated: response.truncated };
  }
}

async function checkedAddress(
  url: URL,
  options: WebFetchOptions,
): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowed = options.allowPrivateNetworks === true || (options.allowHosts ?? []).includes(host);
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await lookup(host, { all: true }).catch(() => refuse(`cannot resolve ${host}`));
  if (addresses.length === 0) refuse(`cannot resolve ${host}`);
  if (!allowed) {
    for (const entry of addresses) {
      if (isNonPublicAddress(entry.address)) {
        refuse(
          `refusing to fetch ${url.host}: it resolves to ${entry.address}, a private, loopback or link-local address`,
        );
      }
    }
  }
  return addresses[0]!;
}

function fetchOnce(
  url: URL,
  target: { address: string; family: number },
  options: WebFetchOptions,
): Promise<{ status: number; contentType: string; location?: string; body: string; truncated: boolean }> {
  const maxBytes = options.maxBytes ?? 512 * 1024;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'GET',
        headers: {
          'user-agent': 'Switchboard web_fetch',
          accept: 'text/html,text/plain,application/json;q=0.9,*/*;q=0.5',
        },
        timeout: options.timeoutMs ?? 15_000,
        lookup: (_hostname, _options, callback) => callback(null, target.address, target.family),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        response.on('data', (chunk: Buffer) => {
          if (size >= maxBytes) {
            truncated = true;
            response.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        const finish = () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            location: response.headers.location,
            body: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'),
            truncated: truncated || size > maxBytes,
          });
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`timed out fetching ${url.host}`)));
    request.on('error', reject);
    request.end();
  });
}
