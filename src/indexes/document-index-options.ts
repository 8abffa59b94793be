/** Options and result types of a `DocumentIndex`, one small type per concept. */
import type { Embedder } from "../embeddings/embedder.js";
import type { EmbeddingProvider } from "../embeddings/provider.js";
import type { FusionOptions } from "../engines/fusion.js";
import type { FuzzyOptions } from "../engines/fuzzy.js";
import type { AnalyzerOptions } from "../text/analyzer.js";
import type { PassageOptions } from "../text/passages.js";
import type { FieldWeight } from "./tool-index-options.js";

/** BM25F parameters for documents (fields: title, body). */
export interface DocumentBm25Options {
  k1?: number;
  title?: Partial<FieldWeight>;
  body?: Partial<FieldWeight>;
  /** Typo tolerance, or `false` to match exact terms only. */
  fuzzy?: FuzzyOptions | false;
}

/**
 * Defaults, measured on two different set-ups that agreed (docs/documents.md): StackFAQ's 125 threads with their
 * labelled queries, and 100k StackFAQ-derived passages with distractors. Passages are already bounded in length, so
 * body length normalization is mild (b 0.5) and term frequency saturates late (k1 2); titles are short and say what
 * a document is about, so a title word counts five body words and title length is not penalized (b 0).
 */
export const DEFAULT_DOCUMENT_BM25 = {
  k1: 2,
  title: { weight: 5, b: 0 },
  body: { weight: 1, b: 0.5 },
} as const satisfies DocumentBm25Options;

/**
 * The plain BM25 reference for documents (k1 0.9, b 0.4, title and passage weighted alike, exact terms), run by the
 * same engine on the same analyzer as the defaults; `toolsearch eval --docs … --engine bm25-plain`.
 */
export const PLAIN_DOCUMENT_BM25: DocumentBm25Options = {
  k1: 0.9,
  title: { weight: 1, b: 0.4 },
  body: { weight: 1, b: 0.4 },
  fuzzy: false,
};

/**
 * How passage scores make a document's score: the best passage counts fully, the next ones by `decay`, `decay²` …
 * (up to `passages` of them). With the default `decay` 0 a document scores by its best passage alone: on StackFAQ
 * a decay helped with short passages and hurt with long ones (docs/documents.md), so it is off unless asked for.
 */
export interface PassageScoring {
  /** Weight of the second-best passage relative to the best (0 = best passage only, the default). */
  decay?: number;
  /** How many of a document's best passages count (default 3). */
  passages?: number;
}

export const DEFAULT_PASSAGE_SCORING: Required<PassageScoring> = { decay: 0, passages: 3 };

/** Options of a `DocumentIndex`. */
export interface DocumentIndexOptions {
  analyzer?: AnalyzerOptions;
  bm25?: DocumentBm25Options;
  /** How long documents are cut into passages for scoring. */
  passages?: PassageOptions;
  /** How passage scores combine into a document score. */
  scoring?: PassageScoring;
  /** Longest snippet (default 240, SPEC §4). */
  snippetChars?: number;
  /**
   * Embeddings for the `semantic` and `hybrid` engines (title plus passage is embedded per passage); see
   * `ToolIndexOptions.embedder`. Default: USE lite, offline, created on first use.
   */
  embedder?: Embedder | EmbeddingProvider;
  /** How `hybrid` fuses BM25 and semantic passage rankings. */
  fusion?: FusionOptions;
}

/**
 * The engines a `DocumentIndex` answers with. Engine dispatch lives in one place: `DocumentIndex.rankPassages`.
 */
export type DocumentEngine = "bm25" | "semantic" | "hybrid";

export const DOCUMENT_ENGINES: readonly DocumentEngine[] = ["bm25", "semantic", "hybrid"];

/** Options of one search. */
export interface DocumentSearchOptions {
  /** Default `bm25`. */
  engine?: DocumentEngine;
  /** Number of documents, 1–50 (default 5). */
  limit?: number;
  /** Typo tolerance for this search (default on; `bm25` only). */
  fuzzy?: boolean;
}

/** One search result: a preview to decide whether to read the document. */
export interface DocumentHit {
  id: string;
  title: string;
  score: number;
  /** At most 240 characters, starting near the first matching word of the best passage. */
  snippet: string;
  /** Where the snippet starts in the document's text: `read(id, { offset })` continues from there. */
  offset: number;
  url?: string;
}

/** Options of `read`. */
export interface ReadOptions {
  /** Where to start, in characters (UTF-16 code units, as JSON counts them; default 0). */
  offset?: number;
  /** Most characters to return (default 4000). */
  maxChars?: number;
}

/** One page of a document. Pages are contiguous: joining them in order gives the whole text. */
export interface DocumentPage {
  id: string;
  title: string;
  text: string;
  /** Where `text` starts in the document. */
  offset: number;
  /** The document's length, in the same units. */
  total_chars: number;
  /** Where the next page starts; absent on the last page. */
  next_offset?: number;
  url?: string;
}

export const DEFAULT_READ_CHARS = 4000;
export const MAX_READ_CHARS = 1_000_000;
