import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt, createBootstrapLoader, estimateTokens } from './system-prompt.ts';

describe('system prompt', () => {
  it('includes identity, date, channel, tools and bootstrap files, and stays small', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'switchboard-prompt-'));
    writeFileSync(join(workspace, 'SOUL.md'), 'Be kind.');
    writeFileSync(join(workspace, 'AGENTS.md'), 'You help with the house.');
    const load = createBootstrapLoader();
    const prompt = buildSystemPrompt({
      agentId: 'home',
      agentName: 'Home',
      bootstrapFiles: await load(workspace),
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
    const build = async () =>
      buildSystemPrompt({
        agentId: 'main',
        bootstrapFiles: await load(workspace),
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
