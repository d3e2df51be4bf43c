// The environment of a stdio MCP server: only what it is given.

/**
 * Variables that make an interpreter or the dynamic linker run code the server did not ask
 * for (preloaded libraries, startup scripts, extra runtime flags). Never passed to a server,
 * even when its config lists them. Entries ending in `*` are prefixes.
 */
const hijackingVariables: readonly string[] = [
  'NODE_OPTIONS',
  'NODE_REPL_EXTERNAL_MODULE',
  'LD_*',
  'DYLD_*',
  'PYTHONSTARTUP',
  'PYTHONINSPECT',
  'PERL5OPT',
  'PERL5DB',
  'RUBYOPT',
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
];

function isHijacking(name: string): boolean {
  const upper = name.toUpperCase();
  return hijackingVariables.some((entry) =>
    entry.endsWith('*') ? upper.startsWith(entry.slice(0, -1)) : upper === entry,
  );
}

/** A stdio server's environment: what it runs with, and the configured keys that were dropped. */
export interface ServerEnvironment {
  readonly env: Record<string, string>;
  readonly stripped: readonly string[];
}

/**
 * The environment for a stdio server: the MCP SDK's safe base (`HOME`, `LOGNAME`, `PATH`,
 * `SHELL`, `TERM`, `USER` of the gateway, passed in as `base`) plus the server's configured
 * `env`, without the interpreter-hijacking variables of either.
 */
export function serverEnvironment(
  base: Readonly<Record<string, string>>,
  configured: Readonly<Record<string, string>> | undefined,
): ServerEnvironment {
  const env: Record<string, string> = {};
  const stripped: string[] = [];
  for (const [name, value] of Object.entries({ ...base, ...configured })) {
    if (isHijacking(name)) {
      if (configured !== undefined && name in configured) stripped.push(name);
      continue;
    }
    env[name] = value;
  }
  return { env, stripped };
}
