// `switchboard …`: the operator CLI. Client commands load only the WebSocket client, so they
// start fast; every command's module is imported on demand, when that command runs, and so
// are the client helpers and the failure report (`--help` and `--version` load neither).
//
// The parts: `arguments.ts` (the command line), `usage.ts` (the help texts),
// `command-context.ts` (the gateway's address and token, the client, output), `failure.ts`
// (errors to exit codes) and one module per command.
import { gatewayVersion } from '../version.ts';
import { type ParsedCommand, parseCommandLine } from './arguments.ts';
import type { Command } from './command-context.ts';
import { type CliIo, exitCodes } from './io.ts';
import { configValidateUsage, usage } from './usage.ts';

export { type CliIo, exitCodes } from './io.ts';

const defaultIo: CliIo = {
  out: (text) => process.stdout.write(text),
  error: (text) => process.stderr.write(text),
  environment: process.env,
};

/** Each command's module, imported when the command runs (`gateway` only as `gateway run`). */
const commands: Readonly<Record<string, () => Promise<Command>>> = {
  gateway: async () => (await import('./gateway-run-command.ts')).gatewayRunCommand,
  agent: async () => (await import('./agent-command.ts')).agentCommand,
  config: async () => (await import('./config-command.ts')).configCommand,
  pairing: async () => (await import('./pairing-command.ts')).pairingCommand,
  skills: async () => (await import('./skills-command.ts')).skillsCommand,
  cron: async () => (await import('./cron-command.ts')).cronCommand,
  memory: async () => (await import('./memory-command.ts')).memoryCommand,
  approvals: async () => (await import('./approvals-command.ts')).approvalsCommand,
  sandbox: async () => (await import('./sandbox-command.ts')).sandboxCommand,
  subagents: async () => (await import('./subagents-command.ts')).subagentsCommand,
  mcp: async () => (await import('./mcp-command.ts')).mcpCommand,
  status: async () => (await import('./operator/status-command.ts')).statusCommand,
  sessions: async () => (await import('./operator/sessions-command.ts')).sessionsCommand,
  doctor: async () => (await import('./doctor/doctor-command.ts')).doctorCommand,
  logs: async () => (await import('./operator/logs-command.ts')).logsCommand,
  webchat: async () => (await import('./operator/webchat-command.ts')).webchatCommand,
};

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  let command: ParsedCommand;
  try {
    command = parseCommandLine(argv);
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
      return report(error, io);
    }
  }
  if (values.help === true || words.length === 0) {
    io.out(usage);
    return words.length === 0 && values.help !== true ? exitCodes.usage : exitCodes.ok;
  }
  const load = Object.hasOwn(commands, words[0] ?? '') ? commands[words[0] ?? ''] : undefined;
  if (load === undefined || (words[0] === 'gateway' && words[1] !== 'run')) {
    io.error(`unknown command: ${words.join(' ')}\n\n${usage}`);
    return exitCodes.usage;
  }
  try {
    const [run, { commandHelpers }] = await Promise.all([load(), import('./command-context.ts')]);
    return await run(words, values, io, commandHelpers(values, io));
  } catch (error) {
    return report(error, io);
  }
}

async function report(error: unknown, io: CliIo): Promise<number> {
  const { reportFailure } = await import('./failure.ts');
  return reportFailure(error, io);
}
