import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/errors.ts';
import {
  ensureStateDirectory,
  resolveGatewayToken,
  resolveStateDirectory,
  tokenProblem,
} from './state-directory.ts';

const temporary = () => mkdtempSync(join(tmpdir(), 'switchboard-state-'));

describe('state directory and token', () => {
  it('uses SWITCHBOARD_STATE_DIR when set, else ~/.switchboard', () => {
    expect(resolveStateDirectory({ SWITCHBOARD_STATE_DIR: '/srv/sb' })).toBe('/srv/sb');
    expect(resolveStateDirectory({})).toMatch(/\.switchboard$/);
  });

  it('checks the state directory is writable and leaves no probe file behind', () => {
    const directory = join(temporary(), 'nested', 'state');
    ensureStateDirectory(directory);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
    expect(readdirSync(directory)).toEqual([]);
    // The probe file earlier versions left behind is cleaned up; other files are kept.
    writeFileSync(join(directory, '.write-test'), '');
    writeFileSync(join(directory, 'switchboard.json'), '{}');
    ensureStateDirectory(directory);
    expect(readdirSync(directory)).toEqual(['switchboard.json']);
  });

  it('refuses a state directory that cannot be created, naming it', () => {
    const file = join(temporary(), 'a-file');
    writeFileSync(file, '');
    expect(() => ensureStateDirectory(join(file, 'state'))).toThrow(
      expect.objectContaining({ code: 'STATE_DIR_UNUSABLE', message: expect.stringContaining(file) }),
    );
  });

  it('generates a token once, stores it with mode 0600, and reuses it', () => {
    const directory = temporary();
    ensureStateDirectory(directory);
    const first = resolveGatewayToken(directory, undefined, {});
    expect(first.source).toBe('generated');
    expect(first.token.length).toBeGreaterThanOrEqual(40);
    expect(statSync(join(directory, 'gateway-token')).mode & 0o777).toBe(0o600);
    const second = resolveGatewayToken(directory, undefined, {});
    expect(second).toMatchObject({ token: first.token, source: 'file' });
    expect(readFileSync(join(directory, 'gateway-token'), 'utf8').trim()).toBe(first.token);
  });

  it('prefers config, then environment', () => {
    const directory = temporary();
    expect(
      resolveGatewayToken(directory, 'from-config-0123456789', {
        SWITCHBOARD_GATEWAY_TOKEN: 'from-env-0123456789',
      }),
    ).toMatchObject({
      token: 'from-config-0123456789',
      source: 'config',
    });
    expect(
      resolveGatewayToken(directory, undefined, { SWITCHBOARD_GATEWAY_TOKEN: 'from-env-0123456789' }),
    ).toMatchObject({
      token: 'from-env-0123456789',
      source: 'environment',
    });
  });

  it('refuses blank and placeholder tokens, naming where they came from', () => {
    for (const bad of ['', '   ', 'undefined', 'changeme', '<your token>', '${TOKEN}', 'aaaaaaaa']) {
      expect(tokenProblem(bad)).toBeDefined();
    }
    expect(tokenProblem('k3J9-fP0q-Zr8w-Lm2x-Vb7n')).toBeUndefined();
    expect(() => resolveGatewayToken(temporary(), 'undefined', {})).toThrow(/gateway\.auth\.token/);
    const directory = temporary();
    writeFileSync(join(directory, 'gateway-token'), '\n');
    expect(() => resolveGatewayToken(directory, undefined, {})).toThrow(ConfigError);
  });
});
