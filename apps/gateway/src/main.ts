#!/usr/bin/env node
// The `switchboard` command.
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

// V8's compiled code is kept between starts (Node's compile cache, checked against each file's
// contents), so a start compiles only what changed: most of a cold start is compiling the
// bundle. SWITCHBOARD_COMPILE_CACHE picks the folder; "off" disables it. A folder that cannot
// be written only means no cache.
const cacheSetting = process.env.SWITCHBOARD_COMPILE_CACHE;
if (cacheSetting !== 'off') {
  module.enableCompileCache?.(cacheSetting ?? join(homedir(), '.cache', 'switchboard', 'compile-cache'));
}

const { runCli } = await import('./cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
