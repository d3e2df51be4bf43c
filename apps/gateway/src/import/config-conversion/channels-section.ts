// OpenClaw's `channels`: copied as they are (each channel's schema checks them later), with
// `tokenFile` files read and their token written inline.
import { existsSync, readFileSync } from 'node:fs';
import { isRecord, resolveOpenClawPath } from '../openclaw-source.ts';
import type { Mark } from './types.ts';

/** Converts `channels` into `config.channels`; reads the `tokenFile`s under `root`. */
export function convertChannels(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
  root: string,
): void {
  const channels = raw.channels;
  if (!isRecord(channels)) return;
  const target: Record<string, unknown> = {};
  for (const [id, value] of Object.entries(channels)) {
    if (!isRecord(value)) continue;
    const copy = structuredClone(value);
    const inlineTokenFile = (block: Record<string, unknown>, path: string) => {
      if (typeof block.tokenFile !== 'string') return;
      const file = resolveOpenClawPath(root, block.tokenFile);
      if (existsSync(file)) {
        block.botToken = readFileSync(file, 'utf8').trim();
        delete block.tokenFile;
        mark(`${path}.tokenFile`, {
          disposition: 'changed',
          target: `${path}.botToken`,
          message: `the token is read from ${file} now and written into switchboard.json (file mode 0600)`,
        });
      } else {
        delete block.tokenFile;
        mark(`${path}.tokenFile`, {
          disposition: 'unsupported',
          message: `${file} does not exist: set ${path}.botToken (or "\${TELEGRAM_BOT_TOKEN}")`,
        });
      }
    };
    inlineTokenFile(copy, `channels.${id}`);
    if (isRecord(copy.accounts))
      for (const [accountId, account] of Object.entries(copy.accounts))
        if (isRecord(account)) inlineTokenFile(account, `channels.${id}.accounts.${accountId}`);
    target[id] = copy;
    mark(`channels.${id}`, {
      disposition: 'mapped',
      target: `channels.${id}`,
      message: "copied as is; the channel's own schema checks it (see the validation below)",
    });
  }
  config.channels = target;
}
