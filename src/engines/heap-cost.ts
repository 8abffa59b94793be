/**
 * Measured heap costs shared by every index that reports its own size (`memoryBytes`), so that a collection's count
 * adds up from parts priced alike: the BM25 arrays, the tool table and the vectors.
 */

/** The measured heap cost of a map entry with its string's header (ids, terms, texts). */
export const ENTRY_BYTES = 64;
