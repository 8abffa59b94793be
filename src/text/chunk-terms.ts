/**
 * The built-in chunk filters of an analyzer (split identifiers → lower case → fold → stopwords → stem), applied to one
 * chunk: as tokens (for stream filters), as terms (for `analyze`) or as an index's term ids (for a bulk build). An
 * ASCII chunk takes the fused scan of `asciiChunkWords`, which gives the same terms.
 */
import { asciiChunkWords } from "./filters/ascii-chunk.js";
import { foldDiacritics, foldText } from "./filters/fold-diacritics.js";
import { lowercase } from "./filters/lowercase.js";
import { mightSplit, splitIdentifiers } from "./filters/split-identifiers.js";
import { stemEnglish, stemOnce, stemWord } from "./filters/stem.js";
import { removeStopwords } from "./filters/stopwords.js";
import { hasNonAscii } from "./filters/tokenize.js";
import type { IdList } from "./term-ids.js";
import type { Token, TokenFilter } from "./token.js";

export class ChunkTerms {
  private readonly filters: TokenFilter[] = [splitIdentifiers, lowercase, foldDiacritics];
  /** Where `keep` puts the terms of the chunk being analyzed. */
  private found: string[] = [];

  constructor(private readonly stopwords: ReadonlySet<string> | undefined, private readonly stem: boolean) {
    if (stopwords) this.filters.push(removeStopwords(stopwords));
    if (stem) this.filters.push(stemEnglish());
  }

  /** The chunk's tokens through the filters. */
  tokens = (chunk: string): Token[] => {
    let tokens: Token[] = [{ text: chunk }];
    for (const filter of this.filters) tokens = filter(tokens);
    return tokens;
  };

  /** The chunk's terms. */
  terms = (chunk: string): string[] => {
    if (hasNonAscii(chunk)) {
      if (mightSplit(chunk)) return this.tokens(chunk).map((t) => t.text);
      const term = this.plainWord(chunk);
      return term === undefined ? [] : [term];
    }
    this.found = [];
    asciiChunkWords(chunk, this.keep);
    return this.found;
  };

  /**
   * Appends a chunk's term ids (from `resolve`) to a list. Each distinct word's id (-1 for a stopword) is remembered
   * for as long as the returned function lives, so that a word met in another chunk is neither stemmed nor resolved
   * again.
   */
  ids(resolve: (term: string) => number): (chunk: string, out: IdList) => void {
    const wordIds = new Map<string, number>();
    let ids: IdList;
    const emit = (text: string, whole: boolean): void => {
      if (whole) return ids.push(resolve(text));
      let id = wordIds.get(text);
      if (id === undefined) {
        const term = this.word(text, stemOnce);
        wordIds.set(text, (id = term === undefined ? -1 : resolve(term)));
      }
      if (id >= 0) ids.push(id);
    };
    return (chunk, out) => {
      if (hasNonAscii(chunk)) return this.otherIds(chunk, out, resolve);
      ids = out;
      asciiChunkWords(chunk, emit);
    };
  }

  /**
   * The term of a chunk that `splitIdentifiers` leaves whole (`mightSplit` is false), or undefined when it is dropped: a lone
   * character is, as a lone letter is; the rest is lower-cased, folded, then a piece like any other (see `word`).
   */
  private plainWord(chunk: string): string | undefined {
    if (chunk.length < 2) return undefined;
    const folded = foldText(chunk.toLowerCase());
    return folded === "" ? undefined : this.word(folded);
  }

  /** A piece's term (stopwords, stemming with `stem`), or undefined when it is dropped. */
  private word(text: string, stem: (word: string) => string = stemWord): string | undefined {
    if (this.stopwords?.has(text)) return undefined;
    return this.stem ? stem(text) : text;
  }

  private readonly keep = (text: string, whole: boolean): void => {
    const term = whole ? text : this.word(text);
    if (term !== undefined) this.found.push(term);
  };

  /** A non-ASCII chunk's ids: apart from the ASCII path, so that the first one of a build does not deoptimise it. */
  private otherIds(chunk: string, out: IdList, resolve: (term: string) => number): void {
    if (!mightSplit(chunk)) {
      const term = this.plainWord(chunk);
      if (term !== undefined) out.push(resolve(term));
      return;
    }
    const tokens = this.tokens(chunk);
    for (let i = 0; i < tokens.length; i++) out.push(resolve(tokens[i].text));
  }
}
