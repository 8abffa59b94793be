/** `POST /v1/collections/{c}/batch`: upserts and deletes in one transaction, all or nothing. */
import type { FastifyInstance } from "fastify";
import { ToolsearchError } from "../../errors.js";
import type { Collections } from "../collections.js";
import { requireWritable } from "../visibility.js";
import { checkItems } from "../items.js";
import { bearer, collectionParams, withErrors } from "../schemas.js";

const batchBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    upsert: { type: "array", items: {}, description: "Tools (any shape) or documents to create or replace" },
    delete: { type: "array", items: { type: "string", minLength: 1 }, description: "Tool names or document ids to delete (absent ones are skipped)" },
  },
} as const;

const batchAnswer = {
  type: "object",
  required: ["upserted", "deleted"],
  properties: { upserted: { type: "integer" }, deleted: { type: "integer" } },
} as const;

export async function batchRoutes(app: FastifyInstance, { collections }: { collections: Collections }): Promise<void> {
  app.post<{ Params: { c: string }; Body: { upsert?: unknown[]; delete?: string[] } }>("/v1/collections/:c/batch", {
    config: { scope: "write", audit: "batch" },
    schema: { summary: "Upsert and delete items in one transaction", security: bearer, params: collectionParams, body: batchBody, response: withErrors({ 200: batchAnswer }) },
  }, async (request) => {
    const name = request.params.c;
    const collection = await collections.resolve(name);
    if (collection.kind === "mcp") {
      throw new ToolsearchError("conflict", `Collection ${JSON.stringify(name)} is of kind mcp: its tools come from its servers; replace it with PUT /v1/collections/${name}.`);
    }
    const upsert = checkItems(collection.kind, request.body.upsert ?? [], `${name} batch upsert`);
    const remove = request.body.delete ?? [];
    requireWritable(request.apiKey, collection.kind, [...upsert.map((item) => item.key), ...remove]);
    const upserted = new Set(upsert.map((item) => item.key));
    const both = remove.filter((key) => upserted.has(key));
    if (both.length) throw new ToolsearchError("request_invalid", `${name} batch: ${both.map((k) => JSON.stringify(k)).join(", ")} both upserted and deleted; send each key once`);
    return collections.writes.batch(name, upsert, remove);
  });
}
