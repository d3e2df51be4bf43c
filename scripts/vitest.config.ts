import { defineProject, type ViteUserConfig } from 'vitest/config';

/** The repository scripts' own tests (the boundary check). */
const config: ViteUserConfig = defineProject({
  test: { name: 'scripts', root: import.meta.dirname, include: ['*.test.ts'], environment: 'node' },
});

export default config;
