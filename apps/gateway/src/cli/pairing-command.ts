// `switchboard pairing list|approve|deny`: the running gateway's pending pairing requests
// (senders waiting for an operator to admit them), and the answer to one.
import type { CommandValues } from './arguments.ts';
import type { CommandHelpers } from './command-context.ts';
import { type CliIo, exitCodes } from './io.ts';

export async function pairingCommand(
  words: readonly string[],
  values: CommandValues,
  io: CliIo,
  helpers: CommandHelpers,
): Promise<number> {
  const action = words[1] ?? 'list';
  return helpers.withClient(async (client) => {
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
      helpers.print(result, () =>
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
      helpers.print(
        result,
        () => `${action === 'approve' ? 'Approved' : 'Denied'} ${code.toUpperCase()} on ${channel}.`,
      );
      return exitCodes.ok;
    }
    io.error(`unknown pairing command: ${action}\n`);
    return exitCodes.usage;
  });
}
