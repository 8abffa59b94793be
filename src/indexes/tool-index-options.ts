/** Options of a `ToolIndex`, one small type per concept. */
import type { FuzzyOptions } from "../engines/fuzzy.js";
import type { AnalyzerOptions } from "../text/analyzer.js";
import type { ToolTexts } from "./tool-fields.js";

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
}

/**
 * Defaults chosen by measurement over StableToolBench and MetaTool together (see docs/benchmarks.md): the name
 * counts most, parameters and enum values little, since they repeat across many tools.
 */
export const DEFAULT_TOOL_BM25: Required<Omit<ToolBm25Options, "fuzzy">> & { fields: Record<keyof ToolTexts, FieldWeight> } = {
  k1: 1.2,
  fields: {
    name: { weight: 3, b: 0.5 },
    description: { weight: 1, b: 0.75 },
    paramNames: { weight: 0.5, b: 0.75 },
    paramDescriptions: { weight: 0.4, b: 0.75 },
    enumValues: { weight: 0.2, b: 0.75 },
    category: { weight: 0.5, b: 0.5 },
  },
};

/** Options of a `ToolIndex`. */
export interface ToolIndexOptions {
  analyzer?: AnalyzerOptions;
  bm25?: ToolBm25Options;
}

/** The engines a `ToolIndex` answers with. */
export type ToolEngine = "bm25" | "regex";

/** Options of one search. */
export interface ToolSearchOptions {
  /** Default `bm25`. */
  engine?: ToolEngine;
  /** Number of results, 1–50 (default 5). */
  limit?: number;
  /** Typo tolerance for this search (default on; `bm25` only). */
  fuzzy?: boolean;
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
