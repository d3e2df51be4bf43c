// Config of skills (`skills`, and `agents.defaults.skills` / `agents.list[].skills` per
// agent): @switchboard/skills, decision 0016. Keys and defaults follow OpenClaw's.
import { z } from 'zod';

/** `agents.defaults.skills` / `agents.list[].skills`: skill names; `[]` none, no key all. */
export const agentSkillsSchema = z.array(z.string().min(1)).optional();

const skillEntrySchema = z.strictObject({
  /** false leaves the skill out of every agent (`skills list` says so). */
  enabled: z.boolean().optional(),
  /** Environment variables given to this skill's commands only (and counted for `requires.env`). */
  env: z.record(z.string(), z.string()).optional(),
  /** Fills the skill's `primaryEnv` variable. */
  apiKey: z.string().min(1).optional(),
  /** Free-form settings for the skill (OpenClaw's key; kept, not interpreted). */
  config: z.record(z.string(), z.unknown()).optional(),
});

export const skillsConfigSchema = z.strictObject({
  load: z
    .strictObject({
      /** More folders to search, after the workspace, ~/.agents/skills and <state>/skills (`~/` expands). */
      extraDirs: z.array(z.string().min(1)).default([]),
      /** Watch the skill folders so new sessions (and /new) see edits without a restart. */
      watch: z.boolean().default(true),
      watchDebounceMs: z.number().int().nonnegative().default(250),
    })
    .prefault({}),
  /** When set, only these bundled skills are offered. */
  allowBundled: z.array(z.string().min(1)).optional(),
  /** `skills.entries.<name or skillKey>`. */
  entries: z.record(z.string(), skillEntrySchema).default({}),
  limits: z
    .strictObject({
      maxSkillsPromptChars: z.number().int().positive().default(18_000),
      maxSkillsInPrompt: z.number().int().nonnegative().default(150),
      maxSkillFileBytes: z
        .number()
        .int()
        .positive()
        .default(256 * 1024),
    })
    .prefault({}),
});
