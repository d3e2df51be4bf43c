import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type ForegroundOptions, runInForeground, type StopCause, watchesParent } from './foreground.ts';

function harness(overrides: Partial<ForegroundOptions> = {}) {
  const signals = new EventEmitter();
  const lines: string[] = [];
  const closed: StopCause[] = [];
  let clock = 1_000;
  let forced = 0;
  let check: (() => void) | undefined;
  let watching = false;
  const outcome = runInForeground({
    close: async (cause) => {
      closed.push(cause);
    },
    report: (line) => lines.push(line),
    forceExit: () => {
      forced += 1;
    },
    signals,
    now: () => clock,
    every: (callback) => {
      check = callback;
      watching = true;
      return () => {
        watching = false;
      };
    },
    ...overrides,
  });
  return {
    outcome,
    lines,
    closed,
    send: (signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP') => signals.emit(signal, signal),
    advance: (ms: number) => {
      clock += ms;
    },
    tick: () => check?.(),
    forced: () => forced,
    watching: () => watching,
  };
}

describe('gateway run in the foreground', () => {
  it('SIGTERM closes the gateway once and says so', async () => {
    const run = harness();
    run.send('SIGTERM');
    await expect(run.outcome).resolves.toEqual({ cause: { type: 'signal', signal: 'SIGTERM' }, clean: true });
    expect(run.closed).toHaveLength(1);
    expect(run.lines).toEqual(['received SIGTERM, shutting down (send it again to stop at once)']);
  });

  it('closes the gateway once when it cannot go on (a replica that lost its lock), and says why', async () => {
    let fail: (error: Error) => void = () => undefined;
    const unrecoverable = new Promise<Error>((resolve) => {
      fail = resolve;
    });
    const run = harness({ unrecoverable });
    fail(new Error('This gateway lost its instance lock on postgres://db/sb (the connection ended)'));
    await expect(run.outcome).resolves.toEqual({
      cause: {
        type: 'unrecoverable',
        reason: 'This gateway lost its instance lock on postgres://db/sb (the connection ended)',
      },
      clean: true,
    });
    expect(run.closed).toHaveLength(1);
    expect(run.lines).toEqual([
      'This gateway lost its instance lock on postgres://db/sb (the connection ended). Shutting down, for a supervisor to start it afresh.',
    ]);
    // A signal afterwards is a repeat of a stop already under way, not a second close.
    run.send('SIGTERM');
    expect(run.closed).toHaveLength(1);
  });

  it('a copy of the signal within a second (Ctrl-C forwarded by pnpm) is the same request', async () => {
    const run = harness();
    run.send('SIGINT');
    run.advance(40);
    run.send('SIGINT');
    run.send('SIGTERM');
    await run.outcome;
    expect(run.forced()).toBe(0);
    expect(run.closed).toHaveLength(1);
  });

  it('a signal sent again after the window stops at once', () => {
    const run = harness({ close: () => new Promise<void>(() => {}) });
    run.send('SIGINT');
    run.advance(1_500);
    run.send('SIGINT');
    expect(run.forced()).toBe(1);
    expect(run.lines.at(-1)).toBe('received SIGINT again, stopping at once');
  });

  it('SIGHUP reloads the config and keeps running; once stopping, it is ignored', async () => {
    let reloads = 0;
    const run = harness({
      reload: () => {
        reloads += 1;
      },
    });
    run.send('SIGHUP');
    run.send('SIGHUP');
    expect(reloads).toBe(2);
    expect(run.closed).toHaveLength(0);
    expect(run.lines).toEqual([
      'received SIGHUP, reloading the config',
      'received SIGHUP, reloading the config',
    ]);
    run.send('SIGTERM');
    run.send('SIGHUP');
    await expect(run.outcome).resolves.toMatchObject({ clean: true });
    expect(reloads).toBe(2);
  });

  it('a close that fails is reported and is not clean', async () => {
    const run = harness({ close: () => Promise.reject(new Error('store is locked')) });
    run.send('SIGTERM');
    await expect(run.outcome).resolves.toMatchObject({ clean: false });
    expect(run.lines.at(-1)).toBe('the gateway did not shut down cleanly: store is locked');
  });

  it('shuts down when the parent process is gone (the process was handed to another parent)', async () => {
    let parent = 4242;
    const run = harness({ parentProcessId: () => parent });
    run.tick();
    expect(run.closed).toEqual([]);
    parent = 1;
    run.tick();
    await expect(run.outcome).resolves.toEqual({
      cause: { type: 'parent_exited', parentProcessId: 4242, newParentProcessId: 1 },
      clean: true,
    });
    expect(run.lines).toEqual(['the process that started the gateway (pid 4242) has exited, shutting down']);
    expect(run.watching()).toBe(false);
  });

  it('does not watch the parent unless asked', async () => {
    const run = harness();
    expect(run.watching()).toBe(false);
    run.send('SIGTERM');
    await run.outcome;
  });

  it('watches the parent when a package manager started it, or when told to', () => {
    expect(watchesParent({ npm_config_user_agent: 'pnpm/10.34.8 npm/? node/v24.21.0 linux x64' })).toBe(true);
    expect(watchesParent({})).toBe(false);
    expect(watchesParent({ SWITCHBOARD_EXIT_WITH_PARENT: '1' })).toBe(true);
    expect(watchesParent({ SWITCHBOARD_EXIT_WITH_PARENT: '0', npm_config_user_agent: 'pnpm/10.34.8' })).toBe(
      false,
    );
  });
});
