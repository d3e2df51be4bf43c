import { cp, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test/helpers.ts';
import { findSkillCommand, skillCommandName, skillCommandPrompt } from './commands.ts';
import { skillCommandEnvironment } from './environment.ts';
import { SkillsError } from './errors.ts';
import { readSkillFile } from './skill-reader.ts';
import { createSkillsManager } from './skills-manager.ts';

async function snapshotWithFixture() {
  const base = await temporaryDirectory();
  const folder = join(base, 'skills', 'gh-issues');
  await cp(join(import.meta.dirname, '../test/fixtures/openclaw-style/gh-issues'), folder, {
    recursive: true,
  });
  await writeFile(join(base, 'secret.txt'), 'outside');
  const manager = createSkillsManager({
    roots: () => [{ tier: 'extra', directory: join(base, 'skills') }],
    settings: () => ({}),
    environment: { GH_ISSUES_TOKEN: 'x' },
    binaries: { where: 'test', has: async () => true },
    watch: false,
  });
  const snapshot = await manager.snapshot('s', { agentId: 'main', workspaceDirectory: base });
  return { base, folder, snapshot };
}

describe('readSkillFile', () => {
  it('reads SKILL.md by name or location with {baseDir} expanded, and files beside it', async () => {
    const { folder, snapshot } = await snapshotWithFixture();
    const byName = await readSkillFile(snapshot, { skill: 'gh-issues' });
    expect(byName.text).toContain(`${folder}/scripts/list.sh`);
    expect(byName.text).not.toContain('{baseDir}');
    const byLocation = await readSkillFile(snapshot, { skill: join(folder, 'SKILL.md') });
    expect(byLocation.text).toBe(byName.text);
    const reference = await readSkillFile(snapshot, { skill: 'gh-issues', path: 'references/labels.md' });
    expect(reference.text).toContain('bug, feature, question');
  });

  it('refuses paths outside the skill folder, links leading out, and skills not in the snapshot', async () => {
    const { base, folder, snapshot } = await snapshotWithFixture();
    await expect(readSkillFile(snapshot, { skill: 'gh-issues', path: '../../secret.txt' })).rejects.toThrow(
      /outside the folder of skill "gh-issues"/,
    );
    await symlink(join(base, 'secret.txt'), join(folder, 'link.txt'));
    await expect(readSkillFile(snapshot, { skill: 'gh-issues', path: 'link.txt' })).rejects.toThrow(
      /outside/,
    );
    await expect(readSkillFile(snapshot, { skill: join(base, 'secret.txt') })).rejects.toThrow(SkillsError);
    await expect(readSkillFile(snapshot, { skill: 'nope' })).rejects.toThrow(
      /no skill "nope" .*available: gh-issues/,
    );
  });
});

describe('skill commands and environment', () => {
  it('maps /name to a user-invocable skill and words the turn', async () => {
    const { folder, snapshot } = await snapshotWithFixture();
    expect(skillCommandName('My Skill.v2')).toBe('my_skill_v2');
    const skill = findSkillCommand(snapshot, 'GH-ISSUES');
    expect(skill?.name).toBe('gh-issues');
    expect(findSkillCommand(snapshot, 'other')).toBeUndefined();
    expect(skillCommandPrompt(skill!, ' list bugs ')).toBe(
      `The user invoked the skill "gh-issues" with /gh-issues.\nRead ${join(folder, 'SKILL.md')} with the read tool and follow it for this request:\nlist bugs`,
    );
  });

  it("gives a skill's entry env and apiKey only to commands in or naming its folder", async () => {
    const { base, folder, snapshot } = await snapshotWithFixture();
    const entries = { 'gh-issues': { env: { EXTRA: '1' }, apiKey: 'secret' } };
    expect(
      skillCommandEnvironment(snapshot.skills, entries, { command: `${folder}/scripts/list.sh` }),
    ).toEqual({
      EXTRA: '1',
      GH_ISSUES_TOKEN: 'secret',
    });
    expect(
      skillCommandEnvironment(snapshot.skills, entries, { command: './scripts/list.sh', cwd: folder }),
    ).toEqual({
      EXTRA: '1',
      GH_ISSUES_TOKEN: 'secret',
    });
    expect(skillCommandEnvironment(snapshot.skills, entries, { command: 'env', cwd: base })).toEqual({});
  });
});
