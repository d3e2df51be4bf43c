// What a client command needs to find the running gateway: the state directory, the
// `gateway` section of the config and the token file. Kept free of the config schema and
// the plugin SDK so `switchboard status` and friends start in a fraction of a second; the
// rules mirror src/state/state-directory.ts and src/config/env.ts.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import JSON5 from 'json5';

/** `SWITCHBOARD_STATE_DIR`, else `~/.switchboard` (as the gateway resolves it). */
export function clientStateDirectory(environment: NodeJS.ProcessEnv): string {
  const configured = environment.SWITCHBOARD_STATE_DIR?.trim();
  if (configured === undefined || configured === '') return join(homedir(), '.switchboard');
  const expanded =
    configured === '~'
      ? homedir()
      : configured.startsWith('~/')
        ? join(homedir(), configured.slice(2))
        : configured;
  return resolve(expanded);
}

/** The token in the state directory's `gateway-token` file, if there is one. */
export function tokenFromStateDirectory(stateDirectory: string): string | undefined {
  const path = join(stateDirectory, 'gateway-token');
  if (!existsSync(path)) return undefined;
  const token = readFileSync(path, 'utf8').trim();
  return token === '' ? undefined : token;
}

export interface GatewaySection {
  readonly port?: number;
  readonly bind?: string;
  readonly token?: string;
}

/** Replaces `${VAR}` like the config loader; a missing variable leaves the value out. */
function substitute(value: unknown, environment: NodeJS.ProcessEnv): unknown {
  if (typeof value !== 'string') return value;
  let missing = false;
  const text = value.replace(/\$\$\{|\$\{([A-Z_][A-Z0-9_]*)\}/g, (match, name: string | undefined) => {
    if (name === undefined) return '${';
    const found = environment[name];
    if (found === undefined) missing = true;
    return found ?? match;
  });
  return missing ? undefined : text;
}

/**
 * The `gateway` section of the config file at `path` (port, bind, token), without
 * validating the rest. Missing or unreadable files and invalid values give `{}` or leave
 * the value out: a client command must reach the gateway even when the config is broken.
 */
export function readGatewaySection(path: string, environment: NodeJS.ProcessEnv): GatewaySection {
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON5.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
  const gateway = (parsed as { gateway?: unknown } | null)?.gateway;
  if (typeof gateway !== 'object' || gateway === null) return {};
  const section = gateway as { port?: unknown; bind?: unknown; auth?: { token?: unknown } };
  const port = substitute(section.port, environment);
  const bind = substitute(section.bind, environment);
  const token = substitute(section.auth?.token, environment);
  return {
    ...(typeof port === 'number' && Number.isInteger(port) && port >= 0 && port <= 65_535 ? { port } : {}),
    ...(typeof bind === 'string' && bind !== '' ? { bind } : {}),
    ...(typeof token === 'string' && token.trim() !== '' ? { token: token.trim() } : {}),
  };
}
