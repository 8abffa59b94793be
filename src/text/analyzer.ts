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
import { chunkTexts, hasNonAscii } from "./filters/tokenize.js";
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
  const chunkTokens = (chunk: string): Token[] => {
    let tokens: Token[] = [{ text: chunk }];
    for (const filter of chunkFilters) tokens = filter(tokens);
    return tokens;
  };
  // The memo keeps only what the pipeline reads back: term strings, or tokens when stream filters follow.
  const terms = memoize(CHUNK_MEMO_LIMIT, (chunk) => chunkTokens(chunk).map((t) => t.text));
  const tokens = memoize(CHUNK_MEMO_LIMIT, chunkTokens);
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
    };
  }
  return {
    analyze(text: string): string[] {
      let stream = chunksOf(text).flatMap((chunk) => tokens(chunk).map((t) => ({ ...t })));
      for (const filter of streamFilters) stream = filter(stream);
      return stream.map((t) => t.text);
    },
  };
}

/** `make` remembered for up to `limit` distinct keys. */
function memoize<T>(limit: number, make: (key: string) => T): (key: string) => T {
  const memo = new Map<string, T>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      value = make(key);
      if (memo.size < limit) memo.set(key, value);
    }
    return value;
  };
}
