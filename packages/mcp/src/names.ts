// Tool names the model sees: `<server>__<tool>`, safe for every provider, unique, stable.

/** Longest server prefix kept in a tool name (OpenClaw's limit). */
const maxServerPrefix = 30;
/** Longest tool name providers accept. */
const maxToolName = 64;

/** Replaces everything outside `[A-Za-z0-9_-]` with `_`; an empty result becomes `fallback`. */
function sanitizeNamePart(value: string, fallback: string): string {
  const sanitized = value.replace(/[^A-Za-z0-9_-]/g, '_');
  return sanitized.length === 0 ? fallback : sanitized;
}

/** `<server>__<tool>` sanitized, the server part cut to 30 characters and the whole to 64. */
export function baseToolName(server: string, tool: string): string {
  const prefix = sanitizeNamePart(server, 'server').slice(0, maxServerPrefix);
  return `${prefix}__${sanitizeNamePart(tool, 'tool')}`.slice(0, maxToolName);
}

/** One MCP tool to name: its server and its name on that server. */
export interface ToolNameRequest {
  readonly server: string;
  readonly tool: string;
}

/**
 * Assigns model-facing names and keeps them: a tool keeps the name it was first given while
 * it exists (so a session's prompt and its earlier tool calls stay valid when other servers
 * come and go); a new tool whose base name is taken gets `-2`, `-3`, … (shortening the base
 * to stay within 64 characters).
 */
export class ToolNamer {
  readonly #assigned = new Map<string, string>();

  /** The names of `requests` (same order), forgetting tools no longer requested. */
  assign(requests: readonly ToolNameRequest[]): string[] {
    const keys = requests.map((request) => keyOf(request));
    const wanted = new Set(keys);
    for (const key of this.#assigned.keys()) if (!wanted.has(key)) this.#assigned.delete(key);
    const taken = new Set(this.#assigned.values());
    return requests.map((request, index) => {
      const key = keys[index] as string;
      const existing = this.#assigned.get(key);
      if (existing !== undefined) return existing;
      const base = baseToolName(request.server, request.tool);
      let name = base;
      for (let suffix = 2; taken.has(name); suffix += 1) {
        const tail = `-${suffix}`;
        name = `${base.slice(0, maxToolName - tail.length)}${tail}`;
      }
      taken.add(name);
      this.#assigned.set(key, name);
      return name;
    });
  }
}

function keyOf(request: ToolNameRequest): string {
  return JSON.stringify([request.server, request.tool]);
}
