import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporaryDirectory, writeSkill } from '../test/helpers.ts';
import { discoverSkills } from './discovery.ts';
import { standardSkillRoots } from './roots.ts';

describe('discoverSkills', () => {
  it('gives a name to the highest tier and reports the others as shadowed', async () => {
    const base = await temporaryDirectory();
    const workspace = join(base, 'workspace');
    const roots = standardSkillRoots({
      workspaceDirectory: workspace,
      stateDirectory: join(base, 'state'),
      homeDirectory: join(base, 'home'),
      extraDirectories: [join(base, 'extra')],
      pluginDirectories: [{ plugin: 'weather', directory: join(base, 'plugin') }],
    });
    expect(roots.map((root) => root.tier)).toEqual([
      'workspace',
      'workspace_agents',
      'user',
      'managed',
      'extra',
      'plugin',
    ]);
    await writeSkill(join(base, 'plugin', 'deploy'), { name: 'deploy', description: 'plugin deploy' });
    await writeSkill(join(base, 'state', 'skills', 'deploy'), {
      name: 'deploy',
      description: 'managed deploy',
    });
    await writeSkill(join(base, 'home', '.agents', 'skills', 'deploy'), {
      name: 'deploy',
      description: 'user deploy',
    });
    await writeSkill(join(workspace, '.agents', 'skills', 'notes'), {
      name: 'notes',
      description: 'agents notes',
    });
    await writeSkill(join(base, 'extra', 'notes'), { name: 'notes', description: 'extra notes' });
    await writeSkill(join(base, 'plugin', 'forecast'), { name: 'forecast', description: 'plugin forecast' });

    const result = await discoverSkills(roots);
    const summary = result.skills.map((skill) => [
      skill.definition.name,
      skill.tier,
      skill.shadowedBy?.tier ?? null,
    ]);
    expect(summary).toEqual([
      ['notes', 'workspace_agents', null],
      ['deploy', 'user', null],
      ['deploy', 'managed', 'user'],
      ['notes', 'extra', 'workspace_agents'],
      ['deploy', 'plugin', 'user'],
      ['forecast', 'plugin', null],
    ]);
    expect(result.skills.find((skill) => skill.definition.name === 'forecast')?.plugin).toBe('weather');
    // A workspace skill beats them all.
    await writeSkill(join(workspace, 'skills', 'deploy'), {
      name: 'deploy',
      description: 'workspace deploy',
    });
    const again = await discoverSkills(roots);
    const winner = again.skills.find(
      (skill) => skill.definition.name === 'deploy' && skill.shadowedBy === undefined,
    );
    expect(winner?.definition.description).toBe('workspace deploy');
    expect(winner?.location).toBe(join(workspace, 'skills', 'deploy', 'SKILL.md'));
  });

  it('searches nested folders, stops below a SKILL.md, and respects the depth limit', async () => {
    const root = await temporaryDirectory();
    await writeSkill(join(root, 'group', 'team', 'lint'), { name: 'lint', description: 'nested' });
    await writeSkill(join(root, 'outer'), { name: 'outer', description: 'outer' });
    await writeSkill(join(root, 'outer', 'inner'), {
      name: 'inner',
      description: 'below a skill: not a skill',
    });
    await writeSkill(join(root, 'a', 'b', 'c', 'd'), { name: 'deep', description: 'four levels' });
    await writeSkill(join(root, 'node_modules', 'pkg'), { name: 'vendored', description: 'skipped' });
    await writeSkill(join(root, '.git', 'x'), { name: 'hidden', description: 'skipped' });
    const names = async (maxDepth: number) =>
      (await discoverSkills([{ tier: 'extra', directory: root }], { maxDepth })).skills.map(
        (skill) => skill.definition.name,
      );
    expect(await names(6)).toEqual(['deep', 'lint', 'outer']);
    expect(await names(3)).toEqual(['lint', 'outer']);
  });

  it('reports a malformed or oversized skill and still loads the rest', async () => {
    const root = await temporaryDirectory();
    await writeSkill(join(root, 'good'), { name: 'good', description: 'fine' });
    const broken = await writeSkill(join(root, 'broken'), '---\nname: broken\ndescription: [unclosed\n---\n');
    const big = await writeSkill(join(root, 'big'), { name: 'big', description: 'large' }, 'x'.repeat(2000));
    const result = await discoverSkills([{ tier: 'workspace', directory: root }], {
      maxSkillFileBytes: 1000,
    });
    expect(result.skills.map((skill) => skill.definition.name)).toEqual(['good']);
    expect(result.problems).toEqual([
      expect.objectContaining({ code: 'SKILLS_FILE_TOO_LARGE', path: big }),
      expect.objectContaining({ code: 'SKILLS_FRONTMATTER_INVALID', path: broken, line: 3 }),
    ]);
  });

  it('treats missing roots as empty and does not search a folder twice', async () => {
    const root = await temporaryDirectory();
    await writeSkill(join(root, 'one'), { name: 'one', description: 'd' });
    await writeFile(join(root, 'README.md'), 'not a skill');
    const result = await discoverSkills([
      { tier: 'workspace', directory: join(root, 'missing') },
      { tier: 'workspace', directory: root },
      { tier: 'extra', directory: root },
    ]);
    expect(result.skills.map((skill) => [skill.definition.name, skill.tier])).toEqual([['one', 'workspace']]);
  });
});
