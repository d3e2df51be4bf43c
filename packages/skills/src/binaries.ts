import which from 'which';
import type { BinaryProbe } from './eligibility.ts';

/** Looks executables up on a PATH (the gateway's own by default), as `which` does. */
export function createHostBinaryProbe(options: { readonly path?: string } = {}): BinaryProbe {
  return {
    where: 'on the host PATH',
    async has(name) {
      const found = await which(name, {
        nothrow: true,
        path: options.path,
      });
      return found !== null;
    },
  };
}
