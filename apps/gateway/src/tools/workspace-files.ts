import { lstat, mkdir, readdir, readFile, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from './errors.ts';

/** Largest file the read tool returns, and the largest the write tool accepts. */
const maxFileBytes: number = 1024 * 1024;

/**
 * File access confined to one agent workspace. Every path is resolved against the
 * workspace, `..` segments and absolute paths that leave it are refused, and the real
 * path (after following symbolic links) of the file or its nearest existing parent must
 * still lie inside the workspace, so a link cannot lead out.
 */
export interface WorkspaceFiles {
  readonly root: string;
  read(
    path: string,
    options?: { offset?: number; limit?: number },
  ): Promise<{ path: string; text: string; truncated: boolean }>;
  write(path: string, text: string): Promise<{ path: string; bytes: number }>;
  edit(path: string, oldText: string, newText: string): Promise<{ path: string; replacements: number }>;
  list(path?: string): Promise<{
    path: string;
    entries: Array<{ name: string; type: 'file' | 'directory' | 'link' | 'other'; size: number }>;
  }>;
}

function refuse(message: string): never {
  throw new ToolError('TOOL_WORKSPACE_REFUSED', message);
}

export async function openWorkspace(root: string): Promise<WorkspaceFiles> {
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);

  const inside = (candidate: string): boolean =>
    candidate === realRoot || candidate.startsWith(realRoot + sep);

  /** Resolves a tool-supplied path to an absolute path inside the workspace, or refuses. */
  async function confine(path: string): Promise<{ absolute: string; shown: string }> {
    if (path.includes('\0')) refuse('path contains a NUL byte');
    const absolute = resolve(realRoot, path);
    if (!inside(absolute)) refuse(`path ${path} is outside the agent workspace`);
    // Walk up to the nearest existing ancestor and check where it really points.
    let probe = absolute;
    for (;;) {
      try {
        const real = await realpath(probe);
        if (!inside(real)) refuse(`path ${path} leads outside the agent workspace through a symbolic link`);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        const parent = dirname(probe);
        if (parent === probe) break;
        probe = parent;
      }
    }
    const shown = relative(realRoot, absolute) || '.';
    return { absolute, shown: isAbsolute(shown) ? shown : shown.split(sep).join('/') };
  }

  const files: WorkspaceFiles = {
    root: realRoot,
    async read(path, options = {}) {
      const { absolute, shown } = await confine(path);
      const info = await stat(absolute).catch(() => refuse(`file ${shown} does not exist`));
      if (!info.isFile()) refuse(`${shown} is not a file`);
      const buffer = await readFile(absolute);
      let text = buffer.subarray(0, maxFileBytes).toString('utf8');
      let truncated = buffer.length > maxFileBytes;
      if (options.offset !== undefined || options.limit !== undefined) {
        const lines = text.split('\n');
        const start = Math.max(0, (options.offset ?? 1) - 1);
        const end = options.limit === undefined ? lines.length : start + options.limit;
        truncated = truncated || end < lines.length;
        text = lines.slice(start, end).join('\n');
      }
      return { path: shown, text, truncated };
    },
    async write(path, text) {
      const { absolute, shown } = await confine(path);
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > maxFileBytes)
        refuse(`refusing to write ${bytes} bytes to ${shown}: the limit is ${maxFileBytes}`);
      const existing = await lstat(absolute).catch(() => undefined);
      if (existing?.isSymbolicLink())
        refuse(`${shown} is a symbolic link; write to its target inside the workspace instead`);
      await mkdir(dirname(absolute), { recursive: true });
      const temporary = `${absolute}.switchboard-${process.pid}-${Date.now()}.tmp`;
      await writeFile(temporary, text, { mode: 0o644 });
      await rename(temporary, absolute);
      return { path: shown, bytes };
    },
    async edit(path, oldText, newText) {
      if (oldText.length === 0) refuse('edit needs the exact text to replace (old text is empty)');
      const { absolute, shown } = await confine(path);
      const current = await readFile(absolute, 'utf8').catch(() => refuse(`file ${shown} does not exist`));
      const first = current.indexOf(oldText);
      if (first === -1) refuse(`the text to replace was not found in ${shown}`);
      if (current.indexOf(oldText, first + oldText.length) !== -1) {
        refuse(`the text to replace occurs more than once in ${shown}; include more context so it is unique`);
      }
      const updated = current.slice(0, first) + newText + current.slice(first + oldText.length);
      await files.write(shown, updated);
      return { path: shown, replacements: 1 };
    },
    async list(path = '.') {
      const { absolute, shown } = await confine(path);
      const names = await readdir(absolute).catch(() => refuse(`directory ${shown} does not exist`));
      const entries = await Promise.all(
        names.sort().map(async (name) => {
          const info = await lstat(join(absolute, name));
          const type = info.isSymbolicLink()
            ? 'link'
            : info.isDirectory()
              ? 'directory'
              : info.isFile()
                ? 'file'
                : 'other';
          return { name, type, size: info.size } as const;
        }),
      );
      return { path: shown, entries };
    },
  };
  return files;
}
