/**
 * Analysis of a bulk of texts (a catalog build) straight to an index's term ids. A catalog repeats whole texts
 * (shared parameter descriptions, categories), chunks (parameter names, identifiers) and words, so each distinct text,
 * chunk and word is analyzed and resolved once: a text or chunk met again costs one map lookup and a copy of its ids
 * from one flat pool, with no string or array per term and no object per text.
 */

/** A growing list of term ids, reused from text to text: the first `length` entries of `ids`. */
export class IdList {
  ids = new Int32Array(256);
  length = 0;

  push(id: number): void {
    if (this.length === this.ids.length) this.grow(this.length + 1);
    this.ids[this.length++] = id;
  }

  /** Appends `count` ids of `from` starting at `at` (`from` may be this list's own `ids`: growing keeps the old). */
  append(from: Int32Array, at: number, count: number): void {
    if (this.length + count > this.ids.length) this.grow(this.length + count);
    for (let i = 0; i < count; i++) this.ids[this.length + i] = from[at + i];
    this.length += count;
  }

  private grow(size: number): void {
    const ids = new Int32Array(Math.max(size, 2 * this.ids.length));
    ids.set(this.ids.subarray(0, this.length));
    this.ids = ids;
  }
}

/** Appends a text's term ids to a list. */
export type BulkAnalysis = (text: string, out: IdList) => void;

/**
 * A `BulkAnalysis` from the analyzer's parts: `chunksOf` cuts a text into chunks, `chunkIds` appends a chunk's term
 * ids. Distinct texts and chunks are remembered as runs of one pool (at a run's offset, its number of ids, then the
 * ids) for as long as the returned function lives.
 */
export function bulkAnalysis(chunksOf: (text: string) => string[], chunkIds: (chunk: string, out: IdList) => void): BulkAnalysis {
  const pool = new IdList();
  const text = new IdList();
  const chunkAt = new Map<string, number>();
  const textAt = new Map<string, number>();
  const chunkRun = (chunk: string): number => {
    let at = chunkAt.get(chunk);
    if (at === undefined) {
      at = pool.length;
      pool.push(0);
      chunkIds(chunk, pool);
      pool.ids[at] = pool.length - at - 1;
      chunkAt.set(chunk, at);
    }
    return at;
  };
  return (input, out) => {
    if (input === "") return;
    let at = textAt.get(input);
    if (at === undefined) {
      // The text's ids are gathered apart first: a new chunk's run goes to the pool's end meanwhile.
      text.length = 0;
      const chunks = chunksOf(input);
      for (let i = 0; i < chunks.length; i++) {
        const run = chunkRun(chunks[i]);
        text.append(pool.ids, run + 1, pool.ids[run]);
      }
      at = pool.length;
      pool.push(text.length);
      pool.append(text.ids, 0, text.length);
      textAt.set(input, at);
    }
    out.append(pool.ids, at + 1, pool.ids[at]);
  };
}
