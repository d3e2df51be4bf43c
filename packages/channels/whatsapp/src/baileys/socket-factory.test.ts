import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noopLogger } from '@switchboard/hooks';
import { makeWASocket } from 'baileys';
import { describe, expect, it } from 'vitest';
import { resolveSocketFactory, testSocketFactoryVariable } from './socket-factory.ts';

const folder = mkdtempSync(join(tmpdir(), 'switchboard-whatsapp-factory-'));
const good = join(folder, 'good.mjs');
writeFileSync(good, 'export const makeSocket = () => "fake socket";\n');
const wrong = join(folder, 'wrong.mjs');
writeFileSync(wrong, 'export const other = 1;\n');

describe('choosing the socket factory', () => {
  it("uses Baileys' makeWASocket by default, and the factory passed in options over anything else", async () => {
    expect((await resolveSocketFactory(undefined, {}, noopLogger)).makeSocket).toBe(makeWASocket);
    const explicit = () => {
      throw new Error('not called');
    };
    const resolved = await resolveSocketFactory(
      explicit,
      { [testSocketFactoryVariable]: good, NODE_ENV: 'test' },
      noopLogger,
    );
    expect(resolved.makeSocket).toBe(explicit);
    expect(resolved.testModule).toBeUndefined();
  });

  it('loads the test factory module only with NODE_ENV=test', async () => {
    const resolved = await resolveSocketFactory(
      undefined,
      { [testSocketFactoryVariable]: good, NODE_ENV: 'test' },
      noopLogger,
    );
    expect(resolved.testModule).toBe(good);
    expect((resolved.makeSocket as unknown as () => string)()).toBe('fake socket');
  });

  it('refuses to start (not retryable) when the variable is set outside tests', async () => {
    for (const NODE_ENV of ['production', undefined]) {
      await expect(
        resolveSocketFactory(undefined, { [testSocketFactoryVariable]: good, NODE_ENV }, noopLogger),
      ).rejects.toMatchObject({ code: 'WHATSAPP_TEST_FACTORY_REFUSED', retryable: false });
    }
  });

  it('names the module when it is not usable', async () => {
    await expect(
      resolveSocketFactory(undefined, { [testSocketFactoryVariable]: wrong, NODE_ENV: 'test' }, noopLogger),
    ).rejects.toThrow(/wrong\.mjs does not export a makeSocket function/);
    await expect(
      resolveSocketFactory(
        undefined,
        { [testSocketFactoryVariable]: join(folder, 'missing.mjs'), NODE_ENV: 'test' },
        noopLogger,
      ),
    ).rejects.toMatchObject({ code: 'WHATSAPP_TEST_FACTORY_INVALID' });
    await expect(
      resolveSocketFactory(
        undefined,
        { [testSocketFactoryVariable]: 'relative.mjs', NODE_ENV: 'test' },
        noopLogger,
      ),
    ).rejects.toThrow(/must be an absolute path/);
  });
});
