// The crash test, longer: kills a writer with SIGKILL many times and checks after each kill
// that every write it reported as committed survived, in order, with the integrity check
// passing. Run from packages/sessions:
//   pnpm crash-soak            (200 kills)
//   node --conditions=@switchboard/source test/crash-soak.ts <kills> [seed]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crashRound, seededRandom } from './fixtures/crash-harness.ts';

const kills = Number(process.argv[2] ?? 200);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
const random = seededRandom(seed);
const directory = mkdtempSync(join(tmpdir(), 'switchboard-crash-soak-'));
const totals = { appends: 0, journal: 0, deliveries: 0 };
const started = Date.now();
try {
  for (let round = 0; round < kills; round += 1) {
    // Mostly early kills, sometimes late ones when the database has grown.
    const killAfterMs = Math.floor(5 + random() * (random() < 0.2 ? 1000 : 200));
    const result = await crashRound(directory, `r${round}`, killAfterMs);
    totals.appends += result.reportedAppends;
    totals.journal += result.reportedJournal;
    totals.deliveries += result.reportedDeliveries;
    if ((round + 1) % 10 === 0) {
      console.log(
        `${round + 1}/${kills} kills, ${result.storedEntries} entries stored, all reported writes present`,
      );
    }
  }
  console.log(
    `OK: ${kills} SIGKILLs (seed ${seed}) in ${Math.round((Date.now() - started) / 1000)} s; verified ${totals.appends} appends, ${totals.journal} journal transitions, ${totals.deliveries} delivery receipts; integrity check passed after every kill.`,
  );
} catch (error) {
  console.error(`FAILED (seed ${seed}): ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  rmSync(directory, { recursive: true, force: true });
}
