// The doctor's checks of this machine and the config file, made without a gateway: Node's
// version, the state directory's mode, the config file, and the gateway token's strength.
import { existsSync, statSync } from 'node:fs';
import type { GatewayConfig } from '../../config/schema.ts';
import type { CommandValues } from '../arguments.ts';
import type { CliIo } from '../io.ts';
import type { Check } from './check.ts';

/** The local checks, and the config they read (undefined when it could not be loaded). */
export interface LocalChecks {
  readonly checks: Check[];
  readonly config: GatewayConfig | undefined;
  readonly configPath: string | undefined;
}

/** Runs the local checks for the state directory `state`. */
export async function localChecks(state: string, values: CommandValues, io: CliIo): Promise<LocalChecks> {
  const { tokenProblem, readTokenForClient } = await import('../../state/state-directory.ts');
  const checks: Check[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  checks.push({
    name: 'node',
    ok: major >= 22,
    detail: `Node ${process.version}${major >= 22 ? '' : ' (22.13 or later is required)'}`,
    source: 'here',
  });

  if (existsSync(state)) {
    const mode = statSync(state).mode & 0o777;
    checks.push({
      name: 'state directory',
      ok: (mode & 0o077) === 0,
      warning: true,
      detail: `${state} mode ${mode.toString(8)}${(mode & 0o077) === 0 ? '' : ' (others can read it: chmod 700)'}`,
      source: 'here',
    });
  } else {
    checks.push({
      name: 'state directory',
      ok: true,
      warning: true,
      detail: `${state} does not exist yet; the gateway creates it`,
      source: 'here',
    });
  }

  let config: GatewayConfig | undefined;
  let configPath: string | undefined;
  try {
    const { loadConfig } = await import('../../config/load.ts');
    const loaded = loadConfig({
      stateDirectory: state,
      environment: io.environment,
      ...(typeof values.config === 'string' ? { path: values.config } : {}),
    });
    config = loaded.config;
    configPath = loaded.path;
    checks.push({
      name: 'config',
      ok: true,
      detail: `${loaded.path ?? 'no file (defaults)'} is valid${loaded.warnings.length > 0 ? `, ${loaded.warnings.length} warning(s)` : ''}`,
      source: 'config',
    });
  } catch (error) {
    checks.push({ name: 'config', ok: false, detail: (error as Error).message, source: 'config' });
  }

  const token = config?.gateway.auth.token ?? readTokenForClient(state, io.environment);
  if (config?.gateway.auth.mode === 'none') {
    checks.push({
      name: 'token',
      ok: config.gateway.bind === 'loopback',
      warning: true,
      detail: 'auth is off (gateway.auth.mode "none")',
      source: 'config',
    });
  } else if (token === undefined) {
    checks.push({
      name: 'token',
      ok: true,
      warning: true,
      detail: 'no token yet; the gateway generates one on first start',
      source: 'config',
    });
  } else {
    const problem = tokenProblem(token);
    const short = token.length < 24;
    checks.push({
      name: 'token',
      ok: problem === undefined && !short,
      detail:
        problem ??
        (short
          ? `the token is only ${token.length} characters; use 24 or more`
          : `strong (${token.length} characters)`),
      source: 'config',
    });
  }

  return { checks, config, configPath };
}
