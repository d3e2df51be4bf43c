/**
 * Maps foreign tool-call ids (another provider's, or too long) to ones OpenAI-family servers
 * accept (`[A-Za-z0-9_-]`, at most 40 characters), consistently for a call and its result.
 */
export class ToolIdMap {
  readonly #map = new Map<string, string>();
  readonly #used = new Set<string>();

  get(id: string): string {
    const known = this.#map.get(id);
    if (known !== undefined) return known;
    let normalized = /^[A-Za-z0-9_-]{1,40}$/.test(id)
      ? id
      : id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || 'call';
    if (this.#used.has(normalized)) {
      let counter = 2;
      const stem = normalized.slice(0, 34);
      while (this.#used.has(`${stem}_${counter}`)) counter += 1;
      normalized = `${stem}_${counter}`;
    }
    this.#used.add(normalized);
    this.#map.set(id, normalized);
    return normalized;
  }
}
