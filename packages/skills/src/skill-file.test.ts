import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandBaseDirectory, parseSkillFile } from './skill-file.ts';

const openclawStyle = readFileSync(
  join(import.meta.dirname, '../test/fixtures/openclaw-style/gh-issues/SKILL.md'),
  'utf8',
);

function parse(text: string) {
  return parseSkillFile(text, { path: '/skills/demo/SKILL.md', folderName: 'demo' });
}

describe('parseSkillFile', () => {
  it("reads OpenClaw's multi-line JSON5 metadata with trailing commas and YAML escapes", () => {
    const result = parse(openclawStyle);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.skill.name).toBe('gh-issues');
    expect(result.skill.description).toMatch(/^Triage GitHub issues with the `gh` CLI/);
    expect(result.skill.homepage).toBe('https://cli.github.com/manual/');
    expect(result.skill.userInvocable).toBe(true);
    expect(result.skill.disableModelInvocation).toBe(false);
    expect(result.skill.metadata).toEqual({
      always: false,
      emoji: '🐛',
      os: [],
      requires: { bins: ['sh'], anyBins: [], env: ['GH_ISSUES_TOKEN'], config: [] },
      primaryEnv: 'GH_ISSUES_TOKEN',
    });
    expect(result.skill.body).toContain('{baseDir}/scripts/list.sh');
  });

  it('reads single-line JSON metadata, legacy clawdbot, and JSON5 in a string', () => {
    const single = parse(
      '---\nname: a\ndescription: d\nmetadata: {"clawdbot":{"always":true,"os":["linux"],"requires":{"anyBins":["x","y"]}}}\n---\n',
    );
    expect(single.ok && single.skill.metadata).toMatchObject({
      always: true,
      os: ['linux'],
      requires: { anyBins: ['x', 'y'] },
    });
    const string = parse(
      `---\ndescription: d\nmetadata: '{openclaw: {requires: {config: ["browser.enabled"],},},}'\n---\n`,
    );
    expect(string.ok && string.skill.metadata.requires.config).toEqual(['browser.enabled']);
  });

  it('falls back to the folder name and reads the booleans', () => {
    const result = parse(
      '---\ndescription: d\nuser-invocable: false\ndisable-model-invocation: true\n---\nbody',
    );
    expect(result).toMatchObject({
      ok: true,
      skill: { name: 'demo', userInvocable: false, disableModelInvocation: true, body: 'body' },
    });
  });

  it('reports malformed YAML with the file and the line, never throwing', () => {
    const result = parse('---\nname: demo\ndescription: Use when: it breaks\n---\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem).toMatchObject({
      code: 'SKILLS_FRONTMATTER_INVALID',
      path: '/skills/demo/SKILL.md',
      line: 3,
    });
    expect(result.problem.message).toMatch(/^\/skills\/demo\/SKILL\.md:3: invalid YAML frontmatter: /);
  });

  it('reports a missing description, a missing frontmatter and wrong types with their lines', () => {
    expect(parse('---\nname: x\n---\n')).toMatchObject({
      ok: false,
      problem: { code: 'SKILLS_DESCRIPTION_MISSING' },
    });
    expect(parse('# just markdown\n')).toMatchObject({
      ok: false,
      problem: { code: 'SKILLS_FRONTMATTER_MISSING', line: 1 },
    });
    expect(parse('---\ndescription: d\nuser-invocable: maybe\n---\n')).toMatchObject({
      ok: false,
      problem: { code: 'SKILLS_FRONTMATTER_INVALID', line: 3 },
    });
    const metadata = parse(
      '---\ndescription: d\n\nmetadata: {"openclaw": {"requires": {"bins": "x y"}, "os": ["beos"]}}\n---\n',
    );
    expect(metadata).toMatchObject({ ok: false, problem: { code: 'SKILLS_METADATA_INVALID', line: 4 } });
    expect(!metadata.ok && metadata.problem.message).toContain('"beos"');
    const json5 = parse(`---\ndescription: d\nmetadata: '{openclaw: {'\n---\n`);
    expect(json5).toMatchObject({ ok: false, problem: { code: 'SKILLS_METADATA_INVALID', line: 3 } });
  });

  it('expands {baseDir} to the skill folder', () => {
    expect(expandBaseDirectory('run {baseDir}/a.sh and {baseDir}/b.sh', '/s/x')).toBe(
      'run /s/x/a.sh and /s/x/b.sh',
    );
  });
});
