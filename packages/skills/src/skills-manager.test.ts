import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@switchboard/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory, writeSkill } from '../test/helpers.ts';
import { resolveAgentSkillFilter } from './agent-filter.ts';
import { describeExclusion } from './eligibility.ts';
import { standardSkillRoots } from './roots.ts';
import { createSkillsManager, type SkillsManager, type SkillsManagerOptions } from './skills-manager.ts';

const managers: SkillsManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

function recordingLogger() {
  const lines: Array<{ level: string; message: string; fields?: unknown }> = [];
  const write = (level: string) => (message: string, fields?: unknown) =>
    lines.push({ level, message, fields });
  const logger: Logger = {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
  };
  return { logger, lines };
}

async function setUp(options: Partial<SkillsManagerOptions> = {}) {
  const base = await temporaryDirectory();
  const workspace = join(base, 'workspace');
  const manager = createSkillsManager({
    roots: (workspaceDirectory) =>
      standardSkillRoots({
        workspaceDirectory,
        stateDirectory: join(base, 'state'),
        homeDirectory: join(base, 'home'),
      }),
    settings: () => ({}),
    environment: {},
    binaries: { where: 'on the host PATH', has: async () => true },
    ...options,
  });
  managers.push(manager);
  return { base, workspace, manager };
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('per-agent filter', () => {
  it('uses the agent list over the defaults; [] means none; no key means all', () => {
    expect(resolveAgentSkillFilter(['a'], ['b'])).toEqual(['b']);
    expect(resolveAgentSkillFilter(['a'], undefined)).toEqual(['a']);
    expect(resolveAgentSkillFilter(['a'], [])).toEqual([]);
    expect(resolveAgentSkillFilter(undefined, undefined)).toBeUndefined();
  });

  it('leaves filtered skills out of the prompt and says why', async () => {
    const { workspace, manager } = await setUp({ watch: false });
    await writeSkill(join(workspace, 'skills', 'alpha'), { name: 'alpha', description: 'a' });
    await writeSkill(join(workspace, 'skills', 'beta'), { name: 'beta', description: 'b' });
    const all = await manager.report({ agentId: 'main', workspaceDirectory: workspace });
    expect(all.catalogue.skills.map((skill) => skill.name)).toEqual(['alpha', 'beta']);
    const onlyBeta = await manager.report({
      agentId: 'ops',
      workspaceDirectory: workspace,
      filter: ['beta'],
    });
    expect(onlyBeta.catalogue.skills.map((skill) => skill.name)).toEqual(['beta']);
    const alpha = onlyBeta.skills.find((skill) => skill.name === 'alpha');
    expect(alpha?.reasons.map(describeExclusion)).toEqual(['not in the skills list of agent "ops"']);
    const none = await manager.report({ agentId: 'quiet', workspaceDirectory: workspace, filter: [] });
    expect(none.catalogue.text).toBe('');
  });
});

describe('skills manager', () => {
  it('reports every skill with its state: eligible, shadowed, disabled, command-only, over budget, broken', async () => {
    const { logger, lines } = recordingLogger();
    const { base, workspace, manager } = await setUp({
      watch: false,
      settings: () => ({ entries: { off: { enabled: false } }, limits: { maxSkillsInPrompt: 2 } }),
      logger,
    });
    await writeSkill(join(workspace, 'skills', 'a-one'), { name: 'a-one', description: 'first' });
    await writeSkill(join(workspace, 'skills', 'b-two'), { name: 'b-two', description: 'second' });
    await writeSkill(join(workspace, 'skills', 'c-three'), { name: 'c-three', description: 'third' });
    await writeSkill(join(base, 'state', 'skills', 'a-one'), { name: 'a-one', description: 'managed copy' });
    await writeSkill(join(workspace, 'skills', 'off'), { name: 'off', description: 'disabled' });
    await writeSkill(join(workspace, 'skills', 'manual'), {
      name: 'manual',
      description: 'by command only',
      extra: 'disable-model-invocation: true',
    });
    await writeSkill(join(workspace, 'skills', 'broken'), '---\ndescription: "unterminated\n---\n');
    const report = await manager.report({ agentId: 'main', workspaceDirectory: workspace });
    const states = Object.fromEntries(
      report.skills.map((skill) => [
        `${skill.name}@${skill.tier}`,
        [skill.inPrompt, skill.command, skill.reasons.map(describeExclusion)],
      ]),
    );
    expect(states).toEqual({
      'a-one@workspace': [true, true, []],
      'b-two@workspace': [true, true, []],
      'c-three@workspace': [false, true, ['over budget (skills.limits.maxSkillsInPrompt = 2)']],
      'manual@workspace': [false, true, ['disable-model-invocation: only /command, not in the prompt']],
      'off@workspace': [false, false, ['disabled (skills.entries.off.enabled is false)']],
      'a-one@managed': [
        false,
        false,
        [`shadowed by ${join(workspace, 'skills', 'a-one', 'SKILL.md')} (tier workspace)`],
      ],
    });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'SKILLS_FRONTMATTER_INVALID',
        path: join(workspace, 'skills', 'broken', 'SKILL.md'),
      }),
    ]);
    expect(lines.some((line) => line.level === 'warn' && line.message.startsWith('skill not loaded:'))).toBe(
      true,
    );
    expect(lines.some((line) => line.level === 'warn' && line.message.includes('over budget'))).toBe(true);
    expect(lines.some((line) => line.message === 'skill "off" is not in the prompt of agent "main"')).toBe(
      true,
    );
  });

  it('keeps a session snapshot byte-identical after an edit; a new session sees the change', async () => {
    const { workspace, manager } = await setUp({ watch: { debounceMs: 50 } });
    await writeSkill(join(workspace, 'skills', 'alpha'), { name: 'alpha', description: 'first version' });
    const query = { agentId: 'main', workspaceDirectory: workspace };
    const first = await manager.snapshot('session-1', query);
    await manager.ready();
    expect(first.prompt).toContain('first version');
    const version = manager.version();

    await writeSkill(join(workspace, 'skills', 'alpha'), { name: 'alpha', description: 'second version' });
    await writeSkill(join(workspace, 'skills', 'beta'), { name: 'beta', description: 'added' });
    await until(() => manager.version() > version, 'the watcher to see the edit');
    await until(
      async () => (await manager.snapshot(`probe-${manager.version()}`, query)).prompt.includes('added'),
      'the new skill',
    );

    const again = await manager.snapshot('session-1', query);
    expect(again.prompt).toBe(first.prompt);
    const fresh = await manager.snapshot('session-2', query);
    expect(fresh.prompt).toContain('second version');
    expect(fresh.skills.map((skill) => skill.name)).toEqual(['alpha', 'beta']);
    expect(fresh.version).toBeGreaterThan(first.version);
  });

  it('sees a skills folder that did not exist when watching started', async () => {
    const { base, workspace, manager } = await setUp({ watch: { debounceMs: 50 } });
    const query = { agentId: 'main', workspaceDirectory: workspace };
    await writeFile(join(base, 'marker'), '');
    expect((await manager.report(query)).skills).toEqual([]);
    await manager.ready();
    await cp(
      join(import.meta.dirname, '../test/fixtures/openclaw-style/gh-issues'),
      join(workspace, 'skills', 'gh-issues'),
      {
        recursive: true,
      },
    );
    await until(async () => (await manager.report(query)).skills.length === 1, 'the copied skill');
    await rm(join(workspace, 'skills'), { recursive: true });
    await until(async () => (await manager.report(query)).skills.length === 0, 'the removal');
  });

  it('does not rescan the disk between changes (without a watcher, only refresh() rescans)', async () => {
    const { workspace, manager } = await setUp({ watch: false });
    await writeSkill(join(workspace, 'skills', 'alpha'), { name: 'alpha', description: 'd' });
    const query = { agentId: 'main', workspaceDirectory: workspace };
    expect((await manager.report(query)).skills).toHaveLength(1);
    await writeSkill(join(workspace, 'skills', 'beta'), { name: 'beta', description: 'd' });
    expect((await manager.report(query)).skills).toHaveLength(1);
    manager.refresh();
    expect((await manager.report(query)).skills).toHaveLength(2);
  });

  it('puts an OpenClaw skill folder copied unchanged into the catalogue', async () => {
    const { workspace, manager } = await setUp({
      watch: false,
      settings: () => ({ entries: { 'gh-issues': { apiKey: 'token' } } }),
    });
    const target = join(workspace, 'skills', 'gh-issues');
    await cp(join(import.meta.dirname, '../test/fixtures/openclaw-style/gh-issues'), target, {
      recursive: true,
    });
    const snapshot = await manager.snapshot('s', { agentId: 'main', workspaceDirectory: workspace });
    expect(snapshot.prompt).toContain(
      `<skill><name>gh-issues</name><description>Triage GitHub issues with the \`gh\` CLI: list, label and comment. Use when the user asks about issues in a repository.</description><location>${join(target, 'SKILL.md')}</location></skill>`,
    );
    expect(snapshot.skills[0]).toMatchObject({
      name: 'gh-issues',
      primaryEnv: 'GH_ISSUES_TOKEN',
      command: true,
    });
  });
});
