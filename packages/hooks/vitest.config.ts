import { packageProject } from '../../vitest.shared.ts';

export default packageProject(import.meta.dirname, {
  typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
});
