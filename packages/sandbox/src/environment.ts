import { sandboxWorkspacePath } from './bwrap-arguments.ts';
import { SandboxError } from './errors.ts';
import { environmentName } from './policy.ts';

/** What every command starts with; nothing of the gateway's own environment (keys, tokens) is passed. */
const baseEnvironment: Readonly<Record<string, string>> = Object.freeze({
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: sandboxWorkspacePath,
  USER: 'sandbox',
  SHELL: '/bin/bash',
  LANG: 'C.UTF-8',
  TERM: 'dumb',
  TMPDIR: '/tmp',
});

/**
 * The environment of one command: the base, then the policy's `env`, then the call's `env`.
 * Throws `SANDBOX_INVALID_ARGUMENT` for a call variable whose name is not a shell identifier.
 */
export function sandboxEnvironment(
  policyEnvironment: Readonly<Record<string, string>>,
  callEnvironment: Readonly<Record<string, string>> = {},
): Record<string, string> {
  for (const name of Object.keys(callEnvironment)) {
    if (!environmentName.test(name)) {
      throw new SandboxError(
        'SANDBOX_INVALID_ARGUMENT',
        `env: "${name}" is not a valid environment variable name`,
        {
          details: { name },
        },
      );
    }
  }
  return { ...baseEnvironment, ...policyEnvironment, ...callEnvironment };
}
