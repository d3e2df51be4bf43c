// Runs the real gateway as a child process (`switchboard gateway run`) so tests can SIGKILL it
// and start it again on the same state directory, as a crash would.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { connectClient, type ProtocolClient } from './protocol-client.ts';

const mainPath = join(import.meta.dirname, '..', 'src', 'main.ts');

export interface ChildGateway {
  readonly url: string;
  readonly httpUrl: string;
  readonly output: string[];
  readonly token: string;
  /** A connected admin client (reconnected after restarts). */
  client(): Promise<ProtocolClient>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
  /** Sends a signal (SIGHUP: reload the config) without waiting for anything. */
  signal(signal: NodeJS.Signals): void;
  /**
   * SIGKILLs the gateway (if it still runs) and starts it again on the same state directory (a
   * crash). `environment` replaces the extra variables of the first start for this launch on.
   */
  restart(environment?: NodeJS.ProcessEnv): Promise<void>;
  /** Resolves with the exit signal (or code) once the process has ended, or 'running' after `timeoutMs`. */
  waitForExit(timeoutMs: number): Promise<NodeJS.Signals | number | 'running'>;
  /** Resolves once nothing is running, queued or journaled-but-unanswered (two idle readings in a row). */
  settle(timeoutMs?: number): Promise<void>;
  /** SIGTERM (a graceful shutdown); SIGKILL when it has not exited after `graceMs` (default 15 s). */
  stop(graceMs?: number): Promise<void>;
}

export async function startChildGateway(options: {
  stateDirectory: string;
  token: string;
  environment?: NodeJS.ProcessEnv;
  /** A built bundle to run (`dist/main.mjs`) instead of the TypeScript source. */
  entry?: string;
}): Promise<ChildGateway> {
  const output: string[] = [];
  let child: ChildProcess | undefined;
  let port = 0;
  let client: ProtocolClient | undefined;
  let environment = options.environment;

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const started = spawn(
        process.execPath,
        [
          ...(options.entry === undefined ? ['--conditions=@switchboard/source', mainPath] : [options.entry]),
          'gateway',
          'run',
          '--state-dir',
          options.stateDirectory,
        ],
        {
          env: { ...process.env, ...environment, SWITCHBOARD_STATE_DIR: options.stateDirectory },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child = started;
      // A gateway that does not start in time is killed: a child left running keeps the test
      // process alive through its stdout pipe.
      const timer = setTimeout(() => {
        started.kill('SIGKILL');
        reject(new Error(`gateway did not start within 60 s:\n${output.join('')}`));
      }, 60_000);
      const onData = (chunk: Buffer) => {
        const text = chunk.toString();
        output.push(text);
        const match = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(text);
        if (match !== null) {
          port = Number(match[1]);
          clearTimeout(timer);
          resolve();
        }
      };
      started.stdout?.on('data', onData);
      started.stderr?.on('data', onData);
      started.once('exit', (code, signal) => {
        output.push(`[harness] gateway process ${started.pid} exited (code ${code}, signal ${signal})\n`);
        clearTimeout(timer);
        if (port === 0)
          reject(new Error(`gateway exited with ${code} before listening:\n${output.join('')}`));
      });
    });

  await launch();
  const handle: ChildGateway = {
    get url() {
      return `ws://127.0.0.1:${port}`;
    },
    get httpUrl() {
      return `http://127.0.0.1:${port}`;
    },
    output,
    token: options.token,
    async client() {
      if (client !== undefined && client.closeCode === undefined) return client;
      const { client: connected, hello } = await connectClient(handle.url, {
        token: options.token,
        scopes: ['operator.admin'],
      });
      if (!hello.ok) throw new Error(`connect failed: ${JSON.stringify(hello.error)}`);
      client = connected;
      return connected;
    },
    async kill(signal = 'SIGKILL') {
      const running = child;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) {
        return running?.exitCode ?? null;
      }
      const exited = new Promise<number | null>((resolve) => running.once('exit', (code) => resolve(code)));
      running.kill(signal);
      client?.close();
      client = undefined;
      return exited;
    },
    signal(signal) {
      child?.kill(signal);
    },
    async restart(nextEnvironment) {
      await handle.kill('SIGKILL');
      client?.close();
      client = undefined;
      if (nextEnvironment !== undefined) environment = nextEnvironment;
      port = 0;
      await launch();
    },
    async waitForExit(timeoutMs) {
      const running = child;
      if (running === undefined) return 'running';
      if (running.exitCode !== null || running.signalCode !== null)
        return running.signalCode ?? running.exitCode!;
      let timer: NodeJS.Timeout | undefined;
      let onExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;
      const outcome = await Promise.race([
        new Promise<NodeJS.Signals | number>((resolve) => {
          onExit = (code, signal) => resolve(signal ?? code ?? 0);
          running.once('exit', onExit);
        }),
        new Promise<'running'>((resolve) => {
          timer = setTimeout(() => resolve('running'), timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      // Polled in a loop (a supervisor): no listener may stay behind per call.
      if (onExit !== undefined) running.removeListener('exit', onExit);
      if (outcome !== 'running') {
        client?.close();
        client = undefined;
      }
      return outcome;
    },
    async settle(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let idleReadings = 0;
      while (Date.now() < deadline) {
        const status = await (await handle.client()).request('status', {});
        const runs = status.payload?.runs as
          | { running: number; waiting: number; queuedMessages: number }
          | undefined;
        const idle =
          runs !== undefined &&
          runs.running === 0 &&
          runs.waiting === 0 &&
          runs.queuedMessages === 0 &&
          status.payload?.pendingInbound === 0;
        idleReadings = idle ? idleReadings + 1 : 0;
        if (idleReadings >= 2) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`the gateway did not settle in ${timeoutMs} ms`);
    },
    async stop(graceMs = 15_000) {
      const running = child;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
      });
      void handle.kill('SIGTERM');
      const outcome = await Promise.race([exited.then(() => 'exited' as const), timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        output.push(`[harness] the gateway did not exit ${graceMs} ms after SIGTERM; sending SIGKILL\n`);
        running.kill('SIGKILL');
        await exited;
      }
    },
  };
  return handle;
}
