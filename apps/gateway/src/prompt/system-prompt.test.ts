import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatewayConfigSchema } from '../config/schema.ts';
import { createPromptSectionRegistry, type PromptSectionContext } from '../extensions/prompt-sections.ts';
import {
  type BootstrapLoader,
  coreSections,
  createBootstrapLoader,
  estimateTokens,
} from './system-prompt.ts';

const config = gatewayConfigSchema.parse({});

/** The system prompt of the gateway's own sections, as a turn assembles it. */
function buildSystemPrompt(
  loadBootstrap: BootstrapLoader,
  context: Omit<PromptSectionContext, 'config' | 'sessionKey' | 'sessionId'>,
): Promise<string> {
  const registry = createPromptSectionRegistry();
  for (const section of coreSections(loadBootstrap)) registry.register(section);
  return registry.assemble({
    config,
    sessionKey: `agent:${context.agentId}:main`,
    sessionId: 'session-1',
    ...context,
  });
}

describe('system prompt', () => {
  it('includes identity, date, channel, tools and bootstrap files, and stays small', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'switchboard-prompt-'));
    writeFileSync(join(workspace, 'SOUL.md'), 'Be kind.');
    writeFileSync(join(workspace, 'AGENTS.md'), 'You help with the house.');
    const prompt = await buildSystemPrompt(createBootstrapLoader(), {
      agentId: 'home',
      agentName: 'Home',
      workspaceDir: workspace,
      tools: [{ name: 'read', description: 'Read a file from the workspace.' }],
      date: '2026-11-22',
      timeZone: 'UTC',
      channel: { name: 'telegram', chatType: 'direct' },
    });
    expect(prompt).toContain('You are Home');
    expect(prompt).toContain('Today is 2026-11-22 (UTC).');
    expect(prompt).toContain('telegram, in a direct conversation');
    expect(prompt).toContain('- read: Read a file');
    expect(prompt.indexOf('## AGENTS.md')).toBeLessThan(prompt.indexOf('## SOUL.md'));
    expect(prompt).not.toContain('USER.md');
    expect(estimateTokens(prompt)).toBeLessThan(3000);
  });

  it('is byte-identical between turns until a bootstrap file changes', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'switchboard-prompt-'));
    writeFileSync(join(workspace, 'USER.md'), 'The user is Ada.');
    let time = 0;
    const load = createBootstrapLoader(4000, { now: () => time });
    const build = () =>
      buildSystemPrompt(load, {
        agentId: 'main',
        workspaceDir: workspace,
        tools: [],
        date: '2026-11-22',
        timeZone: 'UTC',
      });
    const first = await build();
    expect(await build()).toBe(first);
    writeFileSync(join(workspace, 'USER.md'), 'The user is Grace.');
    utimesSync(join(workspace, 'USER.md'), new Date(), new Date(Date.now() + 5000));
    expect(await build()).toBe(first);
    time += 2000;
    const changed = await build();
    expect(changed).not.toBe(first);
    expect(changed).toContain('Grace');
  });

  it('truncates large bootstrap files and says so', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'switchboard-prompt-'));
    writeFileSync(join(workspace, 'TOOLS.md'), 'x'.repeat(10_000));
    const files = await createBootstrapLoader(1000)(workspace);
    expect(files[0]).toMatchObject({ name: 'TOOLS.md', truncated: true });
    expect(files[0]?.text.length).toBe(1000);
  });
});

describe('prompt sections', () => {
  it('places a feature section by its order and leaves out one that fails', async () => {
    const registry = createPromptSectionRegistry();
    for (const section of coreSections(async () => [])) registry.register(section);
    registry.register({ id: 'skills', order: 600, render: () => '## Skills\n- weather' });
    registry.register({
      id: 'broken',
      order: 650,
      render: () => {
        throw new Error('index missing');
      },
    });
    const failures: string[] = [];
    const prompt = await registry.assemble(
      {
        config,
        agentId: 'main',
        sessionKey: 'agent:main:main',
        sessionId: 'session-1',
        workspaceDir: '/nonexistent',
        tools: [],
        date: '2026-11-25',
        timeZone: 'UTC',
      },
      (section) => failures.push(section),
    );
    expect(registry.ids()).toEqual([
      'identity',
      'date',
      'channel',
      'tools',
      'reply-rules',
      'skills',
      'broken',
      'bootstrap-files',
    ]);
    expect(prompt.indexOf('NO_REPLY')).toBeLessThan(prompt.indexOf('## Skills'));
    expect(failures).toEqual(['broken']);
    expect(() => registry.register({ id: 'skills', order: 1, render: () => 'x' })).toThrow(/already/);
  });
});
