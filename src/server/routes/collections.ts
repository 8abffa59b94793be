/** `/v1/collections` and `/v1/collections/{c}`: list, create or replace whole, read, delete. */
import type { FastifyInstance } from "fastify";
import { ToolsearchError } from "../../errors.js";
import { parseGatewayConfig } from "../../mcp/config.js";
import type { CollectionKind, ItemInput } from "../../store/types.js";
import { keySees, requireScope } from "../auth.js";
import type { Collections, LoadedCollection } from "../collections.js";
import { checkItems } from "../items.js";
import { requireWritable, visibleSummary } from "../visibility.js";
import { anyObject, bearer, collectionParams, collectionSummary, withErrors } from "../schemas.js";

interface PutBody {
  kind: CollectionKind;
  tools?: unknown[];
  documents?: unknown[];
  mcpServers?: Record<string, unknown>;
  openapi?: Record<string, unknown>;
}

const putBody = {
  type: "object",
  required: ["kind"],
  additionalProperties: false,
  properties: {
    kind: { type: "string", enum: ["tools", "docs", "mcp"] },
    tools: { type: "array", items: {}, description: "kind tools: the catalog, any tool shape of SPEC §3" },
    documents: { type: "array", items: {}, description: "kind docs: {id, title, body, url?} objects" },
    mcpServers: { ...anyObject, description: "kind mcp: the servers, as in an MCP client's configuration" },
    openapi: { ...anyObject, description: "kind mcp: OpenAPI specs served as tools (SPEC §13)" },
  },
} as const;

/** The summary every collection route answers with. */
export function summary(collections: Collections, c: LoadedCollection) {
  return { name: c.name, kind: c.kind, size: collections.sizeOf(c), updated_at: c.updatedAt, loaded: c.loaded };
}

export async function collectionRoutes(app: FastifyInstance, { collections }: { collections: Collections }): Promise<void> {
  const store = collections.store;

  app.get("/v1/collections", {
    config: { scope: "read" },
    schema: {
      summary: "List the collections this key can see",
      security: bearer,
      response: withErrors({ 200: { type: "object", required: ["collections"], properties: { collections: { type: "array", items: collectionSummary } } } }),
    },
  }, async (request) => ({
    collections: await Promise.all(collections.list().filter((c) => keySees(request.apiKey, c.name)).map((c) => visibleSummary(collections, c, request.apiKey))),
  }));

  app.get<{ Params: { c: string } }>("/v1/collections/:c", {
    config: { scope: "read" },
    schema: { summary: "One collection", security: bearer, params: collectionParams, response: withErrors({ 200: collectionSummary }) },
  }, async (request) => visibleSummary(collections, await collections.resolve(request.params.c), request.apiKey));

  app.put<{ Params: { c: string }; Body: PutBody }>("/v1/collections/:c", {
    config: { scope: "write", audit: "put_collection" },
    schema: {
      summary: "Create or replace a whole collection atomically",
      description: "kind mcp runs the configured servers' commands on this host, so it needs the admin scope.",
      security: bearer,
      params: collectionParams,
      body: putBody,
      response: withErrors({ 200: collectionSummary, 201: collectionSummary }),
    },
  }, async (request, reply) => {
    const name = request.params.c;
    const { kind } = request.body;
    if (kind === "mcp") requireScope(request, "admin", name);
    requireWritable(request.apiKey, kind, "collection");
    const { config, items } = checkBody(name, request.body);
    const existing = await store.getCollection(name);
    if (existing && existing.kind !== kind) {
      throw new ToolsearchError("conflict", `Collection ${JSON.stringify(name)} holds ${existing.kind}, not ${kind}: delete it first to change its kind.`, {
        details: { kind: existing.kind },
      });
    }
    if (existing?.kind === "mcp") requireScope(request, "admin", name);
    const { created, collection } = await collections.writes.putCollection(name, kind, config, items);
    // Committed either way; should the index lag (store hiccup while catching up), answer from the stored record.
    const loaded = collections.find(name);
    const answer = loaded ? summary(collections, loaded) : { name, kind, size: collection.size, updated_at: collection.updatedAt };
    return reply.code(created ? 201 : 200).send(answer);
  });

  app.delete<{ Params: { c: string } }>("/v1/collections/:c", {
    config: { scope: "write", audit: "delete_collection" },
    schema: { summary: "Delete a collection and its items", security: bearer, params: collectionParams, response: withErrors({ 204: { type: "null" } }) },
  }, async (request, reply) => {
    const name = request.params.c;
    const existing = await store.getCollection(name);
    if (existing?.kind === "mcp") requireScope(request, "admin", name);
    requireWritable(request.apiKey, existing?.kind ?? "tools", "collection");
    if (!(await collections.writes.deleteCollection(name))) throw new ToolsearchError("unknown_collection", `Unknown collection ${JSON.stringify(name)}.`);
    return reply.code(204).send();
  });
}

/** The stored configuration and items of a PUT, checked whole before anything is written. */
function checkBody(name: string, body: PutBody): { config: Record<string, unknown>; items: ItemInput[] } {
  const wrong = (field: string) => new ToolsearchError("request_invalid", `kind ${body.kind} does not take "${field}"`);
  if (body.kind === "mcp") {
    if (body.tools || body.documents) throw wrong(body.tools ? "tools" : "documents");
    const config = { mcpServers: body.mcpServers ?? {}, ...(body.openapi ? { openapi: body.openapi } : {}) };
    parseGatewayConfig(config, `collection ${name}`);
    return { config, items: [] };
  }
  if (body.mcpServers || body.openapi) throw wrong(body.mcpServers ? "mcpServers" : "openapi");
  if (body.kind === "tools") {
    if (body.documents) throw wrong("documents");
    return { config: {}, items: checkItems("tools", body.tools ?? [], `collection ${name}`) };
  }
  if (body.tools) throw wrong("tools");
  return { config: {}, items: checkItems("docs", body.documents ?? [], `collection ${name}`) };
}
