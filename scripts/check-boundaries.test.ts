import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBoundaryProblems, importsOf } from './check-boundaries.ts';

function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-boundaries-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const manifest = (name: string, dependencies: Record<string, string> = {}) =>
  JSON.stringify({ name, dependencies });

describe('boundary check', () => {
  it('reads multi-line, type-only, re-export and dynamic imports with their lines', () => {
    expect(
      importsOf(
        "import {\n  a,\n  b,\n} from '@switchboard/x';\nexport * from './y.ts';\nawait import('@switchboard/z');\nimport type {\n  T,\n} from '@switchboard/w';\n// import { no } from '@switchboard/comment';\nconst text = \"import { no } from '@switchboard/string'\";",
      ),
    ).toEqual([
      { specifier: '@switchboard/x', line: 4 },
      { specifier: './y.ts', line: 5 },
      { specifier: '@switchboard/z', line: 6 },
      { specifier: '@switchboard/w', line: 9 },
    ]);
  });

  it('catches a multi-line import across a boundary (a channel importing another internal package)', () => {
    const root = workspace({
      'packages/hooks/package.json': manifest('@switchboard/hooks'),
      'packages/routing/package.json': manifest('@switchboard/routing'),
      'packages/markdown/package.json': manifest('@switchboard/markdown'),
      'packages/channels/chat/package.json': manifest('@switchboard/channel-chat', {
        '@switchboard/hooks': 'workspace:*',
        '@switchboard/markdown': 'workspace:*',
        '@switchboard/routing': 'workspace:*',
      }),
      'packages/channels/chat/src/index.ts':
        "import type { Hook } from '@switchboard/hooks';\nimport {\n  resolveRoute,\n  type Route,\n} from '@switchboard/routing';\nimport { renderSlackMrkdwn } from '@switchboard/markdown';\n",
      'apps/gateway/package.json': manifest('@switchboard/gateway'),
      'packages/routing/src/index.ts': "import {\n  thing,\n} from '@switchboard/gateway';\n",
    });
    const { problems } = findBoundaryProblems(root);
    expect(problems).toEqual([
      'packages/routing/src/index.ts:3: @switchboard/routing imports @switchboard/gateway without declaring it',
      'packages/routing/src/index.ts:3: nothing may import the app @switchboard/gateway',
      'packages/channels/chat/src/index.ts:5: a channel package may depend only on @switchboard/hooks and @switchboard/markdown, not @switchboard/routing',
    ]);
  });

  it("keeps the gateway's layers apart: runtime and protocol never import each other or the methods", () => {
    const root = workspace({
      'apps/gateway/package.json': manifest('@switchboard/gateway'),
      'apps/gateway/src/runtime/runner.ts':
        "import { runFinalOf } from '../methods/run-final.ts';\nimport type { X } from '../protocol/errors.ts';\nimport { a } from './inbound.ts';\nimport { b } from '../access/pairing.ts';\n",
      'apps/gateway/src/protocol/server.ts': "import type { RunRecord } from '../runtime/runs.ts';\n",
      'apps/gateway/src/gateway/start-gateway.ts':
        "import { createProtocolServer } from '../protocol/server.ts';\nimport { createTurnRunner } from '../runtime/runner.ts';\n",
      'apps/gateway/src/runtime/runner.test.ts': "import { runFinalOf } from '../methods/run-final.ts';\n",
    });
    const { problems } = findBoundaryProblems(root);
    expect(problems.sort()).toEqual([
      "apps/gateway/src/protocol/server.ts:1: the gateway's protocol/ may not import its runtime/ (decision 0027)",
      "apps/gateway/src/runtime/runner.ts:1: the gateway's runtime/ may not import its methods/ (decision 0027)",
      "apps/gateway/src/runtime/runner.ts:2: the gateway's runtime/ may not import its protocol/ (decision 0027)",
    ]);
  });

  it('asks an app to declare the third-party dependencies of the workspace packages it bundles', () => {
    const root = workspace({
      'packages/channels/chat/package.json': JSON.stringify({
        name: '@switchboard/channel-chat',
        dependencies: { qrcode: '1.5.4' },
        devDependencies: { '@types/qrcode': '1.5.6' },
        peerDependencies: { '@types/mdast': '4.0.4' },
      }),
      'apps/gateway/package.json': manifest('@switchboard/gateway', {
        '@switchboard/channel-chat': 'workspace:*',
        ws: '8.0.0',
      }),
    });
    expect(findBoundaryProblems(root).problems).toEqual([
      "gateway/package.json: @switchboard/gateway bundles @switchboard/channel-chat, which needs qrcode at run time: declare it in @switchboard/gateway's dependencies",
    ]);
  });

  it('finds nothing wrong in this repository', () => {
    expect(findBoundaryProblems(resolve(import.meta.dirname, '..')).problems).toEqual([]);
  });
});
