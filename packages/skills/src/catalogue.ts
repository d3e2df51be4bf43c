// The `## Skills` prompt section: an instruction and the `<available_skills>` catalogue,
// inside the character and count budgets.

/** One skill as the model sees it in the catalogue. */
export interface CatalogueSkill {
  readonly name: string;
  readonly description: string;
  /** Absolute path of its SKILL.md. */
  readonly location: string;
}

/** `skills.limits` (OpenClaw's names and defaults). */
export interface SkillLimits {
  readonly maxSkillsPromptChars: number;
  readonly maxSkillsInPrompt: number;
  readonly maxSkillFileBytes: number;
}

export const defaultSkillLimits: SkillLimits = {
  maxSkillsPromptChars: 18_000,
  maxSkillsInPrompt: 150,
  maxSkillFileBytes: 256 * 1024,
};

/** Descriptions are cut to this many characters when the catalogue is over its budget. */
const shortDescriptionChars = 220;

/** What the budgets did to the catalogue: the log line and `skills list` say it. */
export interface CatalogueTrimming {
  readonly shortenedDescriptions: boolean;
  readonly droppedDescriptions: boolean;
  /** Skills left out, with the limit that left each out. */
  readonly dropped: ReadonlyArray<{
    readonly name: string;
    readonly limit: 'maxSkillsInPrompt' | 'maxSkillsPromptChars';
  }>;
}

export interface Catalogue {
  /** The section text; empty when no skill is offered. */
  readonly text: string;
  /** The skills in it, in prompt order (by name). */
  readonly skills: readonly CatalogueSkill[];
  readonly trimming: CatalogueTrimming;
}

export interface RenderCatalogueOptions {
  readonly limits?: Partial<SkillLimits>;
  /** The tool the instruction tells the model to read a skill with (default `read`). */
  readonly readTool?: string;
}

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

function instruction(readTool: string): string {
  return [
    `Skills are procedures written down for you. Before replying, scan <available_skills>:`,
    `- one skill clearly applies: read the file at its exact <location> with the ${readTool} tool, then follow it;`,
    '- several apply: read the most specific one;',
    '- none applies: read none.',
    'Read at most one skill up front; paths in a skill are relative to its folder.',
  ].join('\n');
}

function shorten(text: string, chars: number): string {
  if (text.length <= chars) return text;
  return `${text.slice(0, chars - 1).trimEnd()}…`;
}

function skillLine(skill: CatalogueSkill): string {
  return `<skill><name>${escapeXml(skill.name)}</name><description>${escapeXml(skill.description)}</description><location>${escapeXml(skill.location)}</location></skill>`;
}

function renderText(lines: readonly string[], readTool: string): string {
  if (lines.length === 0) return '';
  return ['## Skills', instruction(readTool), '<available_skills>', ...lines, '</available_skills>'].join(
    '\n',
  );
}

/** The length renderText would give, without building the string. */
function renderedLength(lines: readonly string[], readTool: string): number {
  if (lines.length === 0) return 0;
  const frame = ['## Skills', instruction(readTool), '<available_skills>', '</available_skills>'];
  return (
    [...frame, ...lines].reduce((total, line) => total + line.length, 0) + frame.length + lines.length - 1
  );
}

/**
 * Renders the catalogue. The order is by name (then location), never discovery or map
 * order, so the same skills give the same bytes. Over `maxSkillsInPrompt`, the last skills
 * by name are left out; over `maxSkillsPromptChars`, descriptions are first shortened to 220
 * characters, then dropped (name and location stay), and only then skills left out.
 */
export function renderCatalogue(
  input: readonly CatalogueSkill[],
  options: RenderCatalogueOptions = {},
): Catalogue {
  const limits = { ...defaultSkillLimits, ...options.limits };
  const readTool = options.readTool ?? 'read';
  const sorted = [...input].sort((left, right) =>
    left.name === right.name ? compare(left.location, right.location) : compare(left.name, right.name),
  );
  const dropped: Array<CatalogueTrimming['dropped'][number]> = [];
  let skills = sorted.slice(0, limits.maxSkillsInPrompt);
  for (const skill of sorted.slice(limits.maxSkillsInPrompt))
    dropped.push({ name: skill.name, limit: 'maxSkillsInPrompt' });
  let shortenedDescriptions = false;
  let droppedDescriptions = false;
  let lines = skills.map(skillLine);
  if (renderedLength(lines, readTool) > limits.maxSkillsPromptChars) {
    shortenedDescriptions = skills.some((skill) => skill.description.length > shortDescriptionChars);
    skills = skills.map((skill) => ({
      ...skill,
      description: shorten(skill.description, shortDescriptionChars),
    }));
    lines = skills.map(skillLine);
  }
  if (renderedLength(lines, readTool) > limits.maxSkillsPromptChars) {
    droppedDescriptions = true;
    skills = skills.map((skill) => ({ ...skill, description: '' }));
    lines = skills.map(skillLine);
  }
  let length = renderedLength(lines, readTool);
  while (length > limits.maxSkillsPromptChars && skills.length > 0) {
    const last = skills.at(-1)!;
    dropped.push({ name: last.name, limit: 'maxSkillsPromptChars' });
    skills = skills.slice(0, -1);
    lines = lines.slice(0, -1);
    length = renderedLength(lines, readTool);
  }
  return {
    text: renderText(lines, readTool),
    skills,
    trimming: { shortenedDescriptions, droppedDescriptions, dropped },
  };
}

// Code-unit order, not localeCompare: the same on every machine and locale.
function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
