// Waiting on state another process changes (a replica, a database): polls `condition` every
// 50 ms until it returns a value; fails naming `what` after `timeoutMs`. A condition that
// throws counts as "not yet" when `errorsMeanNotYet` (a replica restarting, a connection cut).
export async function pollUntil<T>(
  what: string,
  condition: () => Promise<T | undefined>,
  options: { readonly timeoutMs?: number; readonly errorsMeanNotYet?: boolean } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value =
      options.errorsMeanNotYet === true ? await condition().catch(() => undefined) : await condition();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
