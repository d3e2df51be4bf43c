// What a command that talks to the running gateway is handed: where the gateway is and which
// token it wants, a connected client for the length of the work, and `--json`-aware output.
import { join } from 'node:path';
import type { CommandValues } from './arguments.ts';
import { type CliGatewayClient, connectGateway } from './gateway-client.ts';
import type { CliIo } from './io.ts';

/** The gateway's WebSocket address and the token the CLI would present. */
interface GatewayTarget {
  readonly url: string;
  readonly token: string | undefined;
}

/**
 * The helpers every command receives. Contract: `withClient` connects (throwing
 * GatewayUnreachableError when nothing answers), runs `work`, and closes the client whatever
 * happens; `print` writes `data` as JSON with `--json`, else the `human` text, with a newline.
 */
export interface CommandHelpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
  target(): Promise<GatewayTarget>;
}

/** A subcommand: runs one invocation and returns its exit code. */
export type Command = (
  words: readonly string[],
  values: CommandValues,
  io: CliIo,
  helpers: CommandHelpers,
) => Promise<number>;

/** The helpers of one invocation. */
export function commandHelpers(values: CommandValues, io: CliIo): CommandHelpers {
  return {
    withClient: (work) => withClient(values, io, work),
    print: (data, human) => print(io, values, data, human),
    target: () => gatewayTarget(values, io),
  };
}

/**
 * Where the running gateway is and which token it wants. Address: --url, else
 * SWITCHBOARD_GATEWAY_URL, else the port (and bind address) in the config. Token: --token,
 * else SWITCHBOARD_GATEWAY_TOKEN, else gateway.auth.token in the config, else the
 * gateway-token file in the state directory.
 */
async function gatewayTarget(values: CommandValues, io: CliIo): Promise<GatewayTarget> {
  const { clientStateDirectory, readGatewaySection, tokenFromStateDirectory } = await import(
    './client-settings.ts'
  );
  const state =
    typeof values['state-dir'] === 'string' ? values['state-dir'] : clientStateDirectory(io.environment);
  const gateway = readGatewaySection(
    typeof values.config === 'string' ? values.config : join(state, 'switchboard.json'),
    io.environment,
  );
  const portFromEnvironment = Number(io.environment.SWITCHBOARD_GATEWAY_PORT);
  const port =
    Number.isInteger(portFromEnvironment) && portFromEnvironment > 0
      ? portFromEnvironment
      : (gateway.port ?? 18_789);
  const bind = gateway.bind ?? 'loopback';
  const host = ['loopback', 'lan', '0.0.0.0', '::'].includes(bind)
    ? '127.0.0.1'
    : bind.includes(':')
      ? `[${bind}]`
      : bind;
  const fromEnvironment = io.environment.SWITCHBOARD_GATEWAY_TOKEN?.trim();
  const token =
    typeof values.token === 'string'
      ? values.token
      : fromEnvironment !== undefined && fromEnvironment !== ''
        ? fromEnvironment
        : (gateway.token ?? tokenFromStateDirectory(state));
  const url =
    typeof values.url === 'string'
      ? values.url
      : (io.environment.SWITCHBOARD_GATEWAY_URL ?? `ws://${host}:${port}`);
  return { url, token };
}

async function withClient<T>(
  values: CommandValues,
  io: CliIo,
  work: (client: CliGatewayClient) => Promise<T>,
): Promise<T> {
  const target = await gatewayTarget(values, io);
  const client = await connectGateway(target.url, target.token);
  try {
    return await work(client);
  } finally {
    client.close();
  }
}

function print(io: CliIo, values: CommandValues, data: unknown, human: () => string): void {
  io.out(values.json === true ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
}
