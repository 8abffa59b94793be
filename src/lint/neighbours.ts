/**
 * Search neighbours: for every tool, the closest other tool according to the project's own BM25F engine, found by
 * querying the index with the tool's own name and description. One bounded query per tool (its rarest terms only),
 * so the pass grows with the catalog, not with its square.
 */
import type { Tool } from "../catalog/tool.js";
import { Bm25fIndex } from "../engines/bm25f.js";
import { TOOL_FIELDS, toolTexts } from "../indexes/tool-fields.js";
import { DEFAULT_TOOL_BM25 } from "../indexes/tool-index-options.js";
import type { Analyzer } from "../text/analyzer.js";
import type { LintTool, Neighbour } from "./types.js";

/** Query terms per tool: the rarest ones carry the ranking; common words only add cost. */
const MAX_QUERY_TERMS = 16;
/** Always keep this many of the rarest terms, however common, so that every tool has a query. */
const MIN_QUERY_TERMS = 4;
/** Beyond the first few, terms in more than this share of tools are left out: they cost the most and rank the least. */
const COMMON_TERM_SHARE = 0.01;
/** Hits fetched per query: the tool itself plus a few others. */
const HITS_PER_QUERY = 4;

/** The searchable form of a lint tool, with the same fields a `ToolIndex` indexes. */
function asTool(tool: LintTool): Tool {
  const schema = typeof tool.schema === "object" && tool.schema !== null ? (tool.schema as Record<string, unknown>) : {};
  return { name: tool.name ?? "", description: tool.description, inputSchema: schema, category: tool.category, shape: "anthropic", definition: { name: "", input_schema: {} }, extras: {} };
}

/** Builds the neighbour map: tool index → its closest other tool and how close it scores. */
export function findNeighbours(tools: LintTool[], analyzer: Analyzer): Map<number, Neighbour> {
  const index = new Bm25fIndex({
    k1: DEFAULT_TOOL_BM25.k1,
    fields: TOOL_FIELDS.map((name) => ({ name, ...DEFAULT_TOOL_BM25.fields[name] })),
    fuzzy: false,
  });
  for (const tool of tools) {
    const texts = toolTexts(asTool(tool));
    // The description is already analyzed; the other fields are short or shared, so analysis is cheap there.
    index.add(String(tool.index), TOOL_FIELDS.map((field) => (field === "description" ? tool.descriptionTerms : analyzer.analyze(texts[field]))));
  }
  const neighbours = new Map<number, Neighbour>();
  for (const tool of tools) {
    const terms = queryTerms(tool, index, Math.max(50, tools.length * COMMON_TERM_SHARE));
    if (terms.length === 0) continue;
    const hits = index.search(terms, HITS_PER_QUERY, { fuzzy: false });
    const self = hits.find((h) => h.id === String(tool.index));
    const other = hits.find((h) => h.id !== String(tool.index));
    if (!other || other.score <= 0) continue;
    // When the tool is not even in its own top hits, its look-alikes match it at least as well as it matches itself.
    const closeness = self ? Math.min(1, other.score / self.score) : 1;
    neighbours.set(tool.index, { other: Number(other.id), closeness });
  }
  return neighbours;
}

/** The tool's own rarest terms (name and description), most distinctive first. */
function queryTerms(tool: LintTool, index: Bm25fIndex, commonDf: number): string[] {
  const byRarity = [...tool.terms]
    .map((term) => ({ term, df: index.documentFrequency(term) }))
    .sort((a, b) => a.df - b.df);
  const kept = byRarity.filter((t, i) => i < MIN_QUERY_TERMS || t.df <= commonDf);
  return kept.slice(0, MAX_QUERY_TERMS).map((t) => t.term);
}
