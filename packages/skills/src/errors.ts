import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** Codes of the errors this package throws or reports for a skill it could not load. */
export type SkillsErrorCode =
  | 'SKILLS_FRONTMATTER_MISSING'
  | 'SKILLS_FRONTMATTER_INVALID'
  | 'SKILLS_DESCRIPTION_MISSING'
  | 'SKILLS_METADATA_INVALID'
  | 'SKILLS_FILE_TOO_LARGE'
  | 'SKILLS_FILE_UNREADABLE'
  | 'SKILLS_INVALID_OPTIONS'
  | 'SKILLS_UNKNOWN_SKILL';

/** Every `SkillsError` code with the sentence that documents it. */
export const skillsErrorCodes: ErrorCodeTable & Readonly<Record<SkillsErrorCode, string>> = {
  SKILLS_FRONTMATTER_MISSING:
    'A SKILL.md does not start with a YAML frontmatter block between two `---` lines. The skill is left out and reported with its file path.',
  SKILLS_FRONTMATTER_INVALID:
    'The YAML frontmatter of a SKILL.md does not parse, or a field has the wrong type (`name` not a string, `user-invocable` not a boolean, …). Reported with the file path and line; the skill is left out, the others still load.',
  SKILLS_DESCRIPTION_MISSING:
    'A SKILL.md frontmatter has no `description` (required: the model picks skills by it). Reported with the file path; the skill is left out.',
  SKILLS_METADATA_INVALID:
    'The `metadata` field (its `openclaw` or legacy `clawdbot` object, JSON5) does not parse or has a field of the wrong type (`requires.bins` not a list of strings, an unknown `os`, …). Reported with the file path and line; the skill is left out.',
  SKILLS_FILE_TOO_LARGE:
    'A SKILL.md is larger than `skills.limits.maxSkillFileBytes` (default 256 KB). The skill is left out and reported with its size.',
  SKILLS_FILE_UNREADABLE:
    'A SKILL.md could not be read (permissions, a broken symlink). Reported with the path and the system error.',
  SKILLS_INVALID_OPTIONS:
    'An option passed to the skills package is out of range (a negative budget, an empty root path, …). The message names the option.',
  SKILLS_UNKNOWN_SKILL: 'No skill with the given name was found in any tier (`skills info <name>`).',
};

/** An error of `@switchboard/skills`. */
export class SkillsError extends SwitchboardError<SkillsErrorCode> {
  constructor(code: SkillsErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
