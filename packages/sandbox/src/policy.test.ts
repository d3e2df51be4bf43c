import { describe, expect, it } from 'vitest';
import { defaultSandboxPolicy, isSandboxedSession, resolveSandboxPolicy } from './policy.ts';

describe('sandbox policy', () => {
  it('defaults to sandboxing every session, workspace read-write, no network', () => {
    expect(resolveSandboxPolicy()).toEqual(defaultSandboxPolicy);
    expect(defaultSandboxPolicy).toMatchObject({ mode: 'all', workspaceAccess: 'rw', network: false });
  });

  it('merges agent overrides over defaults key by key, limits and env per key', () => {
    const policy = resolveSandboxPolicy(
      { mode: 'non-main', limits: { timeoutSeconds: 30 }, env: { A: '1' } },
      { network: true, limits: { processes: 10 }, env: { B: '2' } },
    );
    expect(policy).toMatchObject({ mode: 'non-main', network: true, env: { A: '1', B: '2' } });
    expect(policy.limits.timeoutSeconds).toBe(30);
    expect(policy.limits.processes).toBe(10);
    expect(policy.limits.memoryMegabytes).toBe(defaultSandboxPolicy.limits.memoryMegabytes);
  });

  it('names the key of an invalid value', () => {
    expect(() => resolveSandboxPolicy({ limits: { processes: 0 } })).toThrow(
      /sandbox.limits.processes must be a positive integer/,
    );
    expect(() => resolveSandboxPolicy({ env: { 'BAD-NAME': 'x' } })).toThrow(/sandbox.env.BAD-NAME/);
    expect(() => resolveSandboxPolicy({ readOnlyPaths: ['opt/tool'] })).toThrow(/must be an absolute path/);
  });

  it('non-main sandboxes every session but the main one', () => {
    expect(isSandboxedSession('non-main', 'agent:a:main', 'agent:a:main')).toBe(false);
    expect(isSandboxedSession('non-main', 'agent:a:telegram:group:1', 'agent:a:main')).toBe(true);
    expect(isSandboxedSession('all', 'agent:a:main', 'agent:a:main')).toBe(true);
    expect(isSandboxedSession('off', 'agent:a:telegram:group:1', 'agent:a:main')).toBe(false);
  });
});
