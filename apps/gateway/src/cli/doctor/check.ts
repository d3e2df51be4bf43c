// One line of `switchboard doctor`: what was checked, whether it passed, and who answered.

/**
 * Where a check's answer came from: this machine (`here`), the config file read by the CLI
 * with its own shell's environment (`config`), or the running gateway (`gateway`), which
 * answers from its own process: its environment, credentials, network and channels.
 */
export type CheckSource = 'here' | 'config' | 'gateway';

export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  /** A warning does not fail the doctor. */
  readonly warning?: boolean;
  readonly source: CheckSource;
}
