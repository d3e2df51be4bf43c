// `switchboard skills list [--agent ID]` and `skills info NAME [--agent ID]`: every skill the
// running gateway found for an agent, with its state and, when it is not in the prompt,
// exactly why (missing bin, missing env, wrong OS, disabled, over budget, shadowed…).
import type { SkillsStatusResult } from '../extensions/skills.ts';
import type { CliGatewayClient } from './gateway-client.ts';
import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
}

type Values = Record<string, string | boolean | undefined>;

const stateWords = { eligible: 'in prompt', command_only: 'command only', excluded: 'left out' } as const;

function formatList(status: SkillsStatusResult): string {
  if (status.skills.length === 0 && status.problems.length === 0) {
    return `No skills found for agent "${status.agentId}". Put a folder with a SKILL.md in ${status.workspace}/skills.`;
  }
  const lines = [
    `Skills of agent "${status.agentId}" (${status.catalogue.skills} in the prompt, ${status.catalogue.characters} characters):`,
  ];
  for (const skill of status.skills) {
    const why = skill.why.length === 0 ? '' : ` — ${skill.why.join('; ')}`;
    lines.push(
      `  ${skill.emoji === undefined ? '' : `${skill.emoji} `}${skill.name}  [${stateWords[skill.state]}] (${skill.tier})${why}`,
    );
  }
  const { trimming } = status.catalogue;
  if (trimming.shortenedDescriptions)
    lines.push('  descriptions were shortened to fit skills.limits.maxSkillsPromptChars');
  if (trimming.droppedDescriptions)
    lines.push('  descriptions were left out to fit skills.limits.maxSkillsPromptChars');
  if (status.problems.length > 0) {
    lines.push('Not loaded:');
    for (const problem of status.problems) lines.push(`  ${problem.message} (${problem.code})`);
  }
  return lines.join('\n');
}

function formatInfo(status: SkillsStatusResult): string {
  return status.skills
    .map((skill) =>
      [
        `${skill.emoji === undefined ? '' : `${skill.emoji} `}${skill.name}: ${stateWords[skill.state]}`,
        `  ${skill.description}`,
        `  location: ${skill.location}`,
        `  tier: ${skill.tier}${skill.plugin === undefined ? '' : ` (plugin ${skill.plugin})`}`,
        `  command: ${skill.command ? `/${skill.name}` : 'no'}`,
        ...skill.why.map((reason) => `  left out: ${reason}`),
      ].join('\n'),
    )
    .join('\n\n');
}

/** `skills list|info`. Returns an exit code. */
export async function skillsCommand(
  words: readonly string[],
  values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const agentId = typeof values.agent === 'string' ? values.agent : undefined;
  const sub = words[1] ?? 'list';
  if (sub !== 'list' && sub !== 'info') {
    io.error(`unknown skills command: ${sub} (use skills list [--agent ID] or skills info NAME)\n`);
    return exitCodes.usage;
  }
  const name = words[2];
  if (sub === 'info' && name === undefined) {
    io.error('skills info needs a skill name: switchboard skills info NAME [--agent ID]\n');
    return exitCodes.usage;
  }
  return helpers.withClient(async (client) => {
    const status = (await client.request(
      'skills.status',
      { agentId, ...(sub === 'info' ? { name } : {}) },
      { timeoutMs: readTimeoutMs },
    )) as unknown as SkillsStatusResult;
    helpers.print(status, () => (sub === 'info' ? formatInfo(status) : formatList(status)));
    return exitCodes.ok;
  });
}

/**
 * The `skills` line of `doctor`: how many skills the default agent's prompt offers, and each
 * one left out (except shadowed copies) or not loaded, with why. A warning, never a failure.
 */
export async function skillsDoctorCheck(
  client: CliGatewayClient,
): Promise<{ name: string; ok: boolean; warning: true; detail: string; source: 'gateway' } | undefined> {
  let status: SkillsStatusResult;
  try {
    status = (await client.request(
      'skills.status',
      {},
      { timeoutMs: readTimeoutMs },
    )) as unknown as SkillsStatusResult;
  } catch {
    return undefined; // a gateway without skills.status: nothing to report
  }
  const leftOut = status.skills.filter(
    (skill) => skill.state === 'excluded' && !skill.reasons.some((reason) => reason.type === 'shadowed'),
  );
  const parts = [`${status.catalogue.skills} in the prompt of agent "${status.agentId}"`];
  if (leftOut.length > 0) {
    parts.push(`left out: ${leftOut.map((skill) => `${skill.name} (${skill.why.join('; ')})`).join(', ')}`);
  }
  if (status.problems.length > 0) {
    parts.push(`not loaded: ${status.problems.map((problem) => problem.message).join('; ')}`);
  }
  if (leftOut.length > 0 || status.problems.length > 0) parts.push('see switchboard skills list');
  return {
    name: 'skills',
    ok: leftOut.length === 0 && status.problems.length === 0,
    warning: true,
    detail: parts.join('; '),
    source: 'gateway',
  };
}
