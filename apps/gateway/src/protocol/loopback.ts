// Loopback addresses: the rate limiter exempts them, and a gateway without auth may bind only to them.

export function isLoopbackAddress(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** True when binding to this host keeps the gateway on this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}
