/**
 * Searchers and explainers over an index, one per engine, as `eval` runs them: every engine ranks the top 10, and
 * the regex engine gets a pattern made of the query's words (its query language is patterns, the labels' is words).
 * Shared by `toolsearch eval` and the service's eval route, so both measure the same thing.
 */
import { DocumentIndex } from "../indexes/document-index.js";
import { type DocumentEngine, PLAIN_DOCUMENT_BM25 } from "../indexes/document-index-options.js";
import { ToolIndex } from "../indexes/tool-index.js";
import type { ToolCatalog } from "../indexes/tool-view.js";
import { PLAIN_TOOL_BM25, type ToolEngine, type ToolSearchOptions } from "../indexes/tool-index-options.js";
import { patternFromQuery } from "./regex-pattern.js";
import type { Explainer } from "./report-data.js";
import type { Searcher } from "./runner.js";

const TOP = 10;

/**
 * The reference engine `eval` can add to the index's own: plain BM25 (one bag of words, k1 0.9, b 0.4, exact terms) on
 * the same analyzer and engine, so a report shows what the tuned defaults gain over it.
 */
export const PLAIN_ENGINE = "bm25-plain";

/**
 * Tool-set variants `eval` can run beside an engine: `bm25+sets` is `bm25` with `sets: true`, `hybrid+clauses` with
 * clauses only (groups off), `hybrid+nosets` with `sets: false` (the ranking before tool sets), and so on (see
 * `ToolSearchOptions.sets`).
 */
export const SET_VARIANTS = {
  "+sets": true, "+clauses": { clauses: true, groups: false }, "+groups": { clauses: false, groups: true }, "+nosets": false,
} as const;

/** What `eval` adds to `bm25` or `hybrid` to run it without the learned ranker (`ToolSearchOptions.ranker`). */
export const NO_RANKER_SUFFIX = "+noranker";

/**
 * The engine and options of an eval engine name such as `hybrid+sets` or `hybrid+noranker`, or undefined for
 * another name.
 */
export function setVariant(name: string): { engine: "bm25" | "hybrid"; sets?: ToolSearchOptions["sets"]; ranker?: false } | undefined {
  const match = /^(bm25|hybrid)(\+sets|\+clauses|\+groups|\+nosets|\+noranker)$/.exec(name);
  if (!match) return undefined;
  const engine = match[1] as "bm25" | "hybrid";
  return match[2] === NO_RANKER_SUFFIX ? { engine, ranker: false } : { engine, sets: SET_VARIANTS[match[2] as keyof typeof SET_VARIANTS] };
}

/**
 * What `eval --history` adds to an engine's name: the same engine with the learned signal blended in (the plain name
 * then runs with it left out, so the report shows both side by side).
 */
export const LEARNED_SUFFIX = "+learned";

/** A searcher per engine over a tool index, and one explainer that explains with the same query each engine saw. */
export function toolEvaluators(index: ToolCatalog, engines: string[]): { searchers: Record<string, Searcher>; explain: Explainer } {
  const plain = engines.includes(PLAIN_ENGINE) ? new ToolIndex(index.list(), { bm25: PLAIN_TOOL_BM25 }) : undefined;
  const searchers: Record<string, Searcher> = {};
  // A plain name runs as search would (learned signal on when it has evidence), unless its `+learned` twin is
  // measured beside it: then it is the without.
  const split = (name: string) => ({
    engine: name.replace(LEARNED_SUFFIX, "") as ToolEngine,
    learned: name.endsWith(LEARNED_SUFFIX) ? true : engines.includes(name + LEARNED_SUFFIX) ? false : undefined,
  });
  for (const name of engines) {
    const variant = setVariant(name);
    if (variant) {
      searchers[name] = async (q) => (await index.search(q, { ...variant, limit: TOP })).map((h) => h.name);
      continue;
    }
    const { engine, learned } = split(name);
    searchers[name] = name === PLAIN_ENGINE
      ? (q) => plain!.searchSync(q, { limit: TOP }).map((h) => h.name)
      : engine === "regex"
        ? (q) => index.searchSync(patternFromQuery(q), { engine: "regex", limit: TOP }).map((h) => h.name)
        : async (q) => (await index.search(q, { engine, limit: TOP, learned })).map((h) => h.name);
  }
  const explain: Explainer = (name, q, id) =>
    name === PLAIN_ENGINE ? plain!.explain(q, id, { engine: "bm25" })
      : setVariant(name) ? index.explain(q, id, setVariant(name)!)
      : name === "regex" ? index.explain(patternFromQuery(q), id, { engine: "regex" })
      : index.explain(q, id, split(name));
  return { searchers, explain };
}

/** The same over a document index (ranking document ids). */
export function documentEvaluators(index: DocumentIndex, engines: (DocumentEngine | typeof PLAIN_ENGINE)[]): { searchers: Record<string, Searcher>; explain: Explainer } {
  const plain = engines.includes(PLAIN_ENGINE) ? new DocumentIndex(index.ids().map((id) => index.get(id)!), { bm25: PLAIN_DOCUMENT_BM25 }) : undefined;
  const searchers: Record<string, Searcher> = {};
  for (const engine of engines) {
    searchers[engine] = engine === PLAIN_ENGINE
      ? async (q) => (await plain!.search(q, { limit: TOP })).map((h) => h.id)
      : async (q) => (await index.search(q, { engine, limit: TOP })).map((h) => h.id);
  }
  const explain: Explainer = (engine, q, id) =>
    engine === PLAIN_ENGINE ? plain!.explain(q, id, { engine: "bm25" }) : index.explain(q, id, { engine: engine as DocumentEngine });
  return { searchers, explain };
}
