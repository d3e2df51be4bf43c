// `pnpm start`: starts the gateway once apps/gateway exists. Until then it says so plainly.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const gatewayEntry = join(import.meta.dirname, '..', 'apps', 'gateway', 'src', 'main.ts');
if (!existsSync(gatewayEntry)) {
  console.log(
    'Switchboard: the gateway (apps/gateway) is not built yet. The packages it composes are being built first;\n' +
      'see README.md for what exists today. Nothing was started.',
  );
  process.exit(0);
}
await import(gatewayEntry);
