// The rate limit both WhatsApp fakes inject into sends: the next `count` sends are refused
// (Baileys: 429 rate-overlimit; Cloud API: 429 with Graph error 130429) with a retry-after.

export class SendRateLimit {
  #rule: { count: number; retryAfterSeconds: number } | undefined;
  #refused = 0;

  /** The next `count` sends are refused with this retry-after. */
  limitNext(count: number, retryAfterSeconds: number): void {
    this.#rule = { count, retryAfterSeconds };
  }

  /** How many sends were refused so far. */
  get refused(): number {
    return this.#refused;
  }

  /** Counts one send: its retry-after in seconds when it is refused, undefined when it may go. */
  take(): number | undefined {
    const rule = this.#rule;
    if (rule === undefined || rule.count <= 0) return undefined;
    rule.count -= 1;
    this.#refused += 1;
    return rule.retryAfterSeconds;
  }
}
