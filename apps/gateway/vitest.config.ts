import { packageProject } from '../../vitest.shared.ts';

export default packageProject(import.meta.dirname, { setupFiles: ['./test/setup-fence-parser.ts'] });
