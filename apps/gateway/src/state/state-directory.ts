import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from '../config/errors.ts';

/** Where the gateway keeps its config, database, token and credentials. */
export function resolveStateDirectory(environment: NodeJS.ProcessEnv = process.env): string {
  const configured = environment.SWITCHBOARD_STATE_DIR?.trim();
  if (configured !== undefined && configured.length > 0) return resolve(expandHome(configured));
  return join(homedir(), '.switchboard');
}

export function expandHome(path: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return path;
}

/** The probe file earlier versions left in the state directory; removed when seen. */
const legacyProbeName = '.write-test';

/**
 * Creates the state directory (mode 0700) if needed and checks it is writable by writing a
 * probe file with a unique name, which it removes again: nothing is left behind.
 */
export function ensureStateDirectory(directory: string): void {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const probe = join(directory, `.write-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      writeFileSync(probe, '', { flag: 'wx', mode: 0o600 });
    } finally {
      rmSync(probe, { force: true });
    }
    rmSync(join(directory, legacyProbeName), { force: true });
  } catch (error) {
    throw new ConfigError(
      'STATE_DIR_UNUSABLE',
      `state directory ${directory} cannot be created or written (${(error as Error).message}); set SWITCHBOARD_STATE_DIR to a writable directory`,
    );
  }
}

const placeholderTokens = new Set([
  'undefined',
  'null',
  'none',
  'token',
  'changeme',
  'change-me',
  'change_me',
  'your-token',
  'your_token',
  'yourtoken',
  'secret',
  'password',
  'xxx',
  'xxxx',
  'todo',
  'replace-me',
]);

/** Why a token cannot be used, or undefined when it is acceptable. */
export function tokenProblem(token: string): string | undefined {
  const trimmed = token.trim();
  if (trimmed.length === 0) return 'the gateway token is blank';
  if (placeholderTokens.has(trimmed.toLowerCase()) || /^<.*>$/.test(trimmed) || /^\$\{.*\}$/.test(trimmed)) {
    return `the gateway token "${trimmed}" is a placeholder`;
  }
  if (/^(.)\1+$/.test(trimmed)) return 'the gateway token is one character repeated';
  return undefined;
}

export interface ResolvedToken {
  readonly token: string;
  readonly source: 'config' | 'environment' | 'file' | 'generated';
  /** Set when the token lives in (or was just written to) the state directory. */
  readonly path?: string;
}

const tokenFileName = 'gateway-token';

/**
 * The gateway token: `gateway.auth.token` from config, else `SWITCHBOARD_GATEWAY_TOKEN`, else
 * the token file in the state directory, else a new random token written there with mode 0600.
 * Blank and placeholder tokens are refused.
 */
export function resolveGatewayToken(
  stateDirectory: string,
  configured: string | undefined,
  environment: NodeJS.ProcessEnv = process.env,
): ResolvedToken {
  const check = (token: string, where: string): string => {
    const problem = tokenProblem(token);
    if (problem !== undefined)
      throw new ConfigError('TOKEN_INVALID', `${problem} (from ${where}); use a long random token`);
    return token.trim();
  };
  if (configured !== undefined) return { token: check(configured, 'gateway.auth.token'), source: 'config' };
  const fromEnvironment = environment.SWITCHBOARD_GATEWAY_TOKEN;
  if (fromEnvironment !== undefined) {
    return { token: check(fromEnvironment, 'SWITCHBOARD_GATEWAY_TOKEN'), source: 'environment' };
  }
  const path = join(stateDirectory, tokenFileName);
  if (existsSync(path)) {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(path, 0o600);
    return { token: check(readFileSync(path, 'utf8'), path), source: 'file', path };
  }
  const token = randomBytes(32).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return { token, source: 'generated', path };
}

/** Reads the token a CLI should present to a running gateway. */
export function readTokenForClient(
  stateDirectory: string,
  environment: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const fromEnvironment = environment.SWITCHBOARD_GATEWAY_TOKEN?.trim();
  if (fromEnvironment) return fromEnvironment;
  const path = join(stateDirectory, tokenFileName);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}
