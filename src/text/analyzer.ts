/**
 * Text analysis: one pipeline of small filters, used unchanged for indexed items and for queries, so both sides
 * always agree on what a term is.
 *
 * @example
 * ```ts
 * const analyzer = createAnalyzer();
 * analyzer.analyze("getStockLevel for Lấy thông tin"); // ["get", "stock", "level", "getstocklevel", "lay", "thong", "tin"]
 * ```
 */
import { ChunkTerms } from "./chunk-terms.js";
import { normalizeUnicode } from "./filters/normalize.js";
import { ENGLISH_STOPWORDS } from "./filters/stopwords.js";
import { chunkTexts, hasNonAscii } from "./filters/tokenize.js";
import { type BulkAnalysis, bulkAnalysis } from "./term-ids.js";
import type { TokenFilter } from "./token.js";

/** Options of the analysis pipeline. Defaults suit English and Latin-script text such as Vietnamese. */
export interface AnalyzerOptions {
  /** Drop stopwords (default true), or drop the words of this set instead of the English list. */
  stopwords?: boolean | ReadonlySet<string>;
  /** Stem with the English Porter2 stemmer (default true). */
  stem?: boolean;
  /** Extra filters, run on the whole token stream after the built-in ones. */
  filters?: TokenFilter[];
}

/** Turns text into index terms. */
export interface Analyzer {
  analyze(text: string): string[];
  /**
   * Analysis for a bulk of texts (a catalog build), to ids that `resolve` gives terms (an index's own term ids),
   * appended to a reused list: each distinct text, chunk and word is analyzed and resolved once (see `bulkAnalysis`).
   * The returned function keeps that memo: drop it when the bulk is done. Optional, so that a plain `{ analyze }` still
   * is an `Analyzer`; `createAnalyzer`'s analyzers have it.
   */
  bulkIds?(resolve: (term: string) => number): BulkAnalysis;
  /** Bytes its memo of analyzed chunks holds (bounded; see `CHUNK_MEMO_LIMIT`). */
  memoryBytes?(): number;
}

/**
 * How many distinct chunks an analyzer remembers the terms of (queries, single adds): a bulk build keeps its own memo
 * for as long as it runs (`bulkIds`), so this one stays small, and is emptied when full.
 */
const CHUNK_MEMO_LIMIT = 8192;

/**
 * Builds the pipeline: normalize → tokenize → split identifiers → lower case → fold → stopwords → stem → your filters.
 * The built-in filters after `tokenize` look at one chunk at a time, so their output is memoized per chunk: a
 * catalog repeats the same words thousands of times.
 */
export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  const stopwords = options.stopwords === false ? undefined : options.stopwords instanceof Set ? options.stopwords : ENGLISH_STOPWORDS;
  const chunkTerms = new ChunkTerms(stopwords, options.stem !== false);
  const streamFilters = options.filters ?? [];
  // The memo keeps only what the pipeline reads back: term strings, or tokens when stream filters follow.
  const terms = memoize(CHUNK_MEMO_LIMIT, chunkTerms.terms, (list) => list.reduce((sum, term) => sum + STRING_BYTES + 2 * term.length, 0));
  const tokens = memoize(CHUNK_MEMO_LIMIT, chunkTerms.tokens, (list) => list.reduce((sum, token) => sum + TOKEN_BYTES + 2 * token.text.length, 0));
  const chunksOf = (text: string): string[] => {
    // NFKC leaves ASCII as it is, so pure-ASCII text (most text) skips it and the Unicode-class tokenizer.
    const ascii = !hasNonAscii(text);
    return chunkTexts(ascii ? text : normalizeUnicode(text), ascii);
  };

  if (streamFilters.length === 0) {
    return {
      analyze(text: string): string[] {
        const out: string[] = [];
        for (const chunk of chunksOf(text)) for (const term of terms(chunk)) out.push(term);
        return out;
      },
      bulkIds: (resolve) => bulkAnalysis(chunksOf, chunkTerms.ids(resolve)),
      memoryBytes: () => terms.bytes(),
    };
  }
  const analyze = (text: string): string[] => {
    let stream = chunksOf(text).flatMap((chunk) => tokens(chunk).map((t) => ({ ...t })));
    for (const filter of streamFilters) stream = filter(stream);
    return stream.map((t) => t.text);
  };
  // Stream filters see a whole text, so its terms cannot be memoized per chunk.
  const bulkIds = (resolve: (term: string) => number): BulkAnalysis => (text, out) => {
    for (const term of analyze(text)) out.push(resolve(term));
  };
  return { analyze, bulkIds, memoryBytes: () => tokens.bytes() };
}

/** `make` remembered for up to `limit` distinct keys (emptied when full), with the bytes it holds (`size` per value). */
function memoize<T>(limit: number, make: (key: string) => T, size: (value: T) => number): ((key: string) => T) & { bytes(): number } {
  const memo = new Map<string, T>();
  let bytes = 0;
  const get = (key: string): T => {
    let value = memo.get(key);
    if (value === undefined) {
      value = make(key);
      if (memo.size >= limit) {
        memo.clear();
        bytes = 0;
      }
      memo.set(key, value);
      bytes += MEMO_ENTRY_BYTES + 2 * key.length + size(value);
    }
    return value;
  };
  return Object.assign(get, { bytes: () => bytes });
}

/** Heap costs of a memo entry (its key's header, map entry and array), a term string's header, a token object. */
const MEMO_ENTRY_BYTES = 96;
const STRING_BYTES = 24;
const TOKEN_BYTES = 56;
