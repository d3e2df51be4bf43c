import { describe, expect, it } from 'vitest';
import { storageConfigSchema } from './schema-storage.ts';

describe('storage config', () => {
  it('defaults to SQLite and accepts a PostgreSQL URL with pool settings', () => {
    expect(storageConfigSchema.parse(undefined)).toEqual({ kind: 'sqlite' });
    expect(
      storageConfigSchema.parse({
        kind: 'postgres',
        url: 'postgres://bot@db:5432/switchboard',
        poolSize: 20,
      }),
    ).toEqual({ kind: 'postgres', url: 'postgres://bot@db:5432/switchboard', poolSize: 20 });
  });

  it('names what is wrong: a missing or foreign URL, an unknown kind, a url on sqlite', () => {
    const missing = storageConfigSchema.safeParse({ kind: 'postgres' });
    expect(missing.success).toBe(false);
    expect(missing.error?.issues[0]?.path).toEqual(['url']);
    const foreign = storageConfigSchema.safeParse({ kind: 'postgres', url: 'mysql://db/x' });
    expect(foreign.error?.issues[0]?.message).toMatch(/postgres:\/\//);
    expect(storageConfigSchema.safeParse({ kind: 'redis' }).success).toBe(false);
    expect(storageConfigSchema.safeParse({ kind: 'sqlite', url: 'postgres://x/y' }).success).toBe(false);
  });
});
