// `/name` chat commands of user-invocable skills.
import type { SkillsSnapshot, SnapshotSkill } from './skills-manager.ts';

/** The chat command of a skill name: lower case, runs of other characters become `_`. */
export function skillCommandName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
}

/** The skill a `/command` names in this snapshot, if it is user-invocable there. */
export function findSkillCommand(snapshot: SkillsSnapshot, command: string): SnapshotSkill | undefined {
  const wanted = command.toLowerCase();
  return snapshot.skills.find((skill) => skill.command && skillCommandName(skill.name) === wanted);
}

/**
 * The turn a `/name args` command becomes: the model is told to read the skill and follow it
 * with the user's arguments. Its text names the file, so the turn works without the catalogue.
 */
export function skillCommandPrompt(skill: SnapshotSkill, args: string, readTool = 'read'): string {
  const request = args.trim() === '' ? '(no arguments)' : args.trim();
  return [
    `The user invoked the skill "${skill.name}" with /${skillCommandName(skill.name)}.`,
    `Read ${skill.location} with the ${readTool} tool and follow it for this request:`,
    request,
  ].join('\n');
}
