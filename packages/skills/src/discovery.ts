// Finding SKILL.md folders under the skill roots, highest precedence first.
import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseSkillFile, type SkillDefinition, type SkillProblem } from './skill-file.ts';

/**
 * Where a skill came from, highest precedence first: the agent's workspace (`skills`, then
 * `.agents/skills`), the user's `~/.agents/skills`, the gateway's managed `<state>/skills`,
 * skills bundled with the gateway, `skills.load.extraDirs`, and folders plugins declare.
 */
export const skillTiers = [
  'workspace',
  'workspace_agents',
  'user',
  'managed',
  'bundled',
  'extra',
  'plugin',
] as const;
export type SkillTier = (typeof skillTiers)[number];

/** One directory to search, with the tier its skills belong to. */
export interface SkillRoot {
  readonly tier: SkillTier;
  readonly directory: string;
  /** The plugin that declared the folder (tier `plugin`). */
  readonly plugin?: string;
}

/** A SKILL.md found and parsed. */
interface DiscoveredSkill {
  readonly definition: SkillDefinition;
  readonly tier: SkillTier;
  readonly plugin?: string;
  /** The skill's folder (absolute). */
  readonly baseDirectory: string;
  /** The absolute path of its SKILL.md: the catalogue's `<location>`. */
  readonly location: string;
  /** Set when a skill of the same name in a higher tier (or earlier in the same tier) wins. */
  readonly shadowedBy?: { readonly tier: SkillTier; readonly location: string };
}

export interface DiscoveryResult {
  /** Every skill found, winners and shadowed ones, in precedence order then path order. */
  readonly skills: readonly DiscoveredSkill[];
  /** SKILL.md files that could not be loaded. */
  readonly problems: readonly SkillProblem[];
}

export interface DiscoverOptions {
  /** Levels below a root to search (default 6); descent stops at a folder holding SKILL.md. */
  readonly maxDepth?: number;
  /** SKILL.md files larger than this are reported and skipped (default 256 KB). */
  readonly maxSkillFileBytes?: number;
}

export const defaultMaxDepth = 6;
const defaultMaxSkillFileBytes: number = 256 * 1024;

const skippedFolders = new Set(['node_modules']);

/**
 * Searches every root in order. The order of `roots` is the precedence: for a name found in
 * several places, the first wins and the others are returned with `shadowedBy`. Missing
 * roots are fine (most users have only some); unreadable files become problems.
 */
export async function discoverSkills(
  roots: readonly SkillRoot[],
  options: DiscoverOptions = {},
): Promise<DiscoveryResult> {
  const maxDepth = options.maxDepth ?? defaultMaxDepth;
  const maxBytes = options.maxSkillFileBytes ?? defaultMaxSkillFileBytes;
  const found: DiscoveredSkill[] = [];
  const problems: SkillProblem[] = [];
  const seenFolders = new Set<string>();

  for (const root of roots) {
    const directory = resolve(root.directory);
    const skillFiles: string[] = [];
    await walk(directory, 0, maxDepth, seenFolders, skillFiles);
    // Read and parse in parallel; results keep the sorted path order.
    const loadedFiles = await Promise.all(skillFiles.map((file) => loadSkillFile(file, maxBytes)));
    for (const [index, file] of skillFiles.entries()) {
      const loaded = loadedFiles[index]!;
      if (!loaded.ok) {
        problems.push(loaded.problem);
        continue;
      }
      found.push({
        definition: loaded.skill,
        tier: root.tier,
        plugin: root.plugin,
        baseDirectory: dirname(file),
        location: file,
      });
    }
  }

  const winners = new Map<string, DiscoveredSkill>();
  const skills = found.map((skill) => {
    const winner = winners.get(skill.definition.name);
    if (winner === undefined) {
      winners.set(skill.definition.name, skill);
      return skill;
    }
    return { ...skill, shadowedBy: { tier: winner.tier, location: winner.location } };
  });
  return { skills, problems };
}

async function walk(
  directory: string,
  depth: number,
  maxDepth: number,
  seenFolders: Set<string>,
  skillFiles: string[],
): Promise<void> {
  let real: string;
  try {
    real = await realpath(directory);
  } catch {
    return; // a root that does not exist, or a broken link
  }
  // A folder reached twice (a symlink loop, or two roots that overlap) is searched once.
  if (seenFolders.has(real)) return;
  seenFolders.add(real);
  let entries: Dirent[];
  try {
    entries = (await readdir(directory, { withFileTypes: true })).sort((left, right) =>
      left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
    );
  } catch {
    return;
  }
  if (entries.some((entry) => entry.name === 'SKILL.md')) {
    skillFiles.push(join(directory, 'SKILL.md'));
    return;
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.name.startsWith('.') || skippedFolders.has(entry.name)) continue;
    const child = join(directory, entry.name);
    // A symbolic link is followed when it leads to a folder.
    const isDirectory =
      entry.isDirectory() ||
      (entry.isSymbolicLink() && (await stat(child).catch(() => undefined))?.isDirectory() === true);
    if (isDirectory) await walk(child, depth + 1, maxDepth, seenFolders, skillFiles);
  }
}

type LoadResult =
  | { readonly ok: true; readonly skill: SkillDefinition }
  | { readonly ok: false; readonly problem: SkillProblem };

async function loadSkillFile(path: string, maxBytes: number): Promise<LoadResult> {
  try {
    const info = await stat(path);
    if (info.size > maxBytes) {
      return {
        ok: false,
        problem: {
          code: 'SKILLS_FILE_TOO_LARGE',
          path,
          message: `${path}: ${info.size} bytes is over the ${maxBytes}-byte limit (skills.limits.maxSkillFileBytes)`,
        },
      };
    }
    const text = await readFile(path, 'utf8');
    return parseSkillFile(text, { path, folderName: basename(dirname(path)) });
  } catch (error) {
    return {
      ok: false,
      problem: {
        code: 'SKILLS_FILE_UNREADABLE',
        path,
        message: `${path}: cannot be read (${(error as Error).message})`,
      },
    };
  }
}
