// Reading a skill's files on demand, confined to the folders of the skills a session has.
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { SkillsError } from './errors.ts';
import { expandBaseDirectory } from './skill-file.ts';
import type { SkillsSnapshot, SnapshotSkill } from './skills-manager.ts';

export interface ReadSkillRequest {
  /** A skill name, or the absolute `<location>` of its SKILL.md from the catalogue. */
  readonly skill: string;
  /** A file inside the skill's folder, relative to it (default `SKILL.md`). */
  readonly path?: string;
  readonly maxBytes?: number;
}

export interface ReadSkillResult {
  readonly skill: string;
  readonly path: string;
  readonly text: string;
  readonly truncated: boolean;
}

/**
 * Returns a file of one of the snapshot's skills. The SKILL.md comes back with `{baseDir}`
 * expanded to the skill's folder. Paths that leave the skill's folder (`..`, absolute paths
 * elsewhere, symbolic links pointing out) are refused, as are skills not in the snapshot.
 */
export async function readSkillFile(
  snapshot: SkillsSnapshot,
  request: ReadSkillRequest,
): Promise<ReadSkillResult> {
  const skill = findSkill(snapshot, request.skill);
  const maxBytes = request.maxBytes ?? 256 * 1024;
  const requested = request.path ?? (isAbsolute(request.skill) ? request.skill : 'SKILL.md');
  const absolute = resolve(skill.baseDirectory, requested);
  const realBase = await realpath(skill.baseDirectory);
  let realFile: string;
  try {
    realFile = await realpath(absolute);
  } catch {
    throw new SkillsError(
      'SKILLS_UNKNOWN_SKILL',
      `file ${requested} does not exist in skill "${skill.name}"`,
      {
        details: { skill: skill.name, path: requested },
      },
    );
  }
  if (realFile !== realBase && !realFile.startsWith(realBase + sep)) {
    throw new SkillsError(
      'SKILLS_INVALID_OPTIONS',
      `path ${requested} is outside the folder of skill "${skill.name}"`,
      {
        details: { skill: skill.name, path: requested },
      },
    );
  }
  const info = await stat(realFile);
  if (!info.isFile()) {
    throw new SkillsError('SKILLS_INVALID_OPTIONS', `${requested} in skill "${skill.name}" is not a file`);
  }
  const buffer = await readFile(realFile);
  const shown = relative(realBase, realFile).split(sep).join('/');
  let text = buffer.subarray(0, maxBytes).toString('utf8');
  if (shown === 'SKILL.md') text = expandBaseDirectory(text, skill.baseDirectory);
  return { skill: skill.name, path: realFile, text, truncated: buffer.length > maxBytes };
}

function findSkill(snapshot: SkillsSnapshot, wanted: string): SnapshotSkill {
  const byName = snapshot.skills.find((skill) => skill.name === wanted);
  if (byName !== undefined) return byName;
  if (isAbsolute(wanted)) {
    const path = resolve(wanted);
    const holder = snapshot.skills.find(
      (skill) => path === skill.location || path.startsWith(resolve(skill.baseDirectory) + sep),
    );
    if (holder !== undefined) return holder;
  }
  throw new SkillsError(
    'SKILLS_UNKNOWN_SKILL',
    `no skill "${wanted}" is available to this session (available: ${snapshot.skills.map((skill) => skill.name).join(', ') || 'none'})`,
    { details: { skill: wanted } },
  );
}
