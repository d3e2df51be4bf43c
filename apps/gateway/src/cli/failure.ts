// How a command that threw ends: the message an operator can act on, and the exit code a
// script can tell apart (no gateway, token refused, not found, invalid config, failed).
import { GatewayRequestError, GatewayUnreachableError } from './gateway-client.ts';
import { type CliIo, exitCodes } from './io.ts';

/** Reports `error` on stderr and returns the exit code it maps to. */
export async function reportFailure(error: unknown, io: CliIo): Promise<number> {
  if (error instanceof GatewayUnreachableError) {
    io.error(`${error.message}\nStart one with: switchboard gateway run (or pnpm start)\n`);
    return exitCodes.unreachable;
  }
  if (error instanceof GatewayRequestError) {
    if (error.detailCode === 'AUTH_RATE_LIMITED') {
      const seconds = Math.ceil(Number(error.error.retryAfterMs ?? 60_000) / 1000);
      io.error(`the gateway refused the token too often from here; try again in ${seconds} s\n`);
      return exitCodes.unauthorized;
    }
    if (error.detailCode?.startsWith('AUTH_') === true) {
      io.error(
        `${error.detailCode === 'AUTH_TOKEN_MISSING' ? 'the gateway wants a token and none was found' : 'the gateway refused the token'} (${error.detailCode}). ` +
          "Use the token in the state directory's gateway-token file, SWITCHBOARD_GATEWAY_TOKEN, or --token.\n",
      );
      return exitCodes.unauthorized;
    }
    io.error(`${error.message}${error.detailCode === undefined ? '' : ` (${error.detailCode})`}\n`);
    return error.detailCode === 'NOT_FOUND' ? exitCodes.notFound : exitCodes.failed;
  }
  const { ConfigError } = await import('../config/errors.ts');
  if (error instanceof ConfigError) {
    io.error(`${error.message}\n`);
    return error.code === 'CONFIG_UNSAFE' && /already in use|cannot listen/.test(error.message)
      ? exitCodes.failed
      : exitCodes.invalidConfig;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.error(`${message}\n`);
  return exitCodes.failed;
}
