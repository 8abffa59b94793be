/** Options of a `ToolIndex`, one small type per concept. */
import type { Embedder } from "../embeddings/embedder.js";
import type { EmbeddingProvider } from "../embeddings/provider.js";
import type { ToolTextRecipe } from "../embeddings/texts.js";
import type { FusionOptions } from "../engines/fusion.js";
import type { FuzzyOptions } from "../engines/fuzzy.js";
import type { AnalyzerOptions } from "../text/analyzer.js";
import type { ToolTexts } from "./tool-fields.js";
import type { Rules, Synonyms } from "../usage/curation.js";
import type { LearnedSignal } from "../usage/learned.js";
import type { RankerModel } from "../ranking/model.js";

/** Weight and length normalization of one tool field in BM25F. */
export interface FieldWeight {
  weight: number;
  b: number;
}

/** BM25F parameters for tools. */
export interface ToolBm25Options {
  k1?: number;
  /** Per-field weight and `b`; fields left out keep their defaults. */
  fields?: Partial<Record<keyof ToolTexts, Partial<FieldWeight>>>;
  /** Typo tolerance, or `false` to match exact terms only. */
  fuzzy?: FuzzyOptions | false;
  /**
   * Index every field as one bag of words with this length normalization instead of separate BM25F fields (field
   * weights are then ignored): plain BM25, the reference the defaults are measured against (`PLAIN_TOOL_BM25`).
   */
  bag?: { b: number };
  /**
   * Choose the lexical ranking per catalog (default true when neither `k1`, `fields` nor `bag` is given): BM25F with
   * the default weights, plain BM25, or the default weights normalized over the whole tool, whichever finds the
   * sources of pseudo-queries made from the catalog's own tools best (`src/indexes/catalog-fit.ts`). Remade when a
   * fifth of the catalog has changed since; kept in snapshots. `false` keeps the default weights.
   */
  fit?: boolean;
}

/**
 * Defaults chosen to generalize (`scripts/tune-bm25.ts --grid`, figures in docs/benchmarks.md): each candidate is
 * scored on StableToolBench, MetaTool, ToolAlpaca, the 12k scale set and their stress variants (short descriptions,
 * opaque names, the domain only in the category, OpenAPI imports: `scripts/make-stress-sets.ts`) as nDCG@10 and
 * recall@10 over plain BM25's (`PLAIN_TOOL_BM25`), and the setting whose WORST set loses least is kept, so that no set
 * pays for another's gain:
 * - the name counts twice a description word, with full length normalization (long generated names should not win
 *   by length; at 3, names outweighed short descriptions in a 12k catalog and plain BM25 won there);
 * - parameter names count like description words; parameter descriptions half, enum values a little;
 * - the category counts twice a description word, with little length normalization: on catalogs whose descriptions
 *   are short, the category is often the only place the domain is named. (At weight 1 plain BM25, which keeps every
 *   field in one bag, still won on such a variant; at 0 it won on a held-out set.)
 * Settings fitted by coordinate ascent moved far from these and generalized worse in leave-one-set-out runs.
 */
export const DEFAULT_TOOL_BM25: Required<Omit<ToolBm25Options, "fuzzy" | "bag" | "fit">> & { fields: Record<keyof ToolTexts, FieldWeight> } = {
  k1: 1.2,
  fields: {
    name: { weight: 2, b: 0.75 },
    description: { weight: 1, b: 0.75 },
    paramNames: { weight: 1, b: 0.5 },
    paramDescriptions: { weight: 0.5, b: 0.75 },
    enumValues: { weight: 0.2, b: 0.75 },
    category: { weight: 2, b: 0.2 },
  },
};

/**
 * Whether tool BM25F (not a `bag`) floors each match at its share of a plain match (`Bm25fOptions.presenceFloor`): a
 * word that only one tool has counts there at least as a plain BM25 match of its raw frequency would, wherever it is
 * written, and a word of `df` tools `1/df` of that. On every local set it is at or above the plain BM25F, and on
 * ToolLens, whose task queries quote the example values of one tool's parameter description, it lifts `bm25` from
 * 35.6 to 36.9 nDCG@10 (docs/relevance.md).
 */
export const TOOL_PRESENCE_FLOOR = true;

/**
 * Plain BM25 (Okapi, k1 0.9, b 0.4, every field in one bag, exact terms), run by the same engine on the same
 * analyzer as the defaults: the reference of `toolsearch eval --engine bm25-plain` and of docs/benchmarks.md.
 *
 * @example
 * ```ts
 * const reference = new ToolIndex(tools, { bm25: PLAIN_TOOL_BM25 });
 * ```
 */
export const PLAIN_TOOL_BM25: ToolBm25Options = { k1: 0.9, bag: { b: 0.4 }, fuzzy: false };

/**
 * The tool-set parts each engine uses when a search does not say (`ToolSearchOptions.sets`). Clauses are on for
 * `hybrid`, where each clause is fused on its own and measured at or above the plain ranking on every set here
 * (docs/relevance.md); `bm25` keeps them off, as its clause merge lost on MetaTool. Groups stay off for both: they
 * lose where a task needs tools of different servers or categories.
 */
export const DEFAULT_SETS: Record<"bm25" | "hybrid", Required<ToolSetOptions>> = {
  bm25: { clauses: false, groups: false },
  hybrid: { clauses: true, groups: false },
};

/** Options of a `ToolIndex`. */
export interface ToolIndexOptions {
  analyzer?: AnalyzerOptions;
  bm25?: ToolBm25Options;
  /**
   * Embeddings for the `semantic` and `hybrid` engines: an `Embedder` (a provider behind the SQLite cache) or a bare
   * provider (then cached at `.toolsearch/embeddings.sqlite`). Default: USE lite, offline, created on first use.
   */
  embedder?: Embedder | EmbeddingProvider;
  /** What of a tool is embedded (default `full`: name words, description, parameters). */
  embeddingText?: ToolTextRecipe;
  /** How `hybrid` fuses BM25 and semantic rankings. */
  fusion?: FusionOptions;
  /** Synonyms applied to every query (SPEC §17); `setSynonyms` replaces them. */
  synonyms?: Synonyms;
  /** Pinned-result rules (SPEC §17); `setRules` replaces them. */
  rules?: Rules;
  /**
   * Usage learned from past searches and calls, blended into `bm25` and `hybrid` once it has enough evidence
   * (`LearnedSignal`; the service builds it from its store's usage events); `setLearned` replaces it.
   */
  learned?: LearnedSignal;
  /**
   * The learned ranker (issue 36, `src/ranking/`): a small model over every engine's evidence that re-ranks the union
   * of their top candidates for `hybrid` and `bm25`. Default: the model shipped with the package (a kind of search the
   * file has no model for is ranked as before); a `RankerModel` of your own; `false` for none. Off by itself where
   * the options choose the scoring (`bm25.bag`, `k1` or `fields` for both, a `fusion.method` or
   * `lexicalWeight` for `hybrid`).
   */
  ranker?: RankerModel | false;
}

/** The engines a `ToolIndex` answers with. */
export type ToolEngine = "bm25" | "regex" | "semantic" | "hybrid";

export const TOOL_ENGINES: readonly ToolEngine[] = ["bm25", "regex", "semantic", "hybrid"];

/** Options of one search. */
export interface ToolSearchOptions {
  /** Default `bm25`. */
  engine?: ToolEngine;
  /** Number of results, 1–50 (default 5). */
  limit?: number;
  /** Typo tolerance for this search (default on; `bm25` only). */
  fuzzy?: boolean;
  /**
   * Tool sets for multi-step tasks (`bm25` and `hybrid`): `true` for both parts, `false` for none, or one of them
   * (a part not named keeps its default, `DEFAULT_SETS`: clauses on for `hybrid`, everything else off). `clauses`
   * also searches each clause of a request of several and keeps every clause's best tools near the top (a request of
   * one clause ranks as without it); `groups` lets a server (`server__tool` names) or category whose best member
   * ranks high lift its other members.
   */
  sets?: boolean | ToolSetOptions;
  /** Search only the tools a caller may see, as if the others were not in the index (see `ToolVisibility`). */
  visible?: ToolVisibility;
  /** `false` leaves the learned signal out of this search (`bm25`, `hybrid`; default on once it has enough evidence). */
  learned?: boolean;
  /** `false` ranks without the learned ranker (`bm25`, `hybrid`; see `ToolIndexOptions.ranker`), as before it. */
  ranker?: boolean;
}

/**
 * Which tools a caller sees (SPEC §16). A search, explain or suggestion given one runs as if the other tools were not
 * in the index: ranks, scores, totals and typo expansions are those of an index of the visible tools alone. Reuse one
 * object per caller: what the index works out for it is cached on it.
 */
export interface ToolVisibility {
  readonly accept: (name: string) => boolean;
}

/** The parts of `ToolSearchOptions.sets`. */
export interface ToolSetOptions {
  clauses?: boolean;
  groups?: boolean;
}

/** One search result. */
export interface ToolHit {
  name: string;
  score: number;
  /** The description cut at a word boundary to at most 200 characters. */
  description: string;
  category?: string;
}

export const DEFAULT_LIMIT = 5;
export const MAX_LIMIT = 50;
export const DESCRIPTION_PREVIEW_CHARS = 200;
