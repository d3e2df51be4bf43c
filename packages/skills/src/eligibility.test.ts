import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test/helpers.ts';
import { createHostBinaryProbe } from './binaries.ts';
import { checkEligibility, describeExclusion, type EligibilityContext } from './eligibility.ts';
import { parseSkillFile } from './skill-file.ts';

function skill(metadata: string, tier: 'workspace' | 'bundled' = 'workspace') {
  const parsed = parseSkillFile(`---\nname: demo\ndescription: d\nmetadata: ${metadata}\n---\n`, {
    path: '/x/SKILL.md',
    folderName: 'demo',
  });
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return { definition: parsed.skill, tier };
}

async function contextWithBin(overrides: Partial<EligibilityContext> = {}): Promise<EligibilityContext> {
  const bin = await temporaryDirectory();
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'present-tool'), '#!/bin/sh\n');
  await chmod(join(bin, 'present-tool'), 0o755);
  return {
    platform: 'linux',
    environment: { PRESENT_VAR: 'yes' },
    entries: {},
    config: { browser: { enabled: true }, empty: { list: [] } },
    binaries: createHostBinaryProbe({ path: bin }),
    ...overrides,
  };
}

describe('checkEligibility', () => {
  it('is eligible when every requirement is met, on a real PATH', async () => {
    const context = await contextWithBin();
    const demo = skill(
      '{"openclaw":{"os":["linux","darwin"],"requires":{"bins":["present-tool"],"anyBins":["absent","present-tool"],"env":["PRESENT_VAR"],"config":["browser.enabled"]}}}',
    );
    expect(await checkEligibility(demo, context)).toEqual([]);
  });

  it('names each failing requirement', async () => {
    const context = await contextWithBin();
    const demo = skill(
      '{"openclaw":{"os":["darwin"],"requires":{"bins":["present-tool","absent-tool"],"anyBins":["nope-a","nope-b"],"env":["ABSENT_VAR"],"config":["browser.headless","empty.list"]}}}',
    );
    const reasons = await checkEligibility(demo, context);
    expect(reasons).toEqual([
      { type: 'os_mismatch', required: ['darwin'], platform: 'linux' },
      { type: 'missing_bins', bins: ['absent-tool'], where: 'on the host PATH' },
      { type: 'missing_any_bin', anyOf: ['nope-a', 'nope-b'], where: 'on the host PATH' },
      { type: 'missing_env', env: ['ABSENT_VAR'] },
      { type: 'missing_config', paths: ['browser.headless', 'empty.list'] },
    ]);
    expect(reasons.map(describeExclusion)).toEqual([
      'wrong OS: needs darwin, this is linux',
      'missing bin absent-tool (on the host PATH)',
      'missing bin: needs one of nope-a, nope-b (on the host PATH)',
      'missing env ABSENT_VAR (set it, or skills.entries.<name>.env / apiKey)',
      'config browser.headless, empty.list not set',
    ]);
  });

  it('counts skills.entries env and apiKey (for primaryEnv) as set', async () => {
    const demo = skill('{"openclaw":{"primaryEnv":"API_TOKEN","requires":{"env":["API_TOKEN","OTHER"]}}}');
    const none = await contextWithBin();
    expect(await checkEligibility(demo, none)).toEqual([
      { type: 'missing_env', env: ['API_TOKEN', 'OTHER'] },
    ]);
    const given = await contextWithBin({ entries: { demo: { apiKey: 'k', env: { OTHER: 'o' } } } });
    expect(await checkEligibility(demo, given)).toEqual([]);
  });

  it('always skips requires but not os; disabled and allowBundled always apply', async () => {
    const always = skill(
      '{"openclaw":{"always":true,"os":["win32"],"requires":{"bins":["absent-tool"]}}}',
      'bundled',
    );
    const context = await contextWithBin({ entries: { demo: { enabled: false } }, allowBundled: ['other'] });
    expect(await checkEligibility(always, context)).toEqual([
      { type: 'disabled', key: 'demo' },
      { type: 'bundled_not_allowed', key: 'demo' },
      { type: 'os_mismatch', required: ['win32'], platform: 'linux' },
    ]);
    const onlyAlways = skill(
      '{"openclaw":{"always":true,"requires":{"bins":["absent-tool"],"env":["ABSENT"]}}}',
    );
    expect(await checkEligibility(onlyAlways, await contextWithBin())).toEqual([]);
  });

  it('checks bins with the probe it is given (a sandbox probe)', async () => {
    const demo = skill('{"openclaw":{"requires":{"bins":["jq"]}}}');
    const asked: string[] = [];
    const sandbox = {
      where: 'in the sandbox',
      has: async (name: string) => {
        asked.push(name);
        return false;
      },
    };
    expect(await checkEligibility(demo, await contextWithBin({ binaries: sandbox }))).toEqual([
      { type: 'missing_bins', bins: ['jq'], where: 'in the sandbox' },
    ]);
    expect(asked).toEqual(['jq']);
  });
});
