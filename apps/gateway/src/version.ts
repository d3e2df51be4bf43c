import manifest from '../package.json' with { type: 'json' };

/**
 * The gateway's version, reported in `hello-ok`, `status` and the start-up line: the
 * package's own version (bumped by changesets), read at build time into the bundle.
 */
export const gatewayVersion: string = manifest.version;
