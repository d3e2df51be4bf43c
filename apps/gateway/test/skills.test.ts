// Skills end to end: an OpenClaw-style skill folder copied unchanged into the workspace
// reaches the fake Anthropic model's system prompt as a catalogue, the model reads it with
// skill_read and follows it; the catalogue stays byte-identical across turns of a session
// (and after an edit on disk) while a new session sees the edit; operators see every skill
// left out and why (skills.status, switchboard skills list|info).
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodes } from '../src/cli/main.ts';
import { runCliOn, startTestGateway, type TestGateway } from './harness.ts';

const fixture = join(import.meta.dirname, '../../../packages/skills/test/fixtures/openclaw-style/gh-issues');

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

async function start(
  config: Record<string, unknown>,
  turns: NonNullable<Parameters<typeof startTestGateway>[0]>['model'],
) {
  const harness = await startTestGateway({ config, model: turns });
  running.push(harness);
  return harness;
}

/** The `## Skills` section of a system prompt, up to the end of the catalogue. */
function skillsSection(request: RecordedRequest | undefined): string {
  const text = request?.systemText ?? '';
  const start = text.indexOf('## Skills');
  const end = text.indexOf('</available_skills>');
  return start === -1 || end === -1 ? '' : text.slice(start, end + '</available_skills>'.length);
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('gateway: skills', () => {
  it('offers a copied OpenClaw skill, the model reads and follows it, and the catalogue is byte-stable', async () => {
    const harness = await start(
      { skills: { entries: { 'gh-issues': { apiKey: 'test-token' } }, load: { watchDebounceMs: 50 } } },
      {
        turns: [
          // Turn 1: the model picks the skill from the catalogue and reads its exact location.
          (request) => {
            const location = /<location>([^<]+)<\/location>/.exec(request.systemText)?.[1];
            if (location === undefined) return { text: 'no skill catalogue' };
            return { toolCalls: [{ name: 'skill_read', input: { skill: location } }] };
          },
          // ...then follows what it read.
          (request) => {
            const read = JSON.stringify(request.messages.at(-1));
            return read.includes('the word TRIAGED at the end')
              ? { text: 'bug: 1\nTRIAGED' }
              : { text: 'the skill was not read' };
          },
          { text: 'second turn' },
          { text: 'third turn' },
          { text: 'new session' },
        ],
      },
    );
    const workspace = join(harness.stateDirectory, 'workspace');
    const folder = join(workspace, 'skills', 'gh-issues');
    await cp(fixture, folder, { recursive: true });
    const client = await harness.connect();

    const first = await client.requestFinal('agent', { message: 'triage my issues', idempotencyKey: 'one' });
    expect(first.final.payload).toMatchObject({
      status: 'ok',
      result: { payloads: [{ text: 'bug: 1\nTRIAGED' }] },
    });
    const [catalogueRequest, followRequest] = harness.model.messageRequests;
    const section = skillsSection(catalogueRequest);
    expect(section).toContain(
      `<skill><name>gh-issues</name><description>Triage GitHub issues with the \`gh\` CLI: list, label and comment. Use when the user asks about issues in a repository.</description><location>${join(folder, 'SKILL.md')}</location></skill>`,
    );
    expect(catalogueRequest?.toolNames).toContain('skill_read');
    // The tool result carried the body with {baseDir} expanded.
    expect(JSON.stringify(followRequest?.messages.at(-1))).toContain(`${folder}/scripts/list.sh`);

    await client.requestFinal('agent', { message: 'again', idempotencyKey: 'two' });
    expect(skillsSection(harness.model.lastRequest)).toBe(section);
    expect(harness.model.lastRequest?.systemText).toBe(catalogueRequest?.systemText);

    // An edit on disk: the running session keeps its catalogue, a new session sees it.
    const status = async () => (await client.request('skills.status', {})).payload as { version: number };
    const before = (await status()).version;
    await mkdir(join(workspace, 'skills', 'release-notes'), { recursive: true });
    await writeFile(
      join(workspace, 'skills', 'release-notes', 'SKILL.md'),
      '---\nname: release-notes\ndescription: Write release notes from merged pull requests.\n---\n# Release notes\n',
    );
    await until(async () => (await status()).version > before, 'the watcher to bump the skills version');
    await client.requestFinal('agent', { message: 'third', idempotencyKey: 'three' });
    expect(skillsSection(harness.model.lastRequest)).toBe(section);

    await client.requestFinal('agent', {
      message: 'hello',
      idempotencyKey: 'four',
      sessionKey: 'agent:main:fresh',
    });
    const fresh = skillsSection(harness.model.lastRequest);
    expect(fresh).toContain('<name>release-notes</name>');
    expect(fresh).toContain('<name>gh-issues</name>');
  });

  it('shows every skill left out with its reason (skills.status, skills list, skills info)', async () => {
    const harness = await start(
      {
        skills: { entries: { 'switched-off': { enabled: false } } },
        agents: {
          defaults: { model: 'anthropic/claude-sonnet-4-6' },
          list: [
            { id: 'main', default: true },
            { id: 'ops', workspace: 'workspace', skills: ['needs-bin'] },
          ],
        },
      },
      { turns: [{ text: 'ok' }] },
    );
    const workspace = join(harness.stateDirectory, 'workspace');
    const skill = async (folder: string, text: string) => {
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, 'SKILL.md'), text);
    };
    await cp(fixture, join(workspace, 'skills', 'gh-issues'), { recursive: true });
    await skill(
      join(workspace, 'skills', 'needs-bin'),
      '---\nname: needs-bin\ndescription: d\nmetadata: {"openclaw":{"requires":{"bins":["switchboard-no-such-tool"]}}}\n---\n',
    );
    await skill(
      join(workspace, 'skills', 'other-os'),
      '---\nname: other-os\ndescription: d\nmetadata: {"openclaw":{"os":["win32"]}}\n---\n',
    );
    await skill(join(workspace, 'skills', 'switched-off'), '---\nname: switched-off\ndescription: d\n---\n');
    await skill(join(workspace, 'skills', 'broken'), '---\nname: broken\ndescription: [oops\n---\n');
    await skill(
      join(harness.stateDirectory, 'skills', 'switched-off'),
      '---\nname: switched-off\ndescription: managed\n---\n',
    );

    const client = await harness.connect();
    const response = await client.request('skills.status', {});
    expect(response.ok).toBe(true);
    const payload = response.payload as {
      skills: Array<{ name: string; tier: string; state: string; why: string[] }>;
      problems: Array<{ code: string; path: string; line: number }>;
    };
    const byName = Object.fromEntries(
      payload.skills.map((entry) => [`${entry.name}@${entry.tier}`, [entry.state, entry.why]]),
    );
    expect(byName).toEqual({
      'gh-issues@workspace': [
        'excluded',
        ['missing env GH_ISSUES_TOKEN (set it, or skills.entries.<name>.env / apiKey)'],
      ],
      'needs-bin@workspace': ['excluded', ['missing bin switchboard-no-such-tool (on the host PATH)']],
      'other-os@workspace': ['excluded', [`wrong OS: needs win32, this is ${process.platform}`]],
      'switched-off@workspace': ['excluded', ['disabled (skills.entries.switched-off.enabled is false)']],
      'switched-off@managed': [
        'excluded',
        [
          `shadowed by ${join(workspace, 'skills', 'switched-off', 'SKILL.md')} (tier workspace)`,
          'disabled (skills.entries.switched-off.enabled is false)',
        ],
      ],
    });
    expect(payload.problems).toEqual([
      expect.objectContaining({
        code: 'SKILLS_FRONTMATTER_INVALID',
        path: join(workspace, 'skills', 'broken', 'SKILL.md'),
        line: 3,
      }),
    ]);

    const listed = await runCliOn(['skills', 'list', '--agent', 'ops'], harness);
    expect(listed.code).toBe(exitCodes.ok);
    expect(listed.stdout).toContain(
      'needs-bin  [left out] (workspace) — missing bin switchboard-no-such-tool (on the host PATH)',
    );
    expect(listed.stdout).toContain('other-os  [left out] (workspace) — wrong OS: needs win32');
    expect(listed.stdout).toContain('not in the skills list of agent "ops"');
    expect(listed.stdout).toMatch(/Not loaded:\n .*broken\/SKILL\.md:3: invalid YAML frontmatter/);

    const info = await runCliOn(['skills', 'info', 'gh-issues'], harness);
    expect(info.code).toBe(exitCodes.ok);
    expect(info.stdout).toContain(`location: ${join(workspace, 'skills', 'gh-issues', 'SKILL.md')}`);
    expect(info.stdout).toContain('left out: missing env GH_ISSUES_TOKEN');
    const unknown = await runCliOn(['skills', 'info', 'nope'], harness);
    expect(unknown.code).toBe(exitCodes.failed);
    expect(unknown.stderr).toContain('no skill "nope" was found for agent "main"');

    const doctor = await runCliOn(['doctor'], harness);
    expect(doctor.stdout).toMatch(
      /warn {2}skills: 0 in the prompt of agent "main"; left out: gh-issues \(missing env GH_ISSUES_TOKEN/,
    );
    expect(doctor.stdout).toContain('needs-bin (missing bin switchboard-no-such-tool (on the host PATH))');
    expect(doctor.stdout).toContain('not loaded: ');

    // Nothing is offered, so the system prompt has no skills section and no skill_read tool.
    await client.requestFinal('agent', { message: 'hi', idempotencyKey: 'x' });
    expect(harness.model.lastRequest?.systemText).not.toContain('## Skills');
    expect(harness.model.lastRequest?.toolNames).not.toContain('skill_read');
  });
});
