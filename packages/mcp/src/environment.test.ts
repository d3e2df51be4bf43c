import { describe, expect, it } from 'vitest';
import { serverEnvironment } from './environment.ts';

describe('serverEnvironment', () => {
  it('keeps the base and the configured keys, drops interpreter-hijacking ones and names them', () => {
    const result = serverEnvironment(
      { PATH: '/usr/bin', HOME: '/home/gateway' },
      {
        GITHUB_TOKEN: 'secret',
        NODE_OPTIONS: '--require /tmp/evil.js',
        LD_PRELOAD: '/tmp/evil.so',
        ld_library_path: '/tmp',
        DYLD_INSERT_LIBRARIES: '/tmp/x.dylib',
        PYTHONSTARTUP: '/tmp/x.py',
        BASH_ENV: '/tmp/x.sh',
        NODE_ENV: 'production',
      },
    );
    expect(result.env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/gateway',
      GITHUB_TOKEN: 'secret',
      NODE_ENV: 'production',
    });
    expect(result.stripped.toSorted()).toEqual([
      'BASH_ENV',
      'DYLD_INSERT_LIBRARIES',
      'LD_PRELOAD',
      'NODE_OPTIONS',
      'PYTHONSTARTUP',
      'ld_library_path',
    ]);
  });

  it('lets a configured value override the base', () => {
    expect(serverEnvironment({ PATH: '/usr/bin' }, { PATH: '/opt/bin' }).env).toEqual({ PATH: '/opt/bin' });
    expect(serverEnvironment({ PATH: '/usr/bin' }, undefined)).toEqual({
      env: { PATH: '/usr/bin' },
      stripped: [],
    });
  });
});
