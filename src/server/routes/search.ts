/**
 * `POST /v1/collections/{c}/search` (the `--json` shape of `search` or `docs search`) and `GET …/lint` (the shape of
 * `lint --json`). They answer from the in-memory indexes; a tool search with a `session` also records a usage event (SPEC §17).
 */
import type { FastifyInstance } from "fastify";
import { endSearchSpan, startSearchSpan } from "../../ops/tracing.js";
import { ToolsearchError } from "../../errors.js";
import type { DocumentEngine } from "../../indexes/document-index-options.js";
import type { ToolEngine } from "../../indexes/tool-index-options.js";
import { lintTools } from "../../lint/runner.js";
import type { Collections } from "../collections.js";
import { toolsFor, visibilityOf } from "../visibility.js";
import { anyObject, bearer, collectionParams, searchAnswer, searchBody, withErrors } from "../schemas.js";

interface SearchBody {
  query: string;
  engine?: ToolEngine;
  limit?: number;
  learned?: boolean;
  session?: string;
}

/**
 * Rejects with 503 `request_timeout` when `work` has not settled within `ms`. Only asynchronous work (embedding the
 * query) can be cut short this way; synchronous engines finish before any timer could fire.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ToolsearchError("request_timeout", `No answer within ${ms} ms; retry, or narrow the request.`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export async function searchRoutes(app: FastifyInstance, { collections, timeoutMs }: { collections: Collections; timeoutMs: number }): Promise<void> {
  app.post<{ Params: { c: string }; Body: SearchBody }>("/v1/collections/:c/search", {
    config: { scope: "read" },
    schema: { summary: "Search a collection", security: bearer, params: collectionParams, body: searchBody, response: withErrors({ 200: searchAnswer }) },
  }, async (request) => {
    const collection = await collections.resolve(request.params.c);
    const { query, limit } = request.body;
    const engine = request.body.engine ?? "bm25";
    const timer = app.metrics.searchSeconds.startTimer({ engine, kind: collection.kind });
    const span = startSearchSpan(collection.name, engine, query);
    let found: number | undefined;
    try {
      if (collection.docs) {
        if (engine === "regex") throw new ToolsearchError("unknown_engine", "Documents are searched with bm25, semantic or hybrid, not regex.");
        const options = { engine: engine as DocumentEngine, limit };
        const docs = collection.docs;
        const results = engine === "bm25" ? docs.searchSync(query, options) : await withDeadline(docs.search(query, options), timeoutMs);
        found = results.length;
        return { query, results };
      }
      const tools = toolsFor(collection, request.apiKey);
      const options = { engine, limit, learned: request.body.learned };
      // bm25 and regex answer synchronously: no promise, no microtask hop per request.
      const results = engine === "bm25" || engine === "regex" ? tools.searchSync(query, options) : await withDeadline(tools.search(query, options), timeoutMs);
      const { session } = request.body;
      // Only a search with a session can be followed by calls it explains; recorded without waiting for the store.
      if (session) void collections.recordUsage(collection.name, [{ collection: collection.name, session, kind: "search", query, tools: results.map((r) => r.name), at: new Date().toISOString() }]);
      found = results.length;
      return { engine, query, results };
    } finally {
      timer();
      endSearchSpan(span, found);
    }
  });

  app.get<{ Params: { c: string } }>("/v1/collections/:c/lint", {
    config: { scope: "read" },
    schema: { summary: "Tool design report of a tool collection", security: bearer, params: collectionParams, response: withErrors({ 200: anyObject }) },
  }, async (request) => {
    const name = request.params.c;
    const collection = await collections.resolve(name);
    if (collection.kind === "docs") throw new ToolsearchError("conflict", `Collection ${JSON.stringify(name)} holds documents; lint reviews tool collections.`);
    // A key that sees only some tools gets the report of those alone (no finding may name or count a hidden one).
    if (collection.kind === "mcp") return lintTools(toolsFor(collection, request.apiKey).list().map((t) => t.definition));
    const visible = visibilityOf(request.apiKey);
    const items = (await collections.store.listItems(name)).filter((i) => !visible || visible.accept(i.key));
    return lintTools(items.map((i) => i.body));
  });
}
