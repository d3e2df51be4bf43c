// Checks the package boundaries that the linter cannot see:
//  1. no relative import leaves its package;
//  2. every @switchboard/* import is declared in the importing package's package.json;
//  3. only apps import channel packages, and nothing imports an app;
//  4. channel packages depend on no internal package but @switchboard/hooks and
//     @switchboard/markdown (and testkit in tests);
//  5. shipped code never imports @switchboard/testkit (it is for tests and benches only);
//  7. an app bundles the workspace packages it depends on (tsdown's noExternal) and keeps their
//     third-party dependencies external, so it declares every one of them itself (types-only
//     `@types/*` aside): otherwise the built bundle cannot resolve them (qrcode, once);
//  6. inside the gateway app, the layers of decision 0027: the runtime knows neither the wire
//     (protocol/) nor the methods nor the composition root (gateway/); the protocol knows no
//     runtime, methods or features; the methods do not reach into the composition root.
// Prints every violation with its file and line, and exits 1 if there is any.
// Imports are read with TypeScript's own pre-processor (multi-line imports, `export … from`,
// `import()` and `import type` included), not line by line.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

interface WorkspacePackage {
  readonly name: string;
  readonly directory: string;
  readonly kind: 'package' | 'channel' | 'app';
  readonly declared: ReadonlySet<string>;
  /** `dependencies` and `peerDependencies`: what its shipped code needs at run time. */
  readonly runtime: ReadonlySet<string>;
}

/** Every module specifier a source file imports or re-exports, with its 1-based line. */
export function importsOf(text: string): Array<{ specifier: string; line: number }> {
  const info = ts.preProcessFile(text, true, true);
  const newlines: number[] = [];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1))
    newlines.push(index);
  const lineOf = (position: number): number => {
    let low = 0;
    let high = newlines.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (newlines[middle]! < position) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
  return info.importedFiles.map((file) => ({ specifier: file.fileName, line: lineOf(file.pos) }));
}

function listPackages(root: string): WorkspacePackage[] {
  const groups: Array<[string, WorkspacePackage['kind']]> = [
    ['packages', 'package'],
    ['packages/channels', 'channel'],
    ['apps', 'app'],
  ];
  const found: WorkspacePackage[] = [];
  for (const [group, kind] of groups) {
    const groupDirectory = join(root, group);
    if (!existsSync(groupDirectory)) continue;
    for (const entry of readdirSync(groupDirectory)) {
      const directory = join(groupDirectory, entry);
      const manifestPath = join(directory, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<
        string,
        Record<string, string>
      >;
      const declared = new Set<string>([
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.devDependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      const runtime = new Set<string>([
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      found.push({ name: String(manifest.name), directory, kind, declared, runtime });
    }
  }
  return found;
}

function listSourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const folder of ['src', 'test', 'bench']) {
    const start = join(directory, folder);
    if (existsSync(start)) walk(start, files);
  }
  return files;
}

function walk(directory: string, files: string[]): void {
  for (const entry of readdirSync(directory)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) walk(path, files);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry)) files.push(path);
  }
}

function isTestOrBench(file: string, directory: string): boolean {
  const local = relative(directory, file);
  return (
    /\.test(-d)?\.ts$/.test(file) ||
    local.startsWith(`test${sep}`) ||
    local.startsWith(`bench${sep}`) ||
    local.includes(`${sep}__fixtures__${sep}`)
  );
}

/** The internal packages shipped channel code may import: the contract and the Markdown renderers. */
const channelDependencies: ReadonlySet<string> = new Set(['@switchboard/hooks', '@switchboard/markdown']);

/**
 * The gateway app's layers (decision 0027): for a shipped file under `apps/gateway/src/<layer>/`,
 * the layers it may not import. `gateway/` (the composition root) and `cli/` may import any.
 */
const gatewayLayerRules: ReadonlyArray<{ readonly layer: string; readonly forbidden: readonly string[] }> = [
  { layer: 'runtime', forbidden: ['protocol', 'methods', 'gateway', 'cli'] },
  {
    layer: 'protocol',
    forbidden: ['runtime', 'methods', 'gateway', 'cli', 'extensions', 'subagents', 'replicas'],
  },
  { layer: 'methods', forbidden: ['gateway', 'cli'] },
  { layer: 'extensions', forbidden: ['protocol', 'methods', 'gateway', 'cli'] },
  { layer: 'subagents', forbidden: ['protocol', 'methods', 'gateway', 'cli'] },
  { layer: 'replicas', forbidden: ['methods', 'gateway', 'cli'] },
];

/** A gateway layering problem of one relative import, or undefined. */
function gatewayLayerProblem(appSource: string, file: string, target: string): string | undefined {
  const from = relative(appSource, file).split(sep)[0];
  const to = relative(appSource, target).split(sep)[0];
  const rule = gatewayLayerRules.find((candidate) => candidate.layer === from);
  if (rule === undefined || to === undefined || !rule.forbidden.includes(to)) return undefined;
  return `the gateway's ${from}/ may not import its ${to}/ (decision 0027)`;
}

/** Every boundary violation in the workspace at `root`, as `file:line: what`. */
export function findBoundaryProblems(root: string): { packages: number; problems: string[] } {
  const packages = listPackages(root);
  const byName = new Map(packages.map((workspacePackage) => [workspacePackage.name, workspacePackage]));
  const problems: string[] = [];

  for (const workspacePackage of packages) {
    for (const file of listSourceFiles(workspacePackage.directory)) {
      for (const { specifier, line } of importsOf(readFileSync(file, 'utf8'))) {
        const where = `${relative(root, file)}:${line}`;
        if (specifier.startsWith('.')) {
          const target = resolve(dirname(file), specifier);
          if (!target.startsWith(workspacePackage.directory + sep)) {
            problems.push(`${where}: relative import '${specifier}' leaves ${workspacePackage.name}`);
          } else if (
            workspacePackage.name === '@switchboard/gateway' &&
            !isTestOrBench(file, workspacePackage.directory)
          ) {
            const layered = gatewayLayerProblem(join(workspacePackage.directory, 'src'), file, target);
            if (layered !== undefined) problems.push(`${where}: ${layered}`);
          }
          continue;
        }
        if (!specifier.startsWith('@switchboard/')) continue;
        const importedName = specifier.split('/').slice(0, 2).join('/');
        if (importedName === workspacePackage.name) continue;
        const imported = byName.get(importedName);
        if (imported === undefined) {
          problems.push(`${where}: '${specifier}' is not a workspace package`);
          continue;
        }
        if (!workspacePackage.declared.has(importedName)) {
          problems.push(`${where}: ${workspacePackage.name} imports ${importedName} without declaring it`);
        }
        const testOnly = isTestOrBench(file, workspacePackage.directory);
        if (imported.kind === 'app') {
          problems.push(`${where}: nothing may import the app ${importedName}`);
        }
        if (imported.kind === 'channel' && workspacePackage.kind !== 'app') {
          problems.push(`${where}: only apps may import the channel package ${importedName}`);
        }
        if (importedName === '@switchboard/testkit' && !testOnly && workspacePackage.name !== importedName) {
          problems.push(
            `${where}: shipped code may not import @switchboard/testkit (tests and benches only)`,
          );
        }
        if (workspacePackage.kind === 'channel' && !testOnly && !channelDependencies.has(importedName)) {
          problems.push(
            `${where}: a channel package may depend only on @switchboard/hooks and @switchboard/markdown, not ${importedName}`,
          );
        }
      }
    }
  }
  for (const app of packages.filter((candidate) => candidate.kind === 'app'))
    problems.push(...bundledDependencyProblems(app, byName));
  return { packages: packages.length, problems };
}

/** Third-party runtime dependencies of the workspace packages `app` bundles that `app` does not declare. */
function bundledDependencyProblems(
  app: WorkspacePackage,
  byName: ReadonlyMap<string, WorkspacePackage>,
): string[] {
  const problems: string[] = [];
  const visited = new Set<string>();
  const visit = (workspacePackage: WorkspacePackage): void => {
    if (visited.has(workspacePackage.name)) return;
    visited.add(workspacePackage.name);
    for (const dependency of workspacePackage.runtime) {
      const internal = byName.get(dependency);
      if (internal !== undefined) visit(internal);
      else if (!dependency.startsWith('@types/') && !app.declared.has(dependency) && workspacePackage !== app)
        problems.push(
          `${relative(dirname(app.directory), join(app.directory, 'package.json'))}: ${app.name} bundles ${workspacePackage.name}, which needs ${dependency} at run time: declare it in ${app.name}'s dependencies`,
        );
    }
  };
  visit(app);
  return problems;
}

if (import.meta.main) {
  const { packages, problems } = findBoundaryProblems(resolve(import.meta.dirname, '..'));
  if (problems.length > 0) {
    console.error(`Package boundary check failed (${problems.length}):`);
    for (const problem of problems) console.error(`  ${problem}`);
    process.exit(1);
  }
  console.log(`Package boundaries hold across ${packages} packages.`);
}
