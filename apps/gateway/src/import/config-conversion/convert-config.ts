// OpenClaw's config (openclaw.json, classic 2026.6 or keyed 2026.9 shape) converted to
// Switchboard's switchboard.json. Every key of the source gets a note: mapped, mapped with a
// changed meaning (explained), or unsupported (with what to do instead).
//
// One module per OpenClaw section (`*-section.ts`); `key-notes.ts` holds the notes' bookkeeping.
import { isRecord } from '../openclaw-source.ts';
import { convertAgents } from './agents-section.ts';
import { convertAuth } from './auth-section.ts';
import { convertChannels } from './channels-section.ts';
import { convertGateway } from './gateway-section.ts';
import { unhandledNotes } from './key-notes.ts';
import { convertLogging } from './logging-section.ts';
import { convertMemory } from './memory-section.ts';
import { convertModels } from './models-section.ts';
import { convertCron } from './scheduler-section.ts';
import { convertMessages, convertSession } from './session-section.ts';
import { convertTools } from './tools-section.ts';
import type { ConvertConfigOptions, ConvertedConfig, KeyNote } from './types.ts';

export type { ConvertedConfig } from './types.ts';

/** Converts an OpenClaw config object. Pure: reads only `channels.*.tokenFile` files. */
export function convertOpenClawConfig(source: unknown, options: ConvertConfigOptions): ConvertedConfig {
  const raw = isRecord(source) ? source : {};
  const config: Record<string, unknown> = {};
  const handled = new Set<string>();
  const notes: KeyNote[] = [];
  const mark = (path: string, note: Omit<KeyNote, 'path'>) => {
    handled.add(path);
    notes.push({ path, ...note });
  };

  convertGateway(raw, config, mark);
  convertModels(raw, config, mark, options);
  const { shape, agents } = convertAgents(raw, config, mark, options);
  if (Array.isArray(raw.bindings)) {
    config.bindings = raw.bindings;
    mark('bindings', { disposition: 'mapped', target: 'bindings', message: undefined });
  }
  convertSession(raw, config, mark);
  convertMessages(raw, config, mark);
  convertAuth(raw, config, mark);
  convertChannels(raw, config, mark, options.root);
  convertTools(raw, config, mark);
  convertCron(raw, config, mark);
  convertLogging(raw, config, mark);
  convertMemory(raw, config, mark, options);

  notes.push(...unhandledNotes(raw, handled));
  notes.sort((left, right) => left.path.localeCompare(right.path));
  return { config, notes, shape, agents };
}
