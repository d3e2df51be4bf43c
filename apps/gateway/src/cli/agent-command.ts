// `switchboard agent -m TEXT`: sends one message to the running gateway and streams the reply
// (assistant text on stdout, tool starts on stderr); `--json` prints the run's final instead.
import { randomUUID } from 'node:crypto';
import type { CommandValues } from './arguments.ts';
import type { CommandHelpers } from './command-context.ts';
import { type CliIo, exitCodes } from './io.ts';

export async function agentCommand(
  _words: readonly string[],
  values: CommandValues,
  io: CliIo,
  helpers: CommandHelpers,
): Promise<number> {
  const message = values.message;
  if (typeof message !== 'string' || message.trim() === '') {
    io.error('agent needs a message: switchboard agent -m "hello"\n');
    return exitCodes.usage;
  }
  return helpers.withClient(async (client) => {
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
