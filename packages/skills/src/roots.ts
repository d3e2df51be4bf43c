import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SkillRoot } from './discovery.ts';

export interface StandardSkillRootsOptions {
  readonly workspaceDirectory: string;
  /** The gateway's state directory: `<state>/skills` holds managed skills. */
  readonly stateDirectory: string;
  /** Default `os.homedir()`: `~/.agents/skills`. */
  readonly homeDirectory?: string;
  /** Skills shipped with the gateway, if any. */
  readonly bundledDirectory?: string;
  /** `skills.load.extraDirs`. */
  readonly extraDirectories?: readonly string[];
  /** Folders plugins declare. */
  readonly pluginDirectories?: ReadonlyArray<{ readonly plugin: string; readonly directory: string }>;
}

/** The skill roots of one workspace, highest precedence first (the order). */
export function standardSkillRoots(options: StandardSkillRootsOptions): SkillRoot[] {
  const home = options.homeDirectory ?? homedir();
  const roots: SkillRoot[] = [
    { tier: 'workspace', directory: join(options.workspaceDirectory, 'skills') },
    { tier: 'workspace_agents', directory: join(options.workspaceDirectory, '.agents', 'skills') },
    { tier: 'user', directory: join(home, '.agents', 'skills') },
    { tier: 'managed', directory: join(options.stateDirectory, 'skills') },
  ];
  if (options.bundledDirectory !== undefined)
    roots.push({ tier: 'bundled', directory: options.bundledDirectory });
  const expand = (directory: string) =>
    directory === '~' ? home : directory.startsWith('~/') ? join(home, directory.slice(2)) : directory;
  for (const directory of options.extraDirectories ?? [])
    roots.push({ tier: 'extra', directory: expand(directory) });
  for (const { plugin, directory } of options.pluginDirectories ?? [])
    roots.push({ tier: 'plugin', directory, plugin });
  return roots;
}
