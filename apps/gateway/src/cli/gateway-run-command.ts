// `switchboard gateway run`: starts the gateway in the foreground and runs it until a signal
// (or the parent process going away) asks it to stop; SIGHUP reloads the config.
import { gatewayVersion } from '../version.ts';
import type { CommandValues } from './arguments.ts';
import { type CliIo, exitCodes } from './io.ts';

/**
 * Runs the gateway; 0 after a graceful shutdown, 1 when it did not close cleanly or stopped
 * because it could not go on (a replica that lost its instance lock), 2 for a bad --port.
 */
export async function gatewayRunCommand(
  _words: readonly string[],
  values: CommandValues,
  io: CliIo,
): Promise<number> {
  const { startGateway } = await import('../gateway/start-gateway.ts');
  const port = typeof values.port === 'string' ? Number(values.port) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
    io.error(`--port must be a number from 0 to 65535, got ${String(values.port)}\n`);
    return exitCodes.usage;
  }
  const handle = await startGateway({
    ...(typeof values.config === 'string' ? { configPath: values.config } : {}),
    ...(typeof values['state-dir'] === 'string' ? { stateDirectory: values['state-dir'] } : {}),
    port,
    ...(typeof values.bind === 'string' ? { bind: values.bind } : {}),
    environment: io.environment,
  });
  io.out(`Switchboard ${gatewayVersion} is listening on ${handle.url}\n`);
  io.out(`WebChat: ${handle.httpUrl}/\n`);
  if (handle.tokenPath !== undefined) io.out(`Token: ${handle.tokenPath}\n`);
  // A gateway outlives its terminal: a closed stdout or stderr must not crash it mid-shutdown.
  const ignoreBrokenOutput = () => {};
  process.stdout.on('error', ignoreBrokenOutput);
  process.stderr.on('error', ignoreBrokenOutput);
  const { runInForeground, watchesParent } = await import('./foreground.ts');
  const outcome = await runInForeground({
    close: () => handle.close('shutdown'),
    report: (line) => io.error(`${line}\n`),
    forceExit: () => process.exit(exitCodes.failed),
    signals: process,
    // The outcome is logged by the gateway (applied, needs a restart, or rejected with its errors).
    reload: () => void handle.reloadConfig('signal').catch(() => undefined),
    now: Date.now,
    unrecoverable: handle.unrecoverable,
    ...(watchesParent(io.environment) ? { parentProcessId: () => process.ppid } : {}),
  });
  // 0 after a graceful shutdown, whatever asked for it (docs/decisions/0009-start-path-and-signals.md).
  // 1 after an unrecoverable stop, so `Restart=on-failure` starts a fresh replica too.
  return outcome.clean && outcome.cause.type !== 'unrecoverable' ? exitCodes.ok : exitCodes.failed;
}
