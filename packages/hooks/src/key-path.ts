/** Joins a base key path and zod-style path segments: `plugins.entries.x.config` + `['units']`. */
export function joinKeyPath(base: string, segments: ReadonlyArray<PropertyKey>): string {
  let path = base;
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else path += path === '' ? String(segment) : `.${String(segment)}`;
  }
  return path;
}

/** One validation problem, located by its full key path. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

/** Renders issues as indented lines under a heading, for error messages. */
export function describeIssues(issues: readonly ConfigIssue[]): string {
  return issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join('\n');
}
