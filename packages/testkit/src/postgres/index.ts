// A throwaway PostgreSQL cluster for tests and benches: `initdb` and `pg_ctl` from Debian's
// `postgresql` package on a free 127.0.0.1 port in a temporary directory, no system service.
// When the test runs as root, the cluster runs as the `postgres` user (PostgreSQL refuses
// to run as root) through `runuser`.
import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A running cluster. `url` connects as the superuser `postgres` (trust auth on 127.0.0.1). */
export interface PostgresCluster {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly dataDirectory: string;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown) and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** Where `initdb`, `pg_ctl` and `psql` live; default the newest `/usr/lib/postgresql/<n>/bin`. */
  readonly binDirectory?: string;
  /** Extra `postgresql.conf` lines (`max_connections = 200`). */
  readonly settings?: readonly string[];
}

/** The newest `/usr/lib/postgresql/<version>/bin` holding `initdb`, or a clear error naming the package. */
export function findPostgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((entry) => existsSync(join(root, entry, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) {
    throw new Error(
      'PostgreSQL server binaries (initdb, pg_ctl) were not found under /usr/lib/postgresql/<version>/bin. ' +
        'Install the Debian package `postgresql` (apt-get install -y postgresql, or scripts/install-test-packages.sh); ' +
        'the tests start their own throwaway cluster and need no running service.',
    );
  }
  return join(root, newest, 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  // Debian's package creates the `postgres` system user in /etc/passwd.
  let fields: string[] = [];
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('postgres:'));
    fields = line?.split(':') ?? [];
  } catch {
    fields = [];
  }
  const uid = Number(fields[2]);
  const gid = Number(fields[3]);
  if (fields.length < 4 || !Number.isInteger(uid) || !Number.isInteger(gid)) {
    throw new Error(
      'Running as root, but there is no `postgres` user to run the test cluster as (PostgreSQL refuses root). ' +
        'Install the Debian package `postgresql`, which creates it.',
    );
  }
  return { uid, gid };
}

/** Runs a PostgreSQL binary, as `postgres` when we are root. */
async function runAs(
  user: { uid: number; gid: number } | undefined,
  binary: string,
  args: readonly string[],
): Promise<string> {
  const [command, commandArgs] =
    user === undefined ? [binary, [...args]] : ['runuser', ['-u', 'postgres', '--', binary, ...args]];
  try {
    const { stdout } = await run(command, commandArgs, { encoding: 'utf8', timeout: 120_000 });
    return stdout;
  } catch (error) {
    const failure = error as Error & { stderr?: string; stdout?: string };
    throw new Error(
      `${binary} ${args.join(' ')} failed: ${failure.message}\n${failure.stderr ?? ''}${failure.stdout ?? ''}`,
    );
  }
}

/**
 * Starts a fresh cluster: `initdb` (trust auth, UTF-8) into a temporary directory and
 * `pg_ctl start` listening on 127.0.0.1 only (no Unix socket outside the directory).
 * Resolves once the server accepts connections.
 */
export async function startPostgresCluster(options: StartPostgresOptions = {}): Promise<PostgresCluster> {
  const binDirectory = options.binDirectory ?? findPostgresBinaries();
  const user = postgresUser();
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-postgres-'));
  const dataDirectory = join(directory, 'data');
  if (user !== undefined) {
    chownSync(directory, user.uid, user.gid);
  }
  chmodSync(directory, 0o700);
  const port = await freePort();
  let started = false;
  const stop = async (): Promise<void> => {
    if (started) {
      started = false;
      try {
        await runAs(user, join(binDirectory, 'pg_ctl'), ['stop', '-D', dataDirectory, '-m', 'fast', '-w']);
      } catch {
        // Already gone (a test may have killed it); the directory is removed below either way.
      }
    }
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await runAs(user, join(binDirectory, 'initdb'), [
      '-D',
      dataDirectory,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--no-sync',
    ]);
    const settings = [
      "listen_addresses = '127.0.0.1'",
      `port = ${port}`,
      `unix_socket_directories = '${directory}'`,
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'max_connections = 200',
      ...(options.settings ?? []),
    ];
    const configPath = join(dataDirectory, 'postgresql.auto.conf');
    writeFileSync(configPath, `${settings.join('\n')}\n`);
    if (user !== undefined) chownSync(configPath, user.uid, user.gid);
    await runAs(user, join(binDirectory, 'pg_ctl'), [
      'start',
      '-D',
      dataDirectory,
      '-l',
      join(directory, 'server.log'),
      '-w',
      '-t',
      '60',
    ]);
    started = true;
  } catch (error) {
    await stop();
    throw error;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    port,
    url,
    dataDirectory,
    async createDatabase(name: string): Promise<string> {
      if (!/^[a-z_][a-z0-9_]*$/.test(name))
        throw new Error(`Database name ${JSON.stringify(name)} must be [a-z_][a-z0-9_]*.`);
      await runAs(user, join(binDirectory, 'psql'), [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        'postgres',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        `CREATE DATABASE ${name}`,
        'postgres',
      ]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
  };
}
