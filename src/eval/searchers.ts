/**
 * Searchers and explainers over an index, one per engine, as `eval` runs them: every engine ranks the top 10, and
 * the regex engine gets a pattern made of the query's words (its query language is patterns, the labels' is words).
 * Shared by `toolsearch eval` and the service's eval route, so both measure the same thing.
 */
import type { DocumentIndex } from "../indexes/document-index.js";
import type { DocumentEngine } from "../indexes/document-index-options.js";
import type { ToolIndex } from "../indexes/tool-index.js";
import type { ToolEngine } from "../indexes/tool-index-options.js";
import { patternFromQuery } from "./regex-pattern.js";
import type { Explainer } from "./report-data.js";
import type { Searcher } from "./runner.js";

const TOP = 10;

/** A searcher per engine over a tool index, and one explainer that explains with the same query each engine saw. */
export function toolEvaluators(index: ToolIndex, engines: ToolEngine[]): { searchers: Record<string, Searcher>; explain: Explainer } {
  const searchers: Record<string, Searcher> = {};
  for (const engine of engines) {
    searchers[engine] = engine === "regex"
      ? (q) => index.searchSync(patternFromQuery(q), { engine: "regex", limit: TOP }).map((h) => h.name)
      : async (q) => (await index.search(q, { engine, limit: TOP })).map((h) => h.name);
  }
  const explain: Explainer = (engine, q, id) =>
    engine === "regex" ? index.explain(patternFromQuery(q), id, { engine: "regex" }) : index.explain(q, id, { engine: engine as ToolEngine });
  return { searchers, explain };
}

/** The same over a document index (ranking document ids). */
export function documentEvaluators(index: DocumentIndex, engines: DocumentEngine[]): { searchers: Record<string, Searcher>; explain: Explainer } {
  const searchers: Record<string, Searcher> = {};
  for (const engine of engines) searchers[engine] = async (q) => (await index.search(q, { engine, limit: TOP })).map((h) => h.id);
  const explain: Explainer = (engine, q, id) => index.explain(q, id, { engine: engine as DocumentEngine });
  return { searchers, explain };
}
