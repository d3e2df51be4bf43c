import { describe, expect, it } from 'vitest';
import { crashRound, seededRandom } from './fixtures/crash-harness.ts';
import { temporaryDirectory } from './helpers.ts';

// SWITCHBOARD_CRASH_SEED replays a run; SWITCHBOARD_CRASH_KILLS changes the number of kills.
const seed = Number(process.env.SWITCHBOARD_CRASH_SEED ?? Date.now() % 1_000_000);
const kills = Number(process.env.SWITCHBOARD_CRASH_KILLS ?? 20);

describe('crash safety', () => {
  it(`every write reported as committed survives SIGKILL (${kills} kills, seed ${seed})`, async () => {
    const random = seededRandom(seed);
    const directory = temporaryDirectory();
    let appends = 0;
    let journal = 0;
    let deliveries = 0;
    for (let round = 0; round < kills; round += 1) {
      const killAfterMs = Math.floor(10 + random() * 190);
      const result = await crashRound(directory, `r${round}`, killAfterMs).catch((error: unknown) => {
        throw new Error(
          `round ${round} (seed ${seed}, killed after ${killAfterMs} ms): ${(error as Error).message}`,
        );
      });
      appends += result.reportedAppends;
      journal += result.reportedJournal;
      deliveries += result.reportedDeliveries;
    }
    // The writers really wrote between kills, so the checks above covered real data.
    expect(appends).toBeGreaterThan(kills * 2);
    expect(journal).toBeGreaterThan(kills * 2);
    expect(deliveries).toBeGreaterThan(kills);
  }, 120_000);
});
