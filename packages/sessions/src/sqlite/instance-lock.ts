/**
 * The single-instance lock: one row in the database naming the process that owns the state
 * directory. Taking it happens inside the same write transaction as the check, so two
 * gateways starting at once cannot both win (SQLite serializes writers).
 *
 * A holder counts as gone, and its lock is reclaimed, when
 * - it ran on this host and its pid no longer exists (it was SIGKILLed or crashed), or the
 *   pid now belongs to a different process (Linux: the process start time differs), or the
 *   machine has rebooted since (Linux boot id);
 * - it ran on another host (a shared state directory) and its heartbeat is older than
 *   `staleAfterMs`; the same rule applies on hosts where the process start time is unknown.
 * A live holder with a stale heartbeat on this host (suspended, hung) keeps the lock: two
 * gateways on one store would be worse than a refusal to start.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { DatabaseSync } from 'node:sqlite';
import { SessionsError } from '../errors.ts';

/** Who holds (or held) the lock. */
export interface LockHolder {
  readonly ownerId: string;
  readonly pid: number;
  readonly hostname: string;
  readonly startedAt: number;
  readonly heartbeatAt: number;
}

export interface AcquireLockOptions {
  readonly ownerId: string;
  readonly now: number;
  readonly staleAfterMs: number;
  readonly stateDirectory: string;
  readonly databasePath: string;
}

/** A previous holder whose lock was reclaimed because it did not shut down cleanly. */
export interface ReclaimedLock extends LockHolder {
  /** Why the holder counts as gone (`process 123 no longer exists`, …). */
  readonly reason: string;
}

/** What taking the lock found. */
export interface LockAcquisition {
  readonly reclaimedFrom: ReclaimedLock | undefined;
}

interface LockRow {
  owner_id: string;
  pid: number;
  hostname: string;
  boot_id: string | null;
  process_start: string | null;
  started_at: number;
  heartbeat_at: number;
}

function readTrimmed(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The machine's boot id (Linux), so a pid recorded before a reboot is known to be gone. */
function currentBootId(): string | undefined {
  return readTrimmed('/proc/sys/kernel/random/boot_id');
}

/** The start time of a process in clock ticks since boot (Linux), which tells reused pids apart. */
function processStartTime(pid: number): string | undefined {
  const stat = readTrimmed(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the name start at field 3 (state); starttime is field 22.
  return fields[22 - 3];
}

/** The one-letter state of a process (`R`, `S`, `Z` …) from /proc, when the host has /proc. */
function processState(pid: number): string | undefined {
  const stat = readTrimmed(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

/**
 * Whether a live process with this pid exists on this host. A zombie (state `Z`: dead, not yet
 * reaped by its parent — the usual state of a SIGKILLed gateway for a moment) is not alive,
 * although `kill(pid, 0)` still succeeds on it; so is `X` (dead).
 */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = processState(pid);
  return state !== 'Z' && state !== 'X';
}

/** Why `holder` is gone, or undefined when it must be treated as alive. */
function goneReason(row: LockRow, now: number, staleAfterMs: number): string | undefined {
  const heartbeatAge = now - row.heartbeat_at;
  if (row.hostname !== hostname()) {
    return heartbeatAge > staleAfterMs
      ? `its host ${row.hostname} has not renewed the lock for ${Math.round(heartbeatAge / 1000)} s`
      : undefined;
  }
  const bootId = currentBootId();
  if (row.boot_id !== null && bootId !== undefined && row.boot_id !== bootId) {
    return 'the machine has restarted since it took the lock';
  }
  if (!processExists(row.pid)) return `process ${row.pid} no longer exists`;
  const start = processStartTime(row.pid);
  if (row.process_start !== null && start !== undefined) {
    return start === row.process_start ? undefined : `pid ${row.pid} now belongs to another process`;
  }
  return heartbeatAge > staleAfterMs
    ? `process ${row.pid} has not renewed the lock for ${Math.round(heartbeatAge / 1000)} s`
    : undefined;
}

function toHolder(row: LockRow): LockHolder {
  return {
    ownerId: row.owner_id,
    pid: row.pid,
    hostname: row.hostname,
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
  };
}

/**
 * Takes the lock or throws SESSIONS_LOCKED naming the directory and the holder. Must run
 * inside a write transaction (`BEGIN IMMEDIATE`).
 */
export function acquireInstanceLock(database: DatabaseSync, options: AcquireLockOptions): LockAcquisition {
  const row = database
    .prepare(
      'SELECT owner_id, pid, hostname, boot_id, process_start, started_at, heartbeat_at FROM instance_lock WHERE id = 1',
    )
    .get() as LockRow | undefined;
  let reclaimedFrom: LockAcquisition['reclaimedFrom'];
  if (row !== undefined) {
    const reason = goneReason(row, options.now, options.staleAfterMs);
    if (reason === undefined) throw lockedError(row, options);
    reclaimedFrom = { ...toHolder(row), reason };
  }
  database
    .prepare(
      `INSERT INTO instance_lock (id, owner_id, pid, hostname, boot_id, process_start, started_at, heartbeat_at)
       VALUES (1, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET owner_id = excluded.owner_id, pid = excluded.pid, hostname = excluded.hostname,
         boot_id = excluded.boot_id, process_start = excluded.process_start, started_at = excluded.started_at,
         heartbeat_at = excluded.heartbeat_at`,
    )
    .run(
      options.ownerId,
      process.pid,
      hostname(),
      currentBootId() ?? null,
      processStartTime(process.pid) ?? null,
      options.now,
      options.now,
    );
  return { reclaimedFrom };
}

function lockedError(row: LockRow, options: AcquireLockOptions): SessionsError {
  const since = new Date(row.started_at).toISOString();
  const heartbeat = Math.max(0, Math.round((options.now - row.heartbeat_at) / 1000));
  const who =
    row.pid === process.pid && row.hostname === hostname()
      ? `this process (pid ${row.pid}) already has it open`
      : `another Switchboard gateway holds it: pid ${row.pid} on host ${row.hostname}, running since ${since}, last heartbeat ${heartbeat} s ago`;
  return new SessionsError(
    'SESSIONS_LOCKED',
    `The state directory ${options.stateDirectory} is in use: ${who}. ` +
      'Stop that gateway first, or give this one its own state directory (SWITCHBOARD_STATE_DIR). ' +
      `(Lock row in ${options.databasePath}.)`,
    {
      details: {
        stateDirectory: options.stateDirectory,
        databasePath: options.databasePath,
        pid: row.pid,
        hostname: row.hostname,
        startedAt: row.started_at,
        heartbeatAt: row.heartbeat_at,
      },
    },
  );
}

/** Renews the heartbeat; false when the lock is no longer ours. */
export function renewInstanceLock(database: DatabaseSync, ownerId: string, now: number): boolean {
  const result = database
    .prepare('UPDATE instance_lock SET heartbeat_at = ? WHERE id = 1 AND owner_id = ?')
    .run(now, ownerId);
  return Number(result.changes) === 1;
}

/** Gives the lock up (only if it is still ours). */
export function releaseInstanceLock(database: DatabaseSync, ownerId: string): void {
  database.prepare('DELETE FROM instance_lock WHERE id = 1 AND owner_id = ?').run(ownerId);
}
