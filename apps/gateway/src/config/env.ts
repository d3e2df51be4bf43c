import { ConfigError, type ConfigProblem, formatKeyPath } from './errors.ts';

const reference = /\$\$\{|\$\{([A-Z_][A-Z0-9_]*)\}/g;

/**
 * Replaces `${VAR}` in every string of a parsed config with the environment's value.
 * `$${VAR}` stays as the literal text `${VAR}`. Only upper-case names are references, so
 * ordinary text with a dollar sign is left alone. A missing variable is an error that names
 * the key path and the variable; all missing ones are reported together.
 */
export function substituteEnvironment(value: unknown, environment: NodeJS.ProcessEnv): unknown {
  const problems: ConfigProblem[] = [];
  const result = walk(value, [], environment, problems);
  if (problems.length > 0) {
    throw new ConfigError(
      'CONFIG_ENV_MISSING',
      `config references environment variables that are not set:\n${problems.map((problem) => `  ${problem.path}: ${problem.message}`).join('\n')}`,
      problems,
    );
  }
  return result;
}

function walk(
  value: unknown,
  path: PropertyKey[],
  environment: NodeJS.ProcessEnv,
  problems: ConfigProblem[],
): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    return value.replace(reference, (match, name: string | undefined) => {
      if (name === undefined) return '${';
      const replacement = environment[name];
      if (replacement === undefined || replacement === '') {
        problems.push({
          path: formatKeyPath(path),
          message: `\${${name}} is not set in the environment`,
          severity: 'error',
        });
        return match;
      }
      return replacement;
    });
  }
  if (Array.isArray(value))
    return value.map((item, index) => walk(item, [...path, index], environment, problems));
  if (typeof value === 'object' && value !== null) {
    const output: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      output[key] = walk(item, [...path, key], environment, problems);
    return output;
  }
  return value;
}
