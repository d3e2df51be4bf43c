/** What `readSince` returns: the text after an offset, and how much of it was already dropped. */
export interface OutputSlice {
  readonly text: string;
  /** Bytes between the asked offset and the oldest byte still kept (dropped to stay in the cap). */
  readonly droppedBytes: number;
  /** The offset to ask from next time (all bytes ever written). */
  readonly nextOffset: number;
}

/**
 * The output of one command (stdout and stderr interleaved as they arrive), keeping only the
 * newest `capacity` bytes so a command that prints forever costs bounded memory. Offsets count
 * every byte ever written, so a reader can ask for "what is new since last time".
 */
export class OutputLog {
  readonly capacity: number;
  #chunks: Buffer[] = [];
  #keptBytes = 0;
  #totalBytes = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** Bytes written so far, kept or not. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Bytes dropped from the start to stay within the capacity. */
  get droppedBytes(): number {
    return this.#totalBytes - this.#keptBytes;
  }

  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#totalBytes += chunk.length;
    const kept = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk;
    this.#chunks.push(kept);
    this.#keptBytes += kept.length;
    while (this.#keptBytes > this.capacity) {
      const first = this.#chunks[0] as Buffer;
      const excess = this.#keptBytes - this.capacity;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#keptBytes -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#keptBytes -= excess;
      }
    }
  }

  /** The kept text from `offset` on (at most `limit` bytes of it, the oldest first). */
  readSince(offset: number, limit: number = Number.POSITIVE_INFINITY): OutputSlice {
    const firstKept = this.droppedBytes;
    const start = Math.max(offset, firstKept);
    const droppedBytes = Math.max(0, firstKept - offset);
    const all = Buffer.concat(this.#chunks);
    const slice = all.subarray(start - firstKept, Math.min(all.length, start - firstKept + limit));
    return { text: slice.toString('utf8'), droppedBytes, nextOffset: start + slice.length };
  }

  /** Everything kept, with a note first when older output was dropped. */
  text(): string {
    const { text, droppedBytes } = this.readSince(0);
    return droppedBytes > 0 ? `${truncationNote(droppedBytes, this.#totalBytes)}\n${text}` : text;
  }
}

/** The sentence the model reads when output was cut. */
export function truncationNote(droppedBytes: number, totalBytes: number): string {
  return `[output truncated: the first ${droppedBytes} of ${totalBytes} bytes were dropped; showing the last part]`;
}
