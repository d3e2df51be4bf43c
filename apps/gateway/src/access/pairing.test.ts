import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteSessionStore } from '@switchboard/sessions';
import { describe, expect, it } from 'vitest';
import { createPairingStore, pairingAlphabet } from './pairing.ts';

async function open(now: () => number, directory = mkdtempSync(join(tmpdir(), 'switchboard-pairing-'))) {
  const store = await createSqliteSessionStore({ stateDirectory: directory, durability: 'normal', now });
  const pairing = createPairingStore(store, { now });
  await pairing.load();
  return { store, pairing, directory };
}

describe('pairing', () => {
  it('issues one 8-character code per sender and approves it into the allowlist, across restarts', async () => {
    let time = 1_000_000;
    const { store, pairing, directory } = await open(() => time);
    const first = await pairing.request('telegram', 'default', { id: '42', name: 'Ada' });
    expect(first.status).toBe('created');
    if (first.status !== 'created') return;
    expect(first.request.code).toMatch(new RegExp(`^[${pairingAlphabet}]{8}$`));
    const again = await pairing.request('telegram', 'default', { id: '42' });
    expect(again).toMatchObject({ status: 'pending', request: { code: first.request.code } });
    expect(pairing.approvedSenders('telegram', 'default').has('42')).toBe(false);

    expect(await pairing.approve('telegram', first.request.code.toLowerCase())).toMatchObject({
      sender: { id: '42' },
    });
    expect(pairing.approvedSenders('telegram', 'default').has('42')).toBe(true);
    expect(pairing.approvedSenders('telegram', 'other').has('42')).toBe(false);
    expect(await pairing.list()).toEqual([]);
    await store.close();

    time += 10;
    const reopened = await open(() => time, directory);
    expect(reopened.pairing.approvedSenders('telegram', 'default').has('42')).toBe(true);
    await reopened.store.close();
  });

  it('caps pending requests per account and expires them after an hour', async () => {
    let time = 5_000_000;
    const { store, pairing } = await open(() => time);
    for (const id of ['1', '2', '3'])
      expect((await pairing.request('discord', 'default', { id })).status).toBe('created');
    expect(await pairing.request('discord', 'default', { id: '4' })).toEqual({ status: 'limited' });
    expect((await pairing.request('discord', 'work', { id: '4' })).status).toBe('created');
    time += 60 * 60_000 + 1;
    expect(await pairing.list('discord')).toEqual([]);
    expect((await pairing.request('discord', 'default', { id: '4' })).status).toBe('created');
    await store.close();
  });

  it('denies a code without approving its sender, and ignores unknown codes', async () => {
    const { store, pairing } = await open(() => 7_000_000);
    const result = await pairing.request('slack', 'default', { id: 'U1' });
    if (result.status !== 'created') throw new Error('expected a new request');
    expect(await pairing.deny('slack', result.request.code)).toMatchObject({ sender: { id: 'U1' } });
    expect(pairing.approvedSenders('slack', 'default').size).toBe(0);
    expect(await pairing.approve('slack', 'ZZZZZZZZ')).toBeUndefined();
    await store.close();
  });
});
