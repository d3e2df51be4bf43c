// Which skills one agent sees (OpenClaw's "skillFilter").

/**
 * `agents.defaults.skills` is the baseline and an agent's own `skills` list replaces it:
 * undefined means every skill, `[]` none, a list those names.
 */
export function resolveAgentSkillFilter(
  defaults: readonly string[] | undefined,
  agent: readonly string[] | undefined,
): readonly string[] | undefined {
  return agent ?? defaults;
}

/** Whether a skill (by name or `skills.entries` key) passes a filter. */
export function passesSkillFilter(filter: readonly string[] | undefined, name: string, key: string): boolean {
  return filter === undefined || filter.includes(name) || filter.includes(key);
}
