// What skills cost a turn: a cold scan of 150 skill folders, a warm report (cached discovery,
// eligibility re-evaluated) and a session's snapshot hit (what every later turn pays).
// Run: pnpm --filter @switchboard/skills bench
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSkillsManager } from '../src/skills-manager.ts';

const skillCount = 150;
const rounds = 15;

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const base = await mkdtemp(join(tmpdir(), 'skills-bench-'));
try {
  for (let index = 0; index < skillCount; index += 1) {
    const folder = join(base, 'skills', `group-${index % 10}`, `skill-${index}`);
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, 'SKILL.md'),
      `---\nname: skill-${index}\ndescription: Does task number ${index}; use when the user asks for it.\nmetadata: {"openclaw":{"requires":{"bins":["sh"],"env":["HOME"]}}}\n---\n# Skill ${index}\n`,
    );
  }
  const cold: number[] = [];
  const warm: number[] = [];
  const hit: number[] = [];
  let characters = 0;
  for (let round = 0; round < rounds; round += 1) {
    const manager = createSkillsManager({
      roots: () => [{ tier: 'extra', directory: join(base, 'skills') }],
      settings: () => ({}),
      watch: false,
    });
    const query = { agentId: 'main', workspaceDirectory: base };
    let started = performance.now();
    const report = await manager.report(query);
    cold.push(performance.now() - started);
    characters = report.catalogue.text.length;
    started = performance.now();
    await manager.report(query);
    warm.push(performance.now() - started);
    await manager.snapshot('session', query);
    started = performance.now();
    await manager.snapshot('session', query);
    hit.push(performance.now() - started);
    await manager.close();
  }
  console.log(`${skillCount} skills, catalogue ${characters} characters`);
  console.log(`cold scan + eligibility: median ${median(cold).toFixed(2)} ms`);
  console.log(`warm report (no disk scan): median ${median(warm).toFixed(2)} ms`);
  console.log(`snapshot hit (every later turn of a session): median ${(median(hit) * 1000).toFixed(1)} µs`);
  console.log(`cold / warm ratio: ${(median(cold) / median(warm)).toFixed(1)}x`);
} finally {
  await rm(base, { recursive: true, force: true });
}
