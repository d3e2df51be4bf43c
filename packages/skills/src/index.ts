// @switchboard/skills: SKILL.md folders an agent discovers (OpenClaw's format), filtered per
// agent, offered in a byte-stable prompt catalogue and read on demand.

export { resolveAgentSkillFilter } from './agent-filter.ts';
export { createHostBinaryProbe } from './binaries.ts';
export { type Catalogue, type CatalogueTrimming, defaultSkillLimits, type SkillLimits } from './catalogue.ts';
export { findSkillCommand, skillCommandName, skillCommandPrompt } from './commands.ts';
export { type SkillRoot, type SkillTier, skillTiers } from './discovery.ts';
// For operators' views: reasons in words, the tiers, the limits.
export {
  type BinaryProbe,
  describeExclusion,
  type SkillEntrySettings,
  type SkillExclusion,
} from './eligibility.ts';
export { type SkillCommand, skillCommandEnvironment } from './environment.ts';
// Errors.
export { SkillsError, type SkillsErrorCode, skillsErrorCodes } from './errors.ts';
export { type StandardSkillRootsOptions, standardSkillRoots } from './roots.ts';
export type { SkillProblem } from './skill-file.ts';
// For the gateway: what a session does with its snapshot (the read tool, /commands, env).
export { type ReadSkillRequest, type ReadSkillResult, readSkillFile } from './skill-reader.ts';
// For the gateway: the manager (discovery, watching, eligibility, snapshots, reports).
export {
  createSkillsManager,
  type SkillStatusEntry,
  type SkillsManager,
  type SkillsManagerOptions,
  type SkillsQuery,
  type SkillsReport,
  type SkillsSettings,
  type SkillsSnapshot,
  type SnapshotSkill,
} from './skills-manager.ts';
