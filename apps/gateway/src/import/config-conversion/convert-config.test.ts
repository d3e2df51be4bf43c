import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertOpenClawConfig } from './convert-config.ts';

const root = mkdtempSync(join(tmpdir(), 'switchboard-config-conversion-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const options = { root, modelApis: ['anthropic-messages'], hasMemorySection: false, agentDirectories: [] };
const noteOf = (notes: readonly { path: string; message?: string }[], path: string) =>
  notes.find((note) => note.path === path);

describe('convertOpenClawConfig', () => {
  it('turns password auth and a custom bind into their Switchboard keys, saying what changed', () => {
    const { config, notes } = convertOpenClawConfig(
      {
        gateway: {
          bind: 'custom',
          customBindHost: '192.168.1.5',
          auth: { mode: 'password', password: 'hunter2-long' },
        },
      },
      options,
    );
    expect(config.gateway).toEqual({ bind: '192.168.1.5', auth: { mode: 'token', token: 'hunter2-long' } });
    expect(noteOf(notes, 'gateway.auth.mode')).toMatchObject({ disposition: 'changed' });
    expect(noteOf(notes, 'gateway.auth.password')).toMatchObject({
      disposition: 'changed',
      target: 'gateway.auth.token',
    });
  });

  it('keeps a tailnet gateway on loopback and says how to reach it', () => {
    const { config, notes } = convertOpenClawConfig({ gateway: { bind: 'tailnet' } }, options);
    expect(config.gateway).toEqual({ bind: 'loopback' });
    expect(noteOf(notes, 'gateway.bind')?.message).toContain('reverse proxy or tunnel');
  });

  it("converts legacy session keys and keeps OpenClaw's dmScope default", () => {
    const { config, notes } = convertOpenClawConfig(
      { session: { idleMinutes: 120, resetByType: { dm: { mode: 'idle', idleMinutes: 30 } } } },
      options,
    );
    expect(config.session).toEqual({
      dmScope: 'main',
      reset: { mode: 'idle', idleMinutes: 120 },
      resetByType: { direct: { mode: 'idle', idleMinutes: 30 } },
    });
    expect(noteOf(notes, 'session.resetByType.dm')).toMatchObject({
      disposition: 'changed',
      target: 'session.resetByType.direct',
    });
  });

  it('reads a token file into the channel and reports a missing one with what to set', () => {
    writeFileSync(join(root, 'bot-token'), '42:abc\n');
    const { config, notes } = convertOpenClawConfig(
      {
        channels: {
          telegram: { tokenFile: 'bot-token', accounts: { alerts: { tokenFile: 'missing-token' } } },
        },
      },
      options,
    );
    const telegram = (config.channels as Record<string, Record<string, unknown>>).telegram!;
    expect(telegram.botToken).toBe('42:abc');
    expect(telegram.tokenFile).toBeUndefined();
    expect(noteOf(notes, 'channels.telegram.accounts.alerts.tokenFile')).toMatchObject({
      disposition: 'unsupported',
    });
    expect(noteOf(notes, 'channels.telegram.accounts.alerts.tokenFile')?.message).toContain(
      'set channels.telegram.accounts.alerts.botToken',
    );
  });

  it('reports every key it does not convert, at every depth, with advice', () => {
    const { notes } = convertOpenClawConfig(
      {
        hooks: { internal: { enabled: true } },
        browser: { enabled: true },
        somethingNew: { deep: [{ a: 1 }] },
      },
      options,
    );
    expect(noteOf(notes, 'hooks.internal.enabled')).toMatchObject({ disposition: 'unsupported' });
    expect(noteOf(notes, 'browser.enabled')?.message).toContain('no browser tool');
    expect(noteOf(notes, 'somethingNew.deep[0].a')).toMatchObject({
      disposition: 'unsupported',
      message: 'Switchboard has no such setting; leave it out',
    });
  });

  it('prefers memory.search over the classic key when both are set, and maps it when memory exists', () => {
    const { config, notes } = convertOpenClawConfig(
      {
        memory: { search: { provider: 'openai' } },
        agents: { defaults: { memorySearch: { provider: 'gemini' } } },
      },
      { ...options, hasMemorySection: true },
    );
    expect(config.memory).toEqual({ search: { provider: 'openai' } });
    expect(noteOf(notes, 'memory.search')).toMatchObject({ disposition: 'mapped' });
    expect(noteOf(notes, 'agents.defaults.memorySearch')?.message).toContain(
      'memory.search (the 2026.9 key) wins',
    );
  });

  it('gives agents found only on disk a roster entry so their sessions have an agent', () => {
    const { config, agents } = convertOpenClawConfig(
      {},
      { ...options, agentDirectories: ['main', 'archive'] },
    );
    expect(agents.map((agent) => agent.id)).toEqual(['main', 'archive']);
    expect((config.agents as { list: unknown[] }).list).toEqual([
      { id: 'archive', workspace: join(root, 'workspace-archive') },
    ]);
  });
});
