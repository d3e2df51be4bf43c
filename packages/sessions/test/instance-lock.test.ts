import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteSessionStore, SessionsError } from '../src/index.ts';
import { startFixture, waitForExit, waitForLine } from './fixtures/child.ts';
import { openStore, temporaryDirectory } from './helpers.ts';

const children: Array<ReturnType<typeof startFixture>> = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    await waitForExit(child);
  }
});

async function lockedError(stateDirectory: string): Promise<SessionsError> {
  const error = await createSqliteSessionStore({ stateDirectory }).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SessionsError);
  expect((error as SessionsError).code).toBe('SESSIONS_LOCKED');
  return error as SessionsError;
}

function setLockRow(stateDirectory: string, values: Record<string, string | number | null>): void {
  const raw = new DatabaseSync(join(stateDirectory, 'switchboard.db'));
  try {
    const columns = Object.keys(values);
    raw
      .prepare(
        `INSERT OR REPLACE INTO instance_lock (id, ${columns.join(', ')}) VALUES (1, ${columns.map(() => '?').join(', ')})`,
      )
      .run(...Object.values(values));
  } finally {
    raw.close();
  }
}

/** Linux: field 22 of /proc/<pid>/stat, the process start time. */
function processStart(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

describe('single-instance lock', () => {
  it('refuses a second open in the same process, naming the directory and the pid', async () => {
    const directory = temporaryDirectory();
    await openStore({ stateDirectory: directory });
    const error = await lockedError(directory);
    expect(error.message).toContain(directory);
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.details).toMatchObject({
      stateDirectory: directory,
      pid: process.pid,
      hostname: hostname(),
    });
  });

  it('refuses while another gateway process holds it, and reclaims it once that process is SIGKILLed', async () => {
    const directory = temporaryDirectory();
    const child = startFixture('hold-store.ts', [directory]);
    children.push(child);
    await waitForLine(child, 'ready');
    const error = await lockedError(directory);
    expect(error.message).toContain(`The state directory ${directory} is in use`);
    expect(error.message).toContain(`pid ${child.pid} on host ${hostname()}`);
    expect(error.message).toContain('SWITCHBOARD_STATE_DIR');

    child.kill('SIGKILL');
    await waitForExit(child);
    const store = await openStore({ stateDirectory: directory });
    expect(store.reclaimedLock).toMatchObject({ pid: child.pid, hostname: hostname() });
    expect(store.reclaimedLock?.reason).toContain(`process ${child.pid} no longer exists`);
  });

  it('reclaims the lock at once from a SIGKILLed holder that is still a zombie (not reaped yet)', async () => {
    const directory = temporaryDirectory();
    // The holder's parent is `sleep`, which never reaps it: once killed it stays a zombie.
    const fixture = join(import.meta.dirname, 'fixtures', 'hold-store.ts');
    const parent = spawn(
      'sh',
      [
        '-c',
        `"${process.execPath}" --conditions=@switchboard/source "${fixture}" "${directory}" & echo "pid $!"; exec sleep 60`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(parent);
    const holder = Number((await waitForLine(parent, 'pid ')).slice(4));
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const error = await createSqliteSessionStore({ stateDirectory: directory }).then(
        async (store) => {
          await store.close();
          return undefined;
        },
        (caught: unknown) => caught,
      );
      if (error !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await lockedError(directory);
    process.kill(holder, 'SIGKILL');
    while (!readFileSync(`/proc/${holder}/stat`, 'utf8').includes(') Z ')) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const store = await openStore({ stateDirectory: directory });
    expect(store.reclaimedLock?.reason).toContain(`process ${holder} no longer exists`);
  });

  it('a clean shutdown leaves nothing to reclaim', async () => {
    const directory = temporaryDirectory();
    const child = startFixture('hold-store.ts', [directory]);
    children.push(child);
    await waitForLine(child, 'ready');
    child.kill('SIGTERM');
    await waitForExit(child);
    expect(child.exitCode).toBe(0);
    const store = await openStore({ stateDirectory: directory });
    expect(store.reclaimedLock).toBeUndefined();
  });

  it('treats a holder on another host as gone only when its heartbeat is stale', async () => {
    const directory = temporaryDirectory();
    await (await openStore({ stateDirectory: directory })).close();
    const row = { owner_id: 'remote', pid: 4242, hostname: 'other-host', started_at: 0 };
    setLockRow(directory, { ...row, heartbeat_at: Date.now() - 5_000 });
    const error = await lockedError(directory);
    expect(error.message).toContain('pid 4242 on host other-host');
    setLockRow(directory, { ...row, heartbeat_at: Date.now() - 120_000 });
    const store = await openStore({
      stateDirectory: directory,
      lock: { heartbeatMs: 0, staleAfterMs: 60_000 },
    });
    expect(store.reclaimedLock).toMatchObject({ hostname: 'other-host', pid: 4242 });
    expect(store.reclaimedLock?.reason).toContain('other-host has not renewed the lock');
  });

  // Process start times and boot ids come from /proc, which only Linux has.
  it.skipIf(process.platform !== 'linux')(
    'tells a reused pid and a reboot apart from a live holder',
    async () => {
      const directory = temporaryDirectory();
      await (await openStore({ stateDirectory: directory })).close();
      const parent = process.ppid;
      const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      const live = {
        owner_id: 'x',
        pid: parent,
        hostname: hostname(),
        started_at: 0,
        heartbeat_at: 0,
        boot_id: bootId,
      };
      // A live process whose start time matches is the holder, however old its heartbeat.
      setLockRow(directory, { ...live, process_start: processStart(parent) });
      expect((await lockedError(directory)).message).toContain(`pid ${parent}`);
      // The same pid with another start time is a different process: the holder is gone.
      setLockRow(directory, { ...live, process_start: '1' });
      const reused = await openStore({ stateDirectory: directory });
      expect(reused.reclaimedLock?.reason).toContain(`pid ${parent} now belongs to another process`);
      await reused.close();
      setLockRow(directory, { ...live, process_start: processStart(parent), boot_id: 'another-boot' });
      const rebooted = await openStore({ stateDirectory: directory });
      expect(rebooted.reclaimedLock?.reason).toContain('restarted');
    },
  );

  it('notices when the lock was taken away, and refuses further work', async () => {
    const directory = temporaryDirectory();
    const store = await openStore({ stateDirectory: directory });
    await store.ensureSession('agent:main:main', { agentId: 'main' });
    expect(await store.heartbeat()).toBe(true);
    setLockRow(directory, {
      owner_id: 'usurper',
      pid: 1,
      hostname: 'elsewhere',
      started_at: 0,
      heartbeat_at: Date.now(),
    });
    expect(await store.heartbeat()).toBe(false);
    const error = await store.getSession('agent:main:main').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionsError);
    expect((error as SessionsError).code).toBe('SESSIONS_LOCK_LOST');
    expect((error as SessionsError).message).toContain(directory);
  });
});
