// `skills.entries.<key>.env` and `.apiKey`: given to that skill's commands only.
import { resolve, sep } from 'node:path';
import type { SkillEntrySettings } from './eligibility.ts';
import type { SnapshotSkill } from './skills-manager.ts';

export interface SkillCommand {
  /** The command line the agent runs. */
  readonly command: string;
  /** Its working directory (absolute). */
  readonly cwd?: string;
}

/**
 * The extra environment for one command: the entries of the skills the command belongs to,
 * that is whose folder it runs in or names on its command line. A command that belongs to no
 * skill gets nothing, so one skill's key never reaches another's commands or the model's
 * own commands. `primaryEnv` names the variable `apiKey` fills.
 */
export function skillCommandEnvironment(
  skills: readonly SnapshotSkill[],
  entries: Readonly<Record<string, SkillEntrySettings>>,
  command: SkillCommand,
): Record<string, string> {
  const environment: Record<string, string> = {};
  const cwd = command.cwd === undefined ? undefined : resolve(command.cwd);
  for (const skill of skills) {
    const folder = resolve(skill.baseDirectory);
    const inFolder = cwd !== undefined && (cwd === folder || cwd.startsWith(folder + sep));
    if (!inFolder && !command.command.includes(folder)) continue;
    const entry = entries[skill.key];
    if (entry === undefined) continue;
    Object.assign(environment, entry.env ?? {});
    if (entry.apiKey !== undefined && skill.primaryEnv !== undefined)
      environment[skill.primaryEnv] = entry.apiKey;
  }
  return environment;
}
