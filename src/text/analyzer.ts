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
import { foldDiacritics } from "./filters/fold-diacritics.js";
import { lowercase } from "./filters/lowercase.js";
import { normalizeUnicode } from "./filters/normalize.js";
import { splitIdentifiers } from "./filters/split-identifiers.js";
import { stemEnglish } from "./filters/stem.js";
import { ENGLISH_STOPWORDS, removeStopwords } from "./filters/stopwords.js";
import { tokenize } from "./filters/tokenize.js";
import type { Token, TokenFilter } from "./token.js";

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
}

/** How many distinct chunks an analyzer remembers the terms of. */
const CHUNK_MEMO_LIMIT = 300_000;

/**
 * Builds the pipeline: normalize → tokenize → split identifiers → lower case → fold → stopwords → stem → your filters.
 * The built-in filters after `tokenize` look at one chunk at a time, so their output is memoized per chunk: a
 * catalog repeats the same words thousands of times.
 */
export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  const chunkFilters: TokenFilter[] = [splitIdentifiers, lowercase, foldDiacritics];
  if (options.stopwords !== false) {
    chunkFilters.push(removeStopwords(options.stopwords instanceof Set ? options.stopwords : ENGLISH_STOPWORDS));
  }
  if (options.stem !== false) chunkFilters.push(stemEnglish());
  const streamFilters = options.filters ?? [];
  const memo = new Map<string, Token[]>();

  const analyzeChunk = (chunk: string): Token[] => {
    let tokens = memo.get(chunk);
    if (tokens === undefined) {
      tokens = [{ text: chunk }];
      for (const filter of chunkFilters) tokens = filter(tokens);
      if (memo.size < CHUNK_MEMO_LIMIT) memo.set(chunk, tokens);
    }
    return tokens;
  };

  return {
    analyze(text: string): string[] {
      const chunks = tokenize(normalizeUnicode(text));
      if (streamFilters.length === 0) {
        const terms: string[] = [];
        for (const chunk of chunks) for (const token of analyzeChunk(chunk.text)) terms.push(token.text);
        return terms;
      }
      let tokens = chunks.flatMap((chunk) => analyzeChunk(chunk.text).map((t) => ({ ...t })));
      for (const filter of streamFilters) tokens = filter(tokens);
      return tokens.map((t) => t.text);
    },
  };
}
