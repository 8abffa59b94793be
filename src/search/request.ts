/**
 * A tool search request, resolved once from the caller's options before anything runs: the engine, the checked
 * limit, the tool-set parts in use and the learned ranker's model, if any. Every stage of the pipeline
 * (`pipeline.ts`) reads this instead of re-deciding from raw options.
 */
import { needsAsync } from "../embeddings/semantic-store.js";
import { ToolsearchError } from "../errors.js";
import { type LearnedModel, type RankerModel, shippedModel } from "../ranking/model.js";
import {
  DEFAULT_LIMIT, DEFAULT_SETS, MAX_LIMIT, TOOL_ENGINES, type ToolEngine, type ToolIndexOptions, type ToolSearchOptions, type ToolSetOptions,
  type ToolVisibility,
} from "../indexes/tool-index-options.js";

/** The learned ranker's models of an index: one for `hybrid`, one over BM25 alone for `bm25`; either may be off. */
export interface RankerModels {
  hybrid?: LearnedModel;
  lexical?: LearnedModel;
}

/** One search, resolved: what every stage reads. */
export interface ToolSearchRequest {
  engine: ToolEngine;
  /** Results wanted (checked: 1–50). */
  limit: number;
  /** The tool-set parts in use (`bm25` and `hybrid`; both off for the other engines). */
  sets: Required<ToolSetOptions>;
  /** The learned ranker's model for this engine, or undefined where it is off (or the engine has none). */
  model?: LearnedModel;
  /** Typo tolerance (`bm25`, and the BM25 half of `hybrid`). */
  fuzzy?: boolean;
  /** `false` leaves the learned usage signal out (it never applies to `regex` and `semantic`). */
  learned?: boolean;
  /** The caller's part of the catalog, when it sees only some tools. */
  visible?: ToolVisibility;
}

/**
 * Resolves a search's options: checks the limit (`invalid_option`) and the engine (`unknown_engine`), in that order,
 * as every surface has always reported them.
 */
export function searchRequest(options: ToolSearchOptions, models: RankerModels): ToolSearchRequest {
  const limit = checkLimit(options.limit);
  const engine = options.engine ?? "bm25";
  if (!TOOL_ENGINES.includes(engine)) {
    throw new ToolsearchError("unknown_engine", `Unknown engine ${JSON.stringify(engine)}: use ${TOOL_ENGINES.join(", ")}.`);
  }
  const learning = engine === "bm25" || engine === "hybrid";
  return {
    engine,
    limit,
    sets: learning ? setParts(options.sets, engine) : { clauses: false, groups: false },
    model: modelFor(engine, options, models),
    fuzzy: options.fuzzy,
    learned: learning ? options.learned : false,
    visible: options.visible,
  };
}

/** Whether the engine embeds the query (and so can only run through the async `search`). */
export function embedsQuery(engine: ToolEngine): engine is "semantic" | "hybrid" {
  return engine === "semantic" || engine === "hybrid";
}

/** `searchRequest` for the synchronous path: a dense engine is refused (`needsAsync`) once the options are checked. */
export function syncSearchRequest(options: ToolSearchOptions, models: RankerModels): ToolSearchRequest {
  const request = searchRequest(options, models);
  if (embedsQuery(request.engine)) throw needsAsync(request.engine);
  return request;
}

/** The model a search with this engine uses: none for `regex` and `semantic`, or where the caller turned it off. */
export function modelFor(engine: ToolEngine, options: { ranker?: boolean }, models: RankerModels): LearnedModel | undefined {
  if (options.ranker === false) return undefined;
  return engine === "hybrid" ? models.hybrid : engine === "bm25" ? models.lexical : undefined;
}

/**
 * Which parts of tool sets a search uses: those it asked for, else the engine's defaults (`DEFAULT_SETS`); `false`
 * turns every part off.
 */
export function setParts(sets: ToolSearchOptions["sets"], engine: "bm25" | "hybrid"): Required<ToolSetOptions> {
  const defaults = DEFAULT_SETS[engine];
  if (sets === undefined) return defaults;
  if (typeof sets === "object") return { clauses: sets.clauses ?? defaults.clauses, groups: sets.groups ?? defaults.groups };
  return { clauses: sets, groups: sets };
}

/** Validates a result limit (1–50, default 5). */
export function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ToolsearchError("invalid_option", `limit must be a whole number from 1 to ${MAX_LIMIT} (got ${limit}).`);
  }
  return limit;
}

/**
 * The learned ranker's models for these options: the shipped model (or the one given), except where the caller chose
 * the scoring itself (plain BM25 or custom BM25 parameters turn both off, a fusion `method` or `lexicalWeight` the
 * hybrid one), so that a reference or a tuning run measures exactly what it configured.
 */
export function rankerModels(options: ToolIndexOptions): RankerModels {
  if (options.ranker === false) return {};
  const model: RankerModel = options.ranker ?? shippedModel();
  const bm25 = options.bm25 ?? {};
  const customLexical = bm25.bag !== undefined || bm25.k1 !== undefined || bm25.fields !== undefined;
  return {
    hybrid: customLexical || options.fusion?.method !== undefined || options.fusion?.lexicalWeight !== undefined ? undefined : model.hybrid,
    lexical: customLexical ? undefined : model.lexical,
  };
}
