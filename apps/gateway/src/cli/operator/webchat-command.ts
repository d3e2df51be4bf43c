// `switchboard webchat [--with-token]`: where the running gateway serves WebChat.
import type { CommandValues } from '../arguments.ts';
import type { CommandHelpers } from '../command-context.ts';
import { type CliIo, exitCodes, readTimeoutMs } from '../io.ts';

/** The WebChat address, checked by asking the gateway for its health; `--with-token` adds a sign-in link. */
export async function webchatCommand(
  _words: readonly string[],
  values: CommandValues,
  _io: CliIo,
  helpers: CommandHelpers,
): Promise<number> {
  const target = await helpers.target();
  const httpUrl = `${target.url.replace(/^ws/, 'http').replace(/\/+$/, '')}/`;
  await helpers.withClient((client) => client.request('health', {}, { timeoutMs: readTimeoutMs }));
  const withToken = values['with-token'] === true && target.token !== undefined;
  const link = withToken ? `${httpUrl}#token=${encodeURIComponent(target.token ?? '')}` : httpUrl;
  helpers.print({ url: httpUrl, ...(withToken ? { signInUrl: link } : {}) }, () =>
    withToken
      ? `Open ${link}\n(the link signs this browser in; it contains the gateway token, so do not share it)`
      : `Open ${httpUrl} and paste the gateway token (or run: switchboard webchat --with-token).`,
  );
  return exitCodes.ok;
}
