// `switchboard …`: the operator CLI. Client commands load only the WebSocket client, so they
// start fast; `gateway run` and `config …` load the rest on demand.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gatewayVersion } from '../version.ts';
import {
  type CliGatewayClient,
  connectGateway,
  GatewayRequestError,
  GatewayUnreachableError,
} from './gateway-client.ts';

import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

export { type CliIo, exitCodes } from './io.ts';

const defaultIo: CliIo = {
  out: (text) => process.stdout.write(text),
  error: (text) => process.stderr.write(text),
  environment: process.env,
};

const usage = `Usage: switchboard <command> [options]

Gateway
  gateway run [--config FILE] [--port N] [--bind loopback|lan|ADDRESS]
                                    start the gateway in the foreground
Talking to a running gateway  (--url URL, --token TOKEN, --state-dir DIR; --json for scripts)
  agent -m TEXT [--session-key KEY] [--agent ID] [--thinking LEVEL]
                                    send a message and stream the reply
  status                            channels, runs and queue, credential cooldowns, plugins
  sessions list                     sessions, newest first
  sessions show KEY                 the conversation of a session
  sessions reset KEY | delete KEY   start a session over | remove it (transcripts are archived)
  sessions export KEY [--out FILE]  the whole transcript as JSONL (progress on stderr)
  sessions compact KEY              summarize older turns now
  pairing list [--channel ID] | approve CHANNEL CODE | deny CHANNEL CODE
  webchat [--with-token]            the WebChat address (with a sign-in link)
  skills list [--agent ID]          every skill found, in the prompt or left out and why
  skills info NAME [--agent ID]     one skill: location, tier, command, reasons
  mcp list [--agent ID]             MCP servers: state, error, each tool offered or why not
  sandbox status                    bubblewrap usable?, process limit, each agent's sandbox policy
  approvals [list] | allow-once ID | allow-always ID | deny ID   host exec commands waiting for an operator
  cron list | status                scheduled jobs (next and last run) | heartbeat tokens per day
  cron add '<job JSON>' | rm ID     schedule a job (see docs/guide/schedules.md) | remove one
  cron run ID | runs ID             run a job now | its past runs (status, delivery, tokens)
  memory status [--agent ID]        each agent's memory index: files, chunks, search mode, embeddings
  memory search QUERY [--agent ID]  search an agent's memory as memory_search does
  memory reindex [--agent ID]       re-chunk every memory file (embeddings stay cached)
  subagents list [--session-key KEY]   subagent runs: status, announcement, requester
  subagents kill ID|all | log ID [--limit N] [--before SEQ]   stop a run (and its children) | its transcript
Local checks
  doctor                            config, state directory, token, model endpoint, channels
  logs [--follow]                   the gateway log file (logging.file in the config)
  config validate [--config FILE] [--strict]
                                    every error and warning, with its key path
  config schema                     print the JSON Schema of the config
  config reload                     make the running gateway read its config again
                                    (also on SIGHUP and, by default, when the file changes)
Moving from OpenClaw
  import openclaw [--from DIR] [--dry-run] [--only PARTS] [--force]
                                    carry over config, credentials, paired senders,
                                    sessions, cron jobs and workspaces (import openclaw --help)
  --version, --help

Exit codes: 0 ok, 1 failed, 2 usage, 3 no gateway running, 4 token refused,
            5 invalid config, 6 not found,
            7 config validate: the file is missing, unreadable or not JSON5 (gateway run: 5)
`;

const configValidateUsage = `Usage: switchboard config validate [--config FILE] [--strict] [--json]

Checks the config file (--config, else switchboard.json in the state directory) the way
the gateway does at start-up: the gateway's own keys, routing and sessions, each configured
channel's settings (channels.<id>, by the channel's schema) and each plugin's config
(plugins.entries.<name>.config, by the plugin's schema; plugins are imported, not started).
Every problem is printed with its full key path, errors and warnings together:

  error     stops the gateway from starting: a wrong type or value, a missing required key,
            an unknown key inside plugins.entries.<name> (a guard with a typo guards
            nothing), a plugin that cannot be loaded
  warning   reported and ignored: an unknown key elsewhere (OpenClaw configs carry keys
            Switchboard does not use), an optional plugin that cannot be loaded

An unknown key close to a known one says which it probably meant ("did you mean
agents.defaults?").

Exit codes:
  0  no errors (warnings may be printed)
  5  errors (an unset \${VAR} included); with --strict, warnings too
  7  the file is missing, cannot be read, or is not JSON5
`;

interface ParsedCommand {
  readonly words: string[];
  readonly values: Record<string, string | boolean | undefined>;
}

function parse(argv: readonly string[]): ParsedCommand {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      bind: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      'state-dir': { type: 'string' },
      message: { type: 'string', short: 'm' },
      'session-key': { type: 'string' },
      agent: { type: 'string' },
      thinking: { type: 'string' },
      channel: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean' },
      'with-token': { type: 'boolean' },
      follow: { type: 'boolean' },
      strict: { type: 'boolean' },
      from: { type: 'string' },
      'dry-run': { type: 'boolean' },
      only: { type: 'string' },
      limit: { type: 'string' },
      before: { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  return { words: positionals, values };
}

function stateDirectory(values: ParsedCommand['values'], environment: NodeJS.ProcessEnv): Promise<string> {
  return import('../state/state-directory.ts').then(({ resolveStateDirectory }) =>
    typeof values['state-dir'] === 'string' ? values['state-dir'] : resolveStateDirectory(environment),
  );
}

/**
 * Where the running gateway is and which token it wants. Address: --url, else
 * SWITCHBOARD_GATEWAY_URL, else the port (and bind address) in the config. Token: --token,
 * else SWITCHBOARD_GATEWAY_TOKEN, else gateway.auth.token in the config, else the
 * gateway-token file in the state directory.
 */
async function gatewayTarget(
  values: ParsedCommand['values'],
  io: CliIo,
): Promise<{ url: string; token: string | undefined }> {
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
  values: ParsedCommand['values'],
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

function print(io: CliIo, values: ParsedCommand['values'], data: unknown, human: () => string): void {
  io.out(values.json === true ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
}

async function runGateway(values: ParsedCommand['values'], io: CliIo): Promise<number> {
  const { startGateway } = await import('../runtime/gateway.ts');
  const port = typeof values.port === 'string' ? Number(values.port) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
    io.error(`--port must be a number from 0 to 65535, got ${String(values.port)}\n`);
    return exitCodes.usage;
  }
  const handle = await startGateway({
    ...(typeof values.config === 'string' ? { configPath: values.config } : {}),
    ...(typeof values['state-dir'] === 'string' ? { stateDirectory: values['state-dir'] } : {}),
    ...(port === undefined ? {} : { port }),
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
    ...(watchesParent(io.environment) ? { parentProcessId: () => process.ppid } : {}),
  });
  // 0 after a graceful shutdown, whatever asked for it (docs/decisions/0009-start-path-and-signals.md).
  return outcome.clean ? exitCodes.ok : exitCodes.failed;
}

async function agent(values: ParsedCommand['values'], io: CliIo): Promise<number> {
  const message = values.message;
  if (typeof message !== 'string' || message.trim() === '') {
    io.error('agent needs a message: switchboard agent -m "hello"\n');
    return exitCodes.usage;
  }
  return withClient(values, io, async (client) => {
    let streamed = false;
    const runId = randomUUID();
    if (values.json !== true) {
      client.onEvent((event) => {
        if (event.event !== 'agent' || event.payload?.runId !== runId) return;
        const data = event.payload.data as { delta?: string; phase?: string; name?: string } | undefined;
        if (event.payload.stream === 'assistant' && typeof data?.delta === 'string') {
          streamed = true;
          io.out(data.delta);
        } else if (event.payload.stream === 'tool' && data?.phase === 'start') {
          io.error(`[tool ${data.name}]\n`);
        }
      });
    }
    const final = await client.request(
      'agent',
      {
        message,
        idempotencyKey: runId,
        ...(typeof values['session-key'] === 'string' ? { sessionKey: values['session-key'] } : {}),
        ...(typeof values.agent === 'string' ? { agentId: values.agent } : {}),
        ...(typeof values.thinking === 'string' ? { thinking: values.thinking } : {}),
      },
      { expectFinal: true },
    );
    if (values.json === true) {
      io.out(`${JSON.stringify(final, null, 2)}\n`);
    } else {
      const payloads = (
        (final.result as { payloads?: Array<{ text?: string }> } | undefined)?.payloads ?? []
      ).map((payload) => payload.text ?? '');
      io.out(streamed ? '\n' : `${payloads.join('\n\n')}\n`);
    }
    return exitCodes.ok;
  });
}

async function configCommand(
  words: readonly string[],
  values: ParsedCommand['values'],
  io: CliIo,
): Promise<number> {
  if (words[1] === 'schema') {
    const { configJsonSchema } = await import('../config/schema.ts');
    io.out(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
    return exitCodes.ok;
  }
  if (words[1] === 'reload') return configReload(values, io);
  if (words[1] !== 'validate') {
    io.error(
      `unknown config command: ${words[1] ?? '(none)'}; use "config validate", "config schema" or "config reload"\n`,
    );
    return exitCodes.usage;
  }
  const { checkConfigFile } = await import('../runtime/plugins.ts');
  const { ConfigError, formatProblems } = await import('../config/errors.ts');
  const state = await stateDirectory(values, io.environment);
  let checked: Awaited<ReturnType<typeof checkConfigFile>>;
  try {
    checked = await checkConfigFile({
      stateDirectory: state,
      environment: io.environment,
      ...(typeof values.config === 'string' ? { path: values.config } : {}),
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (values.json === true)
      io.out(
        `${JSON.stringify({ ok: false, code: error.code, message: error.message, problems: error.problems }, null, 2)}\n`,
      );
    else io.error(`${error.message}\n`);
    return error.code === 'CONFIG_ENV_MISSING' ? exitCodes.invalidConfig : exitCodes.unreadableConfig;
  }
  const { path, problems } = checked;
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  const warnings = problems.length - errors;
  const ok = errors === 0 && !(values.strict === true && warnings > 0);
  const file = path ?? '(no config file: defaults)';
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const heading =
    problems.length === 0
      ? `${file} is valid.`
      : errors === 0
        ? `${file} has no errors, but ${count(warnings, 'warning')}${values.strict === true ? ' (--strict: they fail the check)' : ' (warnings do not stop the gateway)'}:`
        : `${file} is invalid: ${count(errors, 'error')}, ${count(warnings, 'warning')} (errors stop the gateway from starting; warnings do not):`;
  if (values.json === true) {
    const code = errors > 0 ? { code: 'CONFIG_INVALID' } : {};
    io.out(`${JSON.stringify({ ok, ...code, path: path ?? null, errors, warnings, problems }, null, 2)}\n`);
  } else {
    const text = problems.length === 0 ? `${heading}\n` : `${heading}\n${formatProblems(problems)}\n`;
    if (ok) io.out(text);
    else io.error(text);
  }
  return ok ? exitCodes.ok : exitCodes.invalidConfig;
}

/** `config reload`: asks the running gateway to read its config again (docs/decisions/0011). */
async function configReload(values: ParsedCommand['values'], io: CliIo): Promise<number> {
  return withClient(values, io, async (client) => {
    const report = (await client.request('config.reload', {}, { timeoutMs: readTimeoutMs })) as {
      ok?: boolean;
      path?: string | null;
      applied?: string[];
      needsRestart?: Array<{ path: string; reason: string }>;
      channels?: Record<'restarted' | 'started' | 'stopped' | 'accessUpdated', string[]>;
      problems?: Array<{ path: string; message: string; severity: 'error' | 'warning' }>;
    };
    const { formatProblems } = await import('../config/errors.ts');
    const file = report.path ?? '(no config file: defaults)';
    const problems = report.problems ?? [];
    if (report.ok !== true) {
      if (values.json === true) io.out(`${JSON.stringify(report, null, 2)}\n`);
      else
        io.error(
          `${file} was rejected; the gateway keeps running with its current config:\n${formatProblems(problems)}\n`,
        );
      return exitCodes.invalidConfig;
    }
    print(io, values, report, () => {
      const lines: string[] = [];
      const applied = report.applied ?? [];
      const needsRestart = report.needsRestart ?? [];
      if (applied.length === 0 && needsRestart.length === 0) lines.push(`${file}: no changes.`);
      if (applied.length > 0)
        lines.push(`${file}: applied without a restart:`, ...applied.map((path) => `  ${path}`));
      if (needsRestart.length > 0)
        lines.push(
          'Changed, but needs a restart (the old values stay in force until then):',
          ...needsRestart.map((entry) => `  ${entry.path}: ${entry.reason}`),
        );
      const channels = report.channels;
      const named = (label: string, accounts: string[] | undefined) =>
        accounts === undefined || accounts.length === 0 ? [] : [`  ${label}: ${accounts.join(', ')}`];
      const channelLines = [
        ...named('restarted', channels?.restarted),
        ...named('started', channels?.started),
        ...named('stopped', channels?.stopped),
        ...named('new access settings, not restarted', channels?.accessUpdated),
      ];
      if (channelLines.length > 0) lines.push('Channel accounts:', ...channelLines);
      if (problems.length > 0) lines.push('Warnings:', formatProblems(problems));
      return lines.join('\n');
    });
    return exitCodes.ok;
  });
}

async function pairingCommand(
  words: readonly string[],
  values: ParsedCommand['values'],
  io: CliIo,
): Promise<number> {
  const action = words[1] ?? 'list';
  return withClient(values, io, async (client) => {
    if (action === 'list') {
      const result = await client.request(
        'pairing.list',
        typeof values.channel === 'string' ? { channel: values.channel } : {},
      );
      const requests = (result.requests ?? []) as Array<{
        channel: string;
        accountId: string;
        code: string;
        sender: { id: string; name?: string };
        expiresAt: number;
      }>;
      print(io, values, result, () =>
        requests.length === 0
          ? 'No pending pairing requests.'
          : requests
              .map(
                (request) =>
                  `${request.channel}\t${request.accountId}\t${request.code}\t${request.sender.name ?? ''} (${request.sender.id})\texpires ${new Date(request.expiresAt).toISOString()}`,
              )
              .join('\n'),
      );
      return exitCodes.ok;
    }
    if (action === 'approve' || action === 'deny') {
      const [channel, code] = [words[2], words[3]];
      if (channel === undefined || code === undefined) {
        io.error(`usage: switchboard pairing ${action} <channel> <code>\n`);
        return exitCodes.usage;
      }
      const result = await client.request(`pairing.${action}`, { channel, code });
      print(
        io,
        values,
        result,
        () => `${action === 'approve' ? 'Approved' : 'Denied'} ${code.toUpperCase()} on ${channel}.`,
      );
      return exitCodes.ok;
    }
    io.error(`unknown pairing command: ${action}\n`);
    return exitCodes.usage;
  });
}

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  let command: ParsedCommand;
  try {
    command = parse(argv);
  } catch (error) {
    io.error(`${(error as Error).message}\n\n${usage}`);
    return exitCodes.usage;
  }
  const { words, values } = command;
  if (values.version === true) {
    io.out(`switchboard ${gatewayVersion}\n`);
    return exitCodes.ok;
  }
  if (values.help === true && words[0] === 'config' && words[1] === 'validate') {
    io.out(configValidateUsage);
    return exitCodes.ok;
  }
  if (words[0] === 'import') {
    const { importCommand } = await import('../import/import-command.ts');
    try {
      return await importCommand(words, values, io);
    } catch (error) {
      return reportFailure(error, io);
    }
  }
  if (values.help === true || words.length === 0) {
    io.out(usage);
    return words.length === 0 && values.help !== true ? exitCodes.usage : exitCodes.ok;
  }
  try {
    switch (words[0]) {
      case 'gateway':
        if (words[1] !== 'run') break;
        return await runGateway(values, io);
      case 'agent':
        return await agent(values, io);
      case 'config':
        return await configCommand(words, values, io);
      case 'pairing':
        return await pairingCommand(words, values, io);
      case 'skills': {
        const { skillsCommand } = await import('./skills-command.ts');
        return await skillsCommand(words, values, io, {
          withClient: (work) => withClient(values, io, work),
          print: (data, human) => print(io, values, data, human),
        });
      }
      case 'cron': {
        const { cronCommand } = await import('./cron-command.ts');
        return await cronCommand(words, values, io, {
          withClient: (work) => withClient(values, io, work),
          print: (data, human) => print(io, values, data, human),
        });
      }
      case 'memory': {
        const { memoryCommand } = await import('./memory-command.ts');
        return await memoryCommand(words, values, io, {
          withClient: (work) => withClient(values, io, work),
          print: (data, human) => print(io, values, data, human),
        });
      }
      case 'approvals': {
        const { approvalsCommand } = await import('./approvals-command.ts');
        return await approvalsCommand(words, values, io, {
          withClient: (work) => withClient(values, io, work),
          print: (data, human) => print(io, values, data, human),
        });
      }
      case 'sandbox': {
        const { sandboxCommand } = await import('./sandbox-command.ts');
        return await sandboxCommand(words, values, io, {
          withClient: (work) => withClient(values, io, work),
          print: (data, human) => print(io, values, data, human),
        });
      }
      case 'subagents': {
        const { subagentsCommand } = await import('./subagents-command.ts');
        return await subagentsCommand(words, values, io, {
          withClient: (work) => withClient(values, io, work),
          print: (data, human) => print(io, values, data, human),
        });
      }
      case 'mcp': {
        const { mcpCommand } = await import('./mcp-command.ts');
        return await mcpCommand(words, values, io, {
          withClient: (work) => withClient(values, io, work),
          print: (data, human) => print(io, values, data, human),
        });
      }
      case 'status':
      case 'sessions':
      case 'doctor':
      case 'logs':
      case 'webchat': {
        const { operatorCommand } = await import('./operator-commands.ts');
        return await operatorCommand(words, values, io, {
          withClient: (work) => withClient(values, io, work),
          print: (data, human) => print(io, values, data, human),
          target: () => gatewayTarget(values, io),
        });
      }
      default:
        break;
    }
    io.error(`unknown command: ${words.join(' ')}\n\n${usage}`);
    return exitCodes.usage;
  } catch (error) {
    return reportFailure(error, io);
  }
}

async function reportFailure(error: unknown, io: CliIo): Promise<number> {
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
