// Memory search: `memory.search` (2026.9) or `agents.defaults.memorySearch` (classic) becomes
// `memory.search`, when this build has the memory section.
import { isRecord } from '../openclaw-source.ts';
import type { ConvertConfigOptions, Mark } from './types.ts';

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let cursor = target;
  for (const key of path.slice(0, -1)) {
    const next = cursor[key];
    if (isRecord(next)) cursor = next;
    else {
      const created: Record<string, unknown> = {};
      cursor[key] = created;
      cursor = created;
    }
  }
  cursor[path[path.length - 1]!] = value;
}

/** Converts memory search into `config.memory.search`. */
export function convertMemory(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
  options: ConvertConfigOptions,
): void {
  const defaults = isRecord(raw.agents) && isRecord(raw.agents.defaults) ? raw.agents.defaults : {};
  const modern = isRecord(raw.memory) ? raw.memory.search : undefined;
  const classic = defaults.memorySearch;
  const [search, path] =
    modern !== undefined ? [modern, 'memory.search'] : [classic, 'agents.defaults.memorySearch'];
  if (search === undefined) return;
  if (modern !== undefined && classic !== undefined)
    mark('agents.defaults.memorySearch', {
      disposition: 'unsupported',
      message: 'both shapes are set; memory.search (the 2026.9 key) wins, as in OpenClaw',
    });
  if (!options.hasMemorySection) {
    mark(path, {
      disposition: 'unsupported',
      message:
        'memory search is not part of this Switchboard build; MEMORY.md and memory/ stay in the workspace',
    });
    return;
  }
  setPath(config, ['memory', 'search'], search);
  mark(path, {
    disposition: path === 'memory.search' ? 'mapped' : 'changed',
    target: 'memory.search',
    ...(path === 'memory.search' ? {} : { message: 'the classic key moved to memory.search (2026.9 shape)' }),
  });
}
