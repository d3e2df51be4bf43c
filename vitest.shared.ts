import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineProject, type ViteUserConfig } from 'vitest/config';

/**
 * The custom export condition that points every workspace package at its TypeScript
 * source, so tests, type-checks and benches run without a prior build.
 */
const sourceCondition = '@switchboard/source';

/** The vitest project for one workspace package, named after its package.json name. */
export function packageProject(directory: string, overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { name: string };
  return defineProject({
    resolve: { conditions: [sourceCondition, 'module', 'node', 'default'] },
    ssr: {
      resolve: { conditions: [sourceCondition, 'node', 'default'], externalConditions: [sourceCondition] },
    },
    test: {
      name: manifest.name,
      root: directory,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      environment: 'node',
      testTimeout: 20_000,
      hookTimeout: 20_000,
      ...overrides,
    },
  });
}
