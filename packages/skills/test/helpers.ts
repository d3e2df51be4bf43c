import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

/** A fresh temporary directory, removed after the test. */
export async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'skills-test-'));
  made.push(directory);
  return directory;
}

/** Writes a SKILL.md (frontmatter from `fields`, or `raw` text) into `folder`; returns its path. */
export async function writeSkill(
  folder: string,
  fields: { name?: string; description?: string; extra?: string } | string,
  body = '# Body\n',
): Promise<string> {
  const path = join(folder, 'SKILL.md');
  await mkdir(dirname(path), { recursive: true });
  const text =
    typeof fields === 'string'
      ? fields
      : [
          '---',
          ...(fields.name === undefined ? [] : [`name: ${fields.name}`]),
          ...(fields.description === undefined ? [] : [`description: ${fields.description}`]),
          ...(fields.extra === undefined ? [] : [fields.extra]),
          '---',
          body,
        ].join('\n');
  await writeFile(path, text);
  return path;
}
