import { isLoopbackAddress } from './loopback.ts';

/**
 * Failed-authentication limiter: after `maxFailures` failures from one address within
 * `windowMs`, that address is locked out for `lockoutMs`. Loopback is exempt by default.
 * The key is a socket address or, for browser pages, `origin <origin>` (never exempt).
 */
export interface AuthRateLimiterOptions {
  readonly maxFailures?: number;
  readonly windowMs?: number;
  readonly lockoutMs?: number;
  readonly exemptLoopback?: boolean;
  readonly now?: () => number;
}

export interface AuthRateLimiter {
  /** Milliseconds until the address may try again, or 0 if it may try now. */
  retryAfterMs(address: string): number;
  recordFailure(address: string): void;
  recordSuccess(address: string): void;
}

/** Folds IPv4-mapped IPv6 addresses onto IPv4 so one client has one budget. */
function canonicalAddress(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export function createAuthRateLimiter(options: AuthRateLimiterOptions = {}): AuthRateLimiter {
  const maxFailures = options.maxFailures ?? 10;
  const windowMs = options.windowMs ?? 60_000;
  const lockoutMs = options.lockoutMs ?? 5 * 60_000;
  const exemptLoopback = options.exemptLoopback ?? true;
  const now = options.now ?? Date.now;
  const failures = new Map<string, number[]>();
  const lockedUntil = new Map<string, number>();

  const exempt = (address: string): boolean => exemptLoopback && isLoopbackAddress(address);

  return {
    retryAfterMs(address) {
      if (exempt(address)) return 0;
      const until = lockedUntil.get(canonicalAddress(address));
      if (until === undefined) return 0;
      const remaining = until - now();
      if (remaining <= 0) {
        lockedUntil.delete(canonicalAddress(address));
        return 0;
      }
      return remaining;
    },
    recordFailure(address) {
      if (exempt(address)) return;
      const key = canonicalAddress(address);
      const current = now();
      const recent = (failures.get(key) ?? []).filter((time) => current - time < windowMs);
      recent.push(current);
      if (recent.length >= maxFailures) {
        lockedUntil.set(key, current + lockoutMs);
        failures.delete(key);
      } else {
        failures.set(key, recent);
      }
    },
    recordSuccess(address) {
      failures.delete(canonicalAddress(address));
    },
  };
}
