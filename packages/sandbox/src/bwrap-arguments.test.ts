import { describe, expect, it } from 'vitest';
import { buildBwrapArguments, sandboxWorkdir } from './bwrap-arguments.ts';
import { defaultSandboxLimits } from './policy.ts';

const base = {
  workspaceHostPath: '/srv/state/workspace-a',
  workspaceWritable: true,
  network: false,
  readOnlyPaths: [],
  workdir: '/workspace',
  limits: defaultSandboxLimits,
  command: 'echo hi',
};

describe('bwrap arguments', () => {
  it('unshares every namespace, the network unless asked, and never binds the whole host', () => {
    const closed = buildBwrapArguments(base);
    for (const flag of [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-net',
      '--die-with-parent',
      '--new-session',
    ])
      expect(closed).toContain(flag);
    expect(closed.join(' ')).not.toMatch(/--(ro-)?bind \/ \//);
    expect(closed.join(' ')).toContain('--bind /srv/state/workspace-a /workspace');
    expect(closed.slice(-3)).toEqual(['/bin/bash', '-lc', 'echo hi']);
    expect(buildBwrapArguments({ ...base, network: true })).not.toContain('--unshare-net');
    expect(buildBwrapArguments({ ...base, workspaceWritable: false }).join(' ')).toContain(
      '--ro-bind /srv/state/workspace-a /workspace',
    );
  });

  it('keeps workdir inside /workspace or /tmp', () => {
    expect(sandboxWorkdir(undefined)).toBe('/workspace');
    expect(sandboxWorkdir('src/app')).toBe('/workspace/src/app');
    expect(sandboxWorkdir('/tmp/build')).toBe('/tmp/build');
    expect(sandboxWorkdir('../etc')).toBeUndefined();
    expect(sandboxWorkdir('/etc')).toBeUndefined();
    expect(sandboxWorkdir('/workspace-b')).toBeUndefined();
  });
});
