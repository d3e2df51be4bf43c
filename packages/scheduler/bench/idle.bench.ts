// The scheduler's idle cost with 1,000 jobs defined (issue 25): CPU time and timer wakeups per
// minute while no job is due, against the same process with the store open and no scheduler.
// One timer is armed for the earliest due job, so an idle scheduler should wake 0 times a
// minute and cost nothing measurable. Also prints how long `start()` takes to load the jobs,
// and what one due run costs the engine (claim, history, next time) with a no-op executor.
//
//   pnpm --filter @switchboard/scheduler bench             (60 s windows: about 3.5 minutes)
//   pnpm --filter @switchboard/scheduler bench -- 10       (a 10 s window)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteSessionStore } from '@switchboard/sessions';
import { createScheduler } from '../src/scheduler.ts';
import { createStateSchedulerStore } from '../src/state-store.ts';
import { systemSchedulerTimers } from '../src/timers.ts';

const jobCount = 1000;
const windowSeconds = Number(process.argv.at(-1)) > 0 ? Number(process.argv.at(-1)) : 60;
const perMinute = (value: number) => (value * 60) / windowSeconds;

/** CPU milliseconds (user + system) this process spends during `seconds` of doing nothing else. */
async function cpuOver(seconds: number): Promise<number> {
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const directory = await mkdtemp(join(tmpdir(), 'scheduler-bench-'));
const sessions = await createSqliteSessionStore({ stateDirectory: directory, durability: 'normal' });
try {
  const store = createStateSchedulerStore(sessions);
  let executed = 0;
  const scheduler = createScheduler({
    store,
    timers: systemSchedulerTimers,
    execute: async () => {
      executed += 1;
      return { status: 'ok', deliveryStatus: 'nothing_to_deliver' };
    },
  });
  await scheduler.start();
  // A realistic mix, none due in the window: hourly to monthly intervals, daily cron jobs in
  // several time zones, one-shot reminders weeks ahead.
  const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];
  for (let index = 0; index < jobCount; index += 1) {
    const kind = index % 3;
    const schedule =
      kind === 0
        ? { kind: 'every', everyMs: (1 + (index % 24)) * 3_600_000, anchorMs: Date.now() + 3_600_000 }
        : kind === 1
          ? {
              kind: 'cron',
              expr: `${index % 60} ${(new Date().getUTCHours() + 2 + (index % 20)) % 24} * * *`,
              tz: zones[index % 4],
            }
          : { kind: 'at', at: new Date(Date.now() + (7 + (index % 30)) * 86_400_000).toISOString() };
    await scheduler.add({
      name: `job ${index}`,
      schedule,
      payload: { kind: 'agentTurn', message: `task ${index}` },
    });
  }
  await scheduler.stop();

  console.log(`scheduler idle cost: ${jobCount} jobs, ${windowSeconds} s windows, Node ${process.version}`);
  const baseline = await cpuOver(windowSeconds);
  console.log(`  store open, no scheduler:     ${perMinute(baseline).toFixed(1)} ms CPU per minute`);

  const loading = performance.now();
  const idle = createScheduler({
    store,
    timers: systemSchedulerTimers,
    execute: async () => ({ status: 'ok' }),
  });
  await idle.start();
  const startMs = performance.now() - loading;
  // Let the garbage of loading be collected before the window opens.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const wakeupsBefore = idle.status().wakeups;
  const firstWindow = await cpuOver(windowSeconds);
  // A second window: the steady state, after whatever the first still collected.
  const withJobs = await cpuOver(windowSeconds);
  const wakeups = (idle.status().wakeups - wakeupsBefore) / 2;
  console.log(`  start() loading the jobs:     ${startMs.toFixed(1)} ms`);
  console.log(
    `  scheduler with ${jobCount} jobs:    ${perMinute(firstWindow).toFixed(1)} ms CPU per minute (first window)`,
  );
  console.log(
    `  scheduler with ${jobCount} jobs:    ${perMinute(withJobs).toFixed(1)} ms CPU per minute (steady state)`,
  );
  console.log(
    `  difference (scheduler idle):  ${perMinute(withJobs - baseline).toFixed(1)} ms CPU per minute`,
  );
  console.log(`  timer wakeups:                ${perMinute(wakeups).toFixed(1)} per minute`);
  console.log(
    `  timers armed:                 1 (next wake ${new Date(idle.status().nextWakeAtMs ?? 0).toISOString()})`,
  );
  await idle.stop();

  // The engine's own cost of one due run (no-op executor): claim, history entry, next time.
  const due = createScheduler({
    store,
    timers: systemSchedulerTimers,
    execute: async () => {
      executed += 1;
      return { status: 'ok' };
    },
  });
  await due.start();
  const job = await due.add({
    name: 'bench run',
    schedule: { kind: 'every', everyMs: 3_600_000 },
    payload: { kind: 'agentTurn', message: 'x' },
  });
  const samples: number[] = [];
  for (let index = 0; index < 21; index += 1) {
    const started = performance.now();
    await due.run(job.id);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  console.log(
    `  one run's engine overhead:    ${samples[10]!.toFixed(2)} ms median (${executed} no-op runs)`,
  );
  await due.stop();
} finally {
  await sessions.close();
  await rm(directory, { recursive: true, force: true });
}
