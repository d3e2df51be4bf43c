// Reads the operator-facing files at the repo root, for tests that hold them to what they say.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const repositoryRoot: string = join(import.meta.dirname, '..', '..', '..');

export function readRootFile(path: string): string {
  return readFileSync(join(repositoryRoot, path), 'utf8');
}

/** The fenced command under a `## heading` of README.md (what scripts/readme-command.sh prints). */
export function readmeCommand(heading: string): string {
  const section = readRootFile('README.md')
    .split(/^## /m)
    .find((part) => part.startsWith(`${heading}\n`));
  const command = section === undefined ? undefined : /^```sh\n([^\n]+)\n```/m.exec(section)?.[1];
  if (command === undefined) throw new Error(`README.md has no command under "## ${heading}"`);
  return command;
}
