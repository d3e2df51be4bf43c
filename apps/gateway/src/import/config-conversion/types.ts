// The shapes of the OpenClaw config conversion: what became of each key (a note), the agents
// the conversion found, the converted config, and the conversion's options.

type KeyDisposition = 'mapped' | 'changed' | 'unsupported';

/** What became of one OpenClaw config key. */
export interface KeyNote {
  readonly path: string;
  readonly disposition: KeyDisposition;
  /** The Switchboard key it went to, when it went somewhere. */
  readonly target?: string;
  /** For `changed`: what differs; for `unsupported`: what to do instead. */
  readonly message?: string;
}

export interface ImportedAgent {
  readonly id: string;
  readonly isDefault: boolean;
  /** Absolute path of the workspace (left where it is). */
  readonly workspace: string;
}

export interface ConvertedConfig {
  readonly config: Record<string, unknown>;
  readonly notes: readonly KeyNote[];
  /** `classic`: agents.list[]; `2026.9`: agents.entries.<id>; `none`: no agent roster. */
  readonly shape: 'classic' | '2026.9' | 'none';
  readonly agents: readonly ImportedAgent[];
}

export interface ConvertConfigOptions {
  /** The OpenClaw state directory (relative paths and default workspaces are resolved from it). */
  readonly root: string;
  /** The `models.providers.<p>.api` values this Switchboard build has a provider for. */
  readonly modelApis: readonly string[];
  /** Whether this build's config has a `memory` section (the memory package). */
  readonly hasMemorySection: boolean;
  /** Agent ids found on disk under agents/ (state without a roster entry). */
  readonly agentDirectories: readonly string[];
}

/** Records what became of the OpenClaw key at `path` (every converter reports each key it handles). */
export type Mark = (path: string, note: Omit<KeyNote, 'path'>) => void;
