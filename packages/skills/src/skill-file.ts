// Parsing one SKILL.md: YAML frontmatter (the `yaml` library) plus a Markdown body, with
// OpenClaw's fields and its `metadata.openclaw` (or legacy `metadata.clawdbot`) object.
import JSON5 from 'json5';
import { isMap, isScalar, LineCounter, parseDocument, type YAMLError } from 'yaml';
import type { SkillsErrorCode } from './errors.ts';

/** The operating systems `metadata.openclaw.os` may name (Node's `process.platform` values). */
const skillOperatingSystems = ['darwin', 'linux', 'win32'] as const;
type SkillOperatingSystem = (typeof skillOperatingSystems)[number];

/** What a skill needs before it is offered (`metadata.openclaw.requires`). */
interface SkillRequirements {
  /** Every one of these executables must be on PATH. */
  readonly bins: readonly string[];
  /** At least one of these executables must be on PATH (ignored when empty). */
  readonly anyBins: readonly string[];
  /** Every one of these environment variables must be set (or given by `skills.entries.<key>.env`/`apiKey`). */
  readonly env: readonly string[];
  /** Every one of these config key paths (`browser.enabled`) must be truthy. */
  readonly config: readonly string[];
}

/** `metadata.openclaw` of a SKILL.md, normalised (lists default to empty). */
interface SkillMetadata {
  /** Offered even when a `requires` check fails (the `os` filter still applies). */
  readonly always: boolean;
  readonly emoji?: string;
  /** Empty: every OS. */
  readonly os: readonly SkillOperatingSystem[];
  readonly requires: SkillRequirements;
  /** The environment variable `skills.entries.<key>.apiKey` fills. */
  readonly primaryEnv?: string;
  /** The key of `skills.entries` for this skill (default: its name). */
  readonly skillKey?: string;
  readonly homepage?: string;
}

/** A parsed SKILL.md. */
export interface SkillDefinition {
  readonly name: string;
  readonly description: string;
  /** Registers `/name` as a chat command (default true). */
  readonly userInvocable: boolean;
  /** Kept out of the model's catalogue (still usable as `/name`). */
  readonly disableModelInvocation: boolean;
  readonly homepage?: string;
  readonly metadata: SkillMetadata;
  /** The Markdown after the frontmatter, as written (`{baseDir}` not yet expanded). */
  readonly body: string;
}

/** Why one SKILL.md could not be loaded: the file, the line when known, and what was wrong. */
export interface SkillProblem {
  readonly code: SkillsErrorCode;
  readonly path: string;
  /** 1-based line in the SKILL.md file. */
  readonly line?: number;
  readonly message: string;
}

export type ParseSkillResult =
  | { readonly ok: true; readonly skill: SkillDefinition }
  | { readonly ok: false; readonly problem: SkillProblem };

const frontmatterPattern = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n?^---[ \t]*(?:\r?\n|$)/m;

/** Replaces `{baseDir}` in a skill body with the skill's folder. */
export function expandBaseDirectory(body: string, baseDirectory: string): string {
  return body.replaceAll('{baseDir}', baseDirectory);
}

/**
 * Parses the text of a SKILL.md. Never throws: a malformed file comes back as a problem
 * naming the file (`path`) and, where it can, the line.
 */
export function parseSkillFile(
  text: string,
  options: { path: string; folderName: string },
): ParseSkillResult {
  const { path } = options;
  const fail = (code: SkillsErrorCode, message: string, line?: number): ParseSkillResult => ({
    ok: false,
    problem: { code, path, line, message },
  });
  const match = frontmatterPattern.exec(text);
  if (match === null || match.index !== 0) {
    return fail(
      'SKILLS_FRONTMATTER_MISSING',
      `${path}: expected YAML frontmatter between two "---" lines at the top of the file`,
      1,
    );
  }
  const source = match[1] ?? '';
  const body = text.slice(match[0].length);
  // The frontmatter starts on line 2 of the file.
  const fileLine = (frontmatterLine: number) => frontmatterLine + 1;
  const lineCounter = new LineCounter();
  const document = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const firstError: YAMLError | undefined = document.errors[0];
  if (firstError !== undefined) {
    const line = fileLine(lineCounter.linePos(firstError.pos[0]).line);
    const reason =
      firstError.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? 'invalid YAML';
    return fail('SKILLS_FRONTMATTER_INVALID', `${path}:${line}: invalid YAML frontmatter: ${reason}`, line);
  }
  const lineOf = (key: string): number | undefined => {
    const contents = document.contents;
    if (!isMap(contents)) return undefined;
    const pair = contents.items.find((item) => isScalar(item.key) && item.key.value === key);
    const start = (pair?.key as { range?: [number, number, number] } | undefined)?.range?.[0];
    return start === undefined ? undefined : fileLine(lineCounter.linePos(start).line);
  };
  const data: unknown = document.toJS();
  if (data === null || data === undefined) {
    return fail(
      'SKILLS_DESCRIPTION_MISSING',
      `${path}: the frontmatter is empty; "description" is required`,
      2,
    );
  }
  if (typeof data !== 'object' || Array.isArray(data)) {
    return fail(
      'SKILLS_FRONTMATTER_INVALID',
      `${path}:2: the frontmatter must be a mapping of keys to values`,
      2,
    );
  }
  const fields = data as Record<string, unknown>;
  const wrongType = (key: string, expected: string) =>
    fail(
      'SKILLS_FRONTMATTER_INVALID',
      `${path}:${lineOf(key) ?? 2}: "${key}" must be ${expected}, got ${describe(fields[key])}`,
      lineOf(key) ?? 2,
    );

  const rawName = fields.name;
  if (rawName !== undefined && (typeof rawName !== 'string' || rawName.trim() === '')) {
    return wrongType('name', 'a non-empty string');
  }
  const name = typeof rawName === 'string' ? rawName.trim() : options.folderName;
  const description = fields.description;
  if (description === undefined || description === null) {
    return fail(
      'SKILLS_DESCRIPTION_MISSING',
      `${path}: the frontmatter has no "description" (required: the model chooses skills by it)`,
      2,
    );
  }
  if (typeof description !== 'string' || description.trim() === '')
    return wrongType('description', 'a non-empty string');
  const userInvocable = readBoolean(fields['user-invocable'], true);
  if (userInvocable === undefined) return wrongType('user-invocable', 'true or false');
  const disableModelInvocation = readBoolean(fields['disable-model-invocation'], false);
  if (disableModelInvocation === undefined) return wrongType('disable-model-invocation', 'true or false');
  const homepage = fields.homepage;
  if (homepage !== undefined && typeof homepage !== 'string') return wrongType('homepage', 'a string');

  const metadataLine = lineOf('metadata') ?? 2;
  const metadata = readMetadata(fields.metadata);
  if (!metadata.ok) {
    return fail(
      'SKILLS_METADATA_INVALID',
      `${path}:${metadataLine}: metadata: ${metadata.message}`,
      metadataLine,
    );
  }
  return {
    ok: true,
    skill: {
      name,
      description: description.trim().replace(/\s+/g, ' '),
      userInvocable,
      disableModelInvocation,
      homepage,
      metadata: metadata.value,
      body,
    },
  };
}

function readBoolean(value: unknown, fallback: boolean): boolean | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? `"${value}"` : typeof value;
}

type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

const emptyMetadata: SkillMetadata = {
  always: false,
  os: [],
  requires: { bins: [], anyBins: [], env: [], config: [] },
};

/**
 * `metadata` holds `openclaw` (or legacy `clawdbot`): YAML parses the usual JSON5-looking
 * flow mapping itself; a string value is parsed as JSON5.
 */
function readMetadata(raw: unknown): Read<SkillMetadata> {
  if (raw === undefined || raw === null) return { ok: true, value: emptyMetadata };
  let container = raw;
  if (typeof raw === 'string') {
    try {
      container = JSON5.parse(raw);
    } catch (error) {
      return { ok: false, message: `not valid JSON5 (${(error as Error).message})` };
    }
  }
  if (typeof container !== 'object' || container === null || Array.isArray(container)) {
    return { ok: false, message: `expected an object, got ${describe(container)}` };
  }
  const record = container as Record<string, unknown>;
  const key = record.openclaw !== undefined ? 'openclaw' : 'clawdbot';
  let section = record[key];
  if (section === undefined || section === null) return { ok: true, value: emptyMetadata };
  if (typeof section === 'string') {
    try {
      section = JSON5.parse(section);
    } catch (error) {
      return { ok: false, message: `${key} is not valid JSON5 (${(error as Error).message})` };
    }
  }
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    return { ok: false, message: `${key} must be an object, got ${describe(section)}` };
  }
  const fields = section as Record<string, unknown>;
  const always = readBoolean(fields.always, false);
  if (always === undefined) return { ok: false, message: `${key}.always must be true or false` };
  const os = readStringList(fields.os, `${key}.os`);
  if (!os.ok) return os;
  const unknownOs = os.value.filter((name) => !(skillOperatingSystems as readonly string[]).includes(name));
  if (unknownOs.length > 0) {
    return {
      ok: false,
      message: `${key}.os names ${unknownOs.map((name) => `"${name}"`).join(', ')}; expected ${skillOperatingSystems.join(', ')}`,
    };
  }
  const requiresRaw = fields.requires ?? {};
  if (typeof requiresRaw !== 'object' || requiresRaw === null || Array.isArray(requiresRaw)) {
    return { ok: false, message: `${key}.requires must be an object, got ${describe(requiresRaw)}` };
  }
  const requiresFields = requiresRaw as Record<string, unknown>;
  const lists: Record<keyof SkillRequirements, readonly string[]> = {
    bins: [],
    anyBins: [],
    env: [],
    config: [],
  };
  for (const list of ['bins', 'anyBins', 'env', 'config'] as const) {
    const read = readStringList(requiresFields[list], `${key}.requires.${list}`);
    if (!read.ok) return read;
    lists[list] = read.value;
  }
  const strings: Partial<Record<'emoji' | 'primaryEnv' | 'skillKey' | 'homepage', string>> = {};
  for (const field of ['emoji', 'primaryEnv', 'skillKey', 'homepage'] as const) {
    const value = fields[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string')
      return { ok: false, message: `${key}.${field} must be a string, got ${describe(value)}` };
    strings[field] = value;
  }
  return { ok: true, value: { always, os: os.value as SkillOperatingSystem[], requires: lists, ...strings } };
}

function readStringList(value: unknown, label: string): Read<readonly string[]> {
  if (value === undefined || value === null) return { ok: true, value: [] };
  if (typeof value === 'string') return { ok: true, value: [value] };
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return { ok: true, value };
  return { ok: false, message: `${label} must be a list of strings, got ${describe(value)}` };
}
