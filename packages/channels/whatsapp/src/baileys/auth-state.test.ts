import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BufferJSON, useMultiFileAuthState } from 'baileys';
import { describe, expect, it } from 'vitest';
import { openAuthStore } from './auth-state.ts';

const folder = () => join(mkdtempSync(join(tmpdir(), 'switchboard-whatsapp-auth-')), 'auth');

describe('the linked-device credentials', () => {
  it('creates fresh credentials in a 0700 folder and writes every file 0600', async () => {
    const path = folder();
    const store = await openAuthStore(path);
    expect(store.isRegistered()).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o700);
    store.state.creds.me = { id: '15550009999:4@s.whatsapp.net', name: 'Bot' };
    await store.saveCreds();
    await store.state.keys.set({
      'pre-key': { '1': { public: Buffer.from([1, 2]), private: Buffer.from([3, 4]) } },
    });
    for (const name of readdirSync(path)) expect(statSync(join(path, name)).mode & 0o777, name).toBe(0o600);
    expect(readdirSync(path).sort()).toEqual(['creds.json', 'pre-key-1.json']);
    const reopened = await openAuthStore(path);
    expect(reopened.isRegistered()).toBe(true);
    expect(reopened.state.creds.me?.id).toBe('15550009999:4@s.whatsapp.net');
    expect(Buffer.from(reopened.state.creds.noiseKey.private)).toEqual(
      Buffer.from(store.state.creds.noiseKey.private),
    );
    const keys = await reopened.state.keys.get('pre-key', ['1', '2']);
    expect(Buffer.from(keys['1']!.private)).toEqual(Buffer.from([3, 4]));
    expect(keys['2']).toBeUndefined();
  });

  it("uses Baileys' multi-file layout, so Baileys can read what it wrote and the other way round", async () => {
    const path = folder();
    const store = await openAuthStore(path);
    store.state.creds.me = { id: '15550009999:4@s.whatsapp.net' };
    await store.saveCreds();
    await store.state.keys.set({ session: { '15551230001.0': Buffer.from('session bytes') } });
    const baileys = await useMultiFileAuthState(path);
    expect(baileys.state.creds.me?.id).toBe('15550009999:4@s.whatsapp.net');
    expect((await baileys.state.keys.get('session', ['15551230001.0']))['15551230001.0']).toEqual(
      Buffer.from('session bytes'),
    );
    const raw = JSON.parse(readFileSync(join(path, 'creds.json'), 'utf8'), BufferJSON.reviver) as {
      advSecretKey: string;
    };
    expect(raw.advSecretKey).toBe(store.state.creds.advSecretKey);
  });

  it('deletes keys set to null, and everything on clear (after a logout)', async () => {
    const path = folder();
    const store = await openAuthStore(path);
    await store.saveCreds();
    await store.state.keys.set({
      'pre-key': { '7': { public: Buffer.from([1]), private: Buffer.from([2]) } },
    });
    await store.state.keys.set({ 'pre-key': { '7': null } });
    expect(readdirSync(path)).toEqual(['creds.json']);
    store.state.creds.me = { id: 'x@s.whatsapp.net' };
    await store.clear();
    expect(readdirSync(path)).toEqual([]);
    expect(store.isRegistered()).toBe(false);
  });

  it('serializes writes to one file: the last write wins', async () => {
    const path = folder();
    const store = await openAuthStore(path);
    const writes: Promise<void>[] = [];
    for (let index = 0; index < 20; index += 1) {
      store.state.creds.nextPreKeyId = index;
      writes.push(store.saveCreds());
    }
    await Promise.all(writes);
    expect(JSON.parse(readFileSync(join(path, 'creds.json'), 'utf8')).nextPreKeyId).toBe(19);
    expect(readdirSync(path)).toEqual(['creds.json']);
  });
});
