import { describe, expect, it } from 'vitest';
import { createSessionSnapshots } from './session-snapshots.ts';

describe('session snapshots', () => {
  it('computes once per session and inputs; new inputs or a new session compute again', async () => {
    const snapshots = createSessionSnapshots<string>();
    let calls = 0;
    const compute = (text: string) => async () => {
      calls++;
      return text;
    };
    expect(await snapshots.get('s1', 'day-1', compute('a'))).toBe('a');
    expect(await snapshots.get('s1', 'day-1', compute('changed on disk'))).toBe('a');
    expect(calls).toBe(1);
    expect(await snapshots.get('s1', 'day-2', compute('b'))).toBe('b');
    expect(await snapshots.get('s2', 'day-2', compute('c'))).toBe('c');
    expect(calls).toBe(3);
  });

  it('does not keep a failure, and drops the least recently used session past its capacity', async () => {
    const snapshots = createSessionSnapshots<string>(2);
    await expect(
      snapshots.get('s1', 'x', async () => {
        throw new Error('unreadable');
      }),
    ).rejects.toThrow('unreadable');
    expect(await snapshots.get('s1', 'x', async () => 'read')).toBe('read');
    await snapshots.get('s2', 'x', async () => 'two');
    await snapshots.get('s1', 'x', async () => 'not again');
    await snapshots.get('s3', 'x', async () => 'three');
    expect(snapshots.size).toBe(2);
    expect(await snapshots.get('s1', 'x', async () => 'recomputed')).toBe('read');
    expect(await snapshots.get('s2', 'x', async () => 'recomputed')).toBe('recomputed');
  });
});
