/**
 * What a tool search reads, handed down by the index once it has made them ready (vectors embedded, the catalog's
 * lexical ranking and fusion fitted, the caller's BM25 subset made): the engines, the usage inputs and the tools.
 * The stages of the pipeline read these and never the index itself, so data flows one way: the index prepares, the
 * pipeline ranks.
 */
import type { Tool } from "../catalog/tool.js";
import type { SemanticStore } from "../embeddings/semantic-store.js";
import type { Bm25fIndex, Bm25fSubset } from "../engines/bm25f.js";
import type { RegexIndex } from "../engines/regex.js";
import type { UsageRanking } from "../usage/ranking.js";

/** BM25 as one search reads it. */
export interface LexicalEngine {
  /** The BM25F index, with the catalog's fitted ranking in place. */
  index: Bm25fIndex;
  /** What BM25 is told on every call of this search: typo tolerance, and the caller's subset when it sees only some tools. */
  query: { fuzzy?: boolean; subset?: Bm25fSubset };
  /** The BM25 fields' names, in the engine's order (the learned ranker's field features read them). */
  fields: readonly string[];
}

/** The engines and inputs of one search, as seen by its caller. */
export interface SearchEngines {
  /**
   * BM25, made ready only for the searches that read it (`bm25`, `hybrid`, and explanations other than `regex`'s):
   * readying it may fit the catalog's lexical ranking, which a `semantic` or `regex` search must not trigger.
   */
  lexical?: LexicalEngine;
  /** The dense half: vectors, the `semantic` ranking and `hybrid`'s fusion. */
  semantic: SemanticStore;
  regex: RegexIndex;
  /** Synonyms, pinned rules and the learned usage signal. */
  usage: UsageRanking;
  /** A tool of the index by name (every id an engine returns names one). */
  tool(name: string): Tool;
  /** Which names a pinned rule or the learned signal may bring in: tools of the index the caller sees. */
  exists(name: string): boolean;
  /** The caller's visibility filter for the engines that take one (dense, regex); undefined when it sees everything. */
  accept?: (name: string) => boolean;
}

/** The lexical engine of a search that reads BM25 (a programming error otherwise, never a caller's). */
export function lexicalOf(engines: SearchEngines): LexicalEngine {
  if (!engines.lexical) throw new Error("BM25 was not made ready for this search");
  return engines.lexical;
}
