import { defineConfig } from 'tsdown';

// The gateway ships as one bundle of its own code and the workspace packages (read from
// source through the `@switchboard/source` condition); third-party dependencies stay external
// and are dependencies of the gateway. Channel packages are imported lazily, so each becomes
// its own chunk and its SDK loads only when that channel is configured.
export default defineConfig({
  entry: ['src/main.ts'],
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: false,
  sourcemap: true,
  clean: true,
  // zod is the exception: it is bundled too. Every start needs it (the config schema), and as an
  // external package it is 95 modules to resolve and link, all 40 of its locales among them;
  // bundled, it is tree-shaken into the start chunk (decision 0025: 6 MB less idle RSS).
  // Nothing compares zod instances across packages (schemas are used through their methods).
  noExternal: [/^@switchboard\//, /^zod(\/|$)/],
  external: [/^(?!zod(\/|$))[^./@]/, /^@(?!switchboard\/)/],
  // The WebChat page is served from files next to the bundle (its type declarations stay behind).
  copy: [{ from: ['src/webchat/static/*', '!src/webchat/static/*.d.ts'], to: 'dist/webchat' }],
  inputOptions: { resolve: { conditionNames: ['@switchboard/source', 'import', 'node', 'default'] } },
});
