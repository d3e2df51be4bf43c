// Discord ids are snowflakes: a millisecond timestamp since the Discord epoch shifted left by
// 22 bits, plus an increment. discord.js reads timestamps out of them (and BigInt()s user ids
// for default avatars), so the fake must hand out real ones, not arbitrary strings.

/** 2015-01-01T00:00:00.000Z, the epoch of Discord snowflakes. */
export const discordEpoch = 1_420_070_400_000n;

/** Makes increasing, unique snowflakes from a clock. */
export function createSnowflakeGenerator(now: () => number): () => string {
  let lastTimestamp = 0n;
  let increment = 0n;
  return () => {
    let timestamp = BigInt(Math.max(0, Math.floor(now()))) - discordEpoch;
    if (timestamp < 0n) timestamp = 0n;
    if (timestamp <= lastTimestamp) {
      increment += 1n;
      if (increment > 0xfffn) {
        lastTimestamp += 1n;
        increment = 0n;
      }
      timestamp = lastTimestamp;
    } else {
      lastTimestamp = timestamp;
      increment = 0n;
    }
    return ((timestamp << 22n) | increment).toString();
  };
}

/** The millisecond timestamp a snowflake carries. */
export function snowflakeTimestamp(id: string): number {
  return Number((BigInt(id) >> 22n) + discordEpoch);
}
