// OpenClaw's `tools`: allow/deny lists and web fetch; `tools.exec` has no equivalent (the
// sandboxed exec tool takes its own allowlist).
import { isRecord } from '../openclaw-source.ts';
import { copyIfPresent } from './key-notes.ts';
import type { Mark } from './types.ts';

/** Converts `tools` into `config.tools`. */
export function convertTools(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
): void {
  const tools = raw.tools;
  if (!isRecord(tools)) return;
  const target: Record<string, unknown> = {};
  copyIfPresent(tools, target, ['allow', 'deny'], 'tools', 'tools', mark);
  const fetch = isRecord(tools.web) && isRecord(tools.web.fetch) ? tools.web.fetch : undefined;
  if (fetch !== undefined && typeof fetch.enabled === 'boolean') {
    target.webFetch = { enabled: fetch.enabled };
    mark('tools.web.fetch.enabled', {
      disposition: 'changed',
      target: 'tools.webFetch.enabled',
      message: 'Switchboard fetches public addresses only unless tools.webFetch.allowPrivateNetworks is set',
    });
  }
  if (tools.exec !== undefined)
    mark('tools.exec', {
      disposition: 'unsupported',
      message:
        'Switchboard runs no shell: list the commands an agent may run in tools.exec.allow (bare names)',
    });
  config.tools = target;
}
