/**
 * `POST /v1/collections/{c}/explain` (why an item ranks where it does: the `explain --json` shape) and
 * `POST /v1/collections/{c}/eval` (an eval of uploaded labelled queries: the report data the HTML report and the
 * console's eval page draw). Reads only: they answer from the in-memory indexes.
 */
import type { FastifyInstance } from "fastify";
import { ToolsearchError } from "../../errors.js";
import { parseQueries } from "../../eval/queries.js";
import { buildReportData, type Explainer } from "../../eval/report-data.js";
import { evaluateRuns, type Searcher } from "../../eval/runner.js";
import { documentEvaluators, toolEvaluators } from "../../eval/searchers.js";
import { DOCUMENT_ENGINES, type DocumentEngine } from "../../indexes/document-index-options.js";
import { TOOL_ENGINES, type ToolEngine } from "../../indexes/tool-index-options.js";
import type { RequestKey } from "../auth.js";
import type { Collections, LoadedCollection } from "../collections.js";
import { toolsFor } from "../visibility.js";
import { anyObject, bearer, collectionParams, MAX_QUERY_CHARS, withErrors } from "../schemas.js";
import { withDeadline } from "./search.js";

/** Most queries one eval request runs (a larger set belongs to `toolsearch eval`, which has no request timeout). */
export const MAX_EVAL_QUERIES = 2000;
/** Most bytes of an uploaded queries file. */
const MAX_QUERIES_TEXT = 4 * 1024 * 1024;
/** Explanations per engine in an eval answer. */
const EVAL_EXPLANATIONS = 200;

const explainBody = {
  type: "object",
  required: ["query", "name"],
  additionalProperties: false,
  properties: {
    query: { type: "string", minLength: 1, maxLength: MAX_QUERY_CHARS },
    name: { type: "string", minLength: 1, maxLength: 1024, description: "Tool name or document id" },
    engine: { type: "string", enum: [...TOOL_ENGINES], description: "Default bm25" },
  },
} as const;

const evalBody = {
  type: "object",
  required: ["queries"],
  additionalProperties: false,
  properties: {
    queries: { type: "string", minLength: 1, maxLength: MAX_QUERIES_TEXT, description: "The labelled-queries file's text (SPEC §3)" },
    format: { type: "string", enum: ["jsonl", "json", "yaml"], description: "Default jsonl" },
    engines: { type: "array", items: { type: "string", enum: [...TOOL_ENGINES] }, minItems: 1, uniqueItems: true, description: "Default: every engine of the collection" },
    max_queries: { type: "integer", minimum: 1, maximum: MAX_EVAL_QUERIES },
    file: { type: "string", maxLength: 255, description: "The file's name, for messages" },
  },
} as const;

interface ExplainBody {
  query: string;
  name: string;
  engine?: ToolEngine;
}

interface EvalBody {
  queries: string;
  format?: "jsonl" | "json" | "yaml";
  engines?: string[];
  max_queries?: number;
  file?: string;
}

export async function explainEvalRoutes(app: FastifyInstance, { collections, timeoutMs }: { collections: Collections; timeoutMs: number }): Promise<void> {
  app.post<{ Params: { c: string }; Body: ExplainBody }>("/v1/collections/:c/explain", {
    config: { scope: "read" },
    schema: { summary: "Why an item ranks where it does for a query (explain --json)", security: bearer, params: collectionParams, body: explainBody, response: withErrors({ 200: anyObject }) },
  }, async (request) => {
    const { query, name } = request.body;
    const engine = request.body.engine ?? "bm25";
    return withDeadline(explainerOf(await collections.resolve(request.params.c), [engine], request.apiKey)(engine, query, name), timeoutMs);
  });

  app.post<{ Params: { c: string }; Body: EvalBody }>("/v1/collections/:c/eval", {
    config: { scope: "read" },
    schema: { summary: "Evaluate labelled queries: metrics, recall@k, latency, missed queries with explanations", security: bearer, params: collectionParams, body: evalBody, response: withErrors({ 200: anyObject }) },
  }, async (request) => {
    const collection = await collections.resolve(request.params.c);
    const engines = request.body.engines ?? enginesOf(collection);
    const format = request.body.format ?? "jsonl";
    const file = `${(request.body.file ?? "queries").replace(/\.(jsonl|json|ya?ml)$/i, "")}.${format}`;
    const tools = collection.docs ? undefined : toolsFor(collection, request.apiKey);
    const known = (id: string) => (collection.docs ? collection.docs.get(id) : tools!.get(id)) !== undefined;
    const all = parseQueries(file, request.body.queries, known);
    if (all.length > MAX_EVAL_QUERIES && request.body.max_queries === undefined) {
      throw new ToolsearchError("invalid_option", `${file} holds ${all.length} queries; the service evaluates at most ${MAX_EVAL_QUERIES} per request (set max_queries, or use toolsearch eval --report).`);
    }
    const queries = all.slice(0, request.body.max_queries ?? MAX_EVAL_QUERIES);
    const { searchers, explain } = evaluatorsOf(collection, engines, request.apiKey);
    const { report, runs } = await evaluateRuns(queries, searchers);
    return buildReportData(queries, report, runs, { title: `Eval of ${collection.name}`, source: { collection: collection.name, queries: file }, explain, maxExplanations: EVAL_EXPLANATIONS });
  });
}

/** The engines a collection answers with. */
function enginesOf(collection: LoadedCollection): string[] {
  return collection.docs ? [...DOCUMENT_ENGINES] : [...TOOL_ENGINES];
}

function checkEngines(collection: LoadedCollection, engines: string[]): void {
  const allowed = enginesOf(collection);
  const bad = engines.filter((e) => !allowed.includes(e));
  if (bad.length) throw new ToolsearchError("unknown_engine", `Collection ${JSON.stringify(collection.name)} (${collection.kind}) is searched with ${allowed.join(", ")}, not ${bad.join(", ")}.`);
}

/** The explainer of the explain route: the query as given (a pattern, for regex). */
function explainerOf(collection: LoadedCollection, engines: string[], key: RequestKey | undefined): Explainer {
  checkEngines(collection, engines);
  if (collection.docs) {
    const docs = collection.docs;
    return (engine, query, id) => docs.explain(query, id, { engine: engine as DocumentEngine });
  }
  const tools = toolsFor(collection, key);
  return (engine, query, name) => tools.explain(query, name, { engine: engine as ToolEngine });
}

/** Searchers and explainer of the eval route, as `toolsearch eval` builds them. */
function evaluatorsOf(collection: LoadedCollection, engines: string[], key: RequestKey | undefined): { searchers: Record<string, Searcher>; explain: Explainer } {
  checkEngines(collection, engines);
  return collection.docs ? documentEvaluators(collection.docs, engines as DocumentEngine[]) : toolEvaluators(toolsFor(collection, key), engines as ToolEngine[]);
}
