// A generated corpus with known answers, shared by the tests and the bench: daily notes full of
// filler, each holding facts about a few unique subjects; a query names a subject and what
// is asked about it, and its answer is the note (path) holding that fact.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const fillers = [
  'Reviewed the inbox and answered the usual questions about invoices and schedules.',
  'Spent the afternoon on small fixes; nothing worth remembering beyond the changelog.',
  'Weekly sync went long; agreed to revisit priorities next week.',
  'Cleaned up old branches and closed stale tickets in the tracker.',
];
const attributes = ['favourite colour', 'home city', 'preferred editor', 'team name', 'pet'] as const;
const values = [
  'teal',
  'Lisbon',
  'Helix',
  'Falcons',
  'a tortoise',
  'crimson',
  'Osaka',
  'Zed',
  'Otters',
  'a parrot',
];

interface KnownAnswer {
  readonly query: string;
  readonly path: string;
}

export interface Corpus {
  readonly answers: readonly KnownAnswer[];
  readonly files: number;
}

/** Subject names that share no word with each other or with the filler. */
function subject(index: number): string {
  return `Person${index.toString(36)}x${(index * 7919).toString(36)}`;
}

/** Writes `notes` daily notes under `workspace/memory/`, `factsPerNote` facts each. */
export async function writeCorpus(workspace: string, notes: number, factsPerNote = 3): Promise<Corpus> {
  await mkdir(join(workspace, 'memory'), { recursive: true });
  const answers: KnownAnswer[] = [];
  const start = Date.UTC(2024, 0, 1);
  for (let note = 0; note < notes; note++) {
    const date = new Date(start + note * 86_400_000).toISOString().slice(0, 10);
    const path = `memory/${date}.md`;
    const lines = [`# ${date}`, ''];
    for (let fact = 0; fact < factsPerNote; fact++) {
      const index = note * factsPerNote + fact;
      const name = subject(index);
      const attribute = attributes[index % attributes.length]!;
      const value = values[(index * 3) % values.length]!;
      lines.push(
        `## ${name}`,
        '',
        fillers[index % fillers.length]!,
        `${name}'s ${attribute} is ${value}.`,
        '',
      );
      answers.push({ query: `What is ${name}'s ${attribute}?`, path });
    }
    await writeFile(join(workspace, path), lines.join('\n'));
  }
  return { answers, files: notes };
}
