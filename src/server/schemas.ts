/**
 * JSON Schemas shared by the routes: they validate requests and shape answers, and @fastify/swagger turns them into
 * `/openapi.json`. One schema per concept; routes compose them.
 */
import { TOOL_ENGINES } from "../indexes/tool-index-options.js";
import { MAX_LIMIT } from "../indexes/tool-index-options.js";

/** Longest query or pattern a search takes (the regex engine has its own, shorter cap of 200). */
export const MAX_QUERY_CHARS = 4096;

/** Collection names: like tool names, so they are safe in URLs, file names and metric labels. */
export const COLLECTION_NAME = { type: "string", pattern: "^[a-zA-Z0-9_-]{1,64}$", description: "Collection name" } as const;

export const collectionParams = {
  type: "object",
  required: ["c"],
  properties: { c: COLLECTION_NAME },
} as const;

/** Any JSON object: tools and documents are kept exactly as given, so their answers are not reshaped. */
export const anyObject = { type: "object", additionalProperties: true } as const;

export const collectionSummary = {
  type: "object",
  required: ["name", "kind", "size", "updated_at"],
  properties: {
    name: { type: "string" },
    kind: { type: "string", enum: ["tools", "docs", "mcp"] },
    size: { type: "integer" },
    updated_at: { type: "string", format: "date-time" },
    loaded: { type: "boolean", description: "whether this replica holds the collection's index in memory (an idle one loads on its next request)" },
  },
} as const;

export const searchBody = {
  type: "object",
  required: ["query"],
  additionalProperties: false,
  properties: {
    query: { type: "string", minLength: 1, maxLength: MAX_QUERY_CHARS, description: "Keywords, a regular expression (regex) or a request in plain words" },
    engine: { type: "string", enum: [...TOOL_ENGINES], description: "Default bm25; documents take bm25, semantic, hybrid" },
    limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: "Default 5" },
    learned: { type: "boolean", description: "tools, bm25 and hybrid: false leaves the learned signal out (default on once it has enough evidence)" },
    session: { type: "string", minLength: 1, maxLength: 128, description: "tools: who searches, so that later calls reported with this session teach the learned signal" },
  },
} as const;

export const searchAnswer = {
  type: "object",
  required: ["query", "results"],
  properties: {
    engine: { type: "string" },
    query: { type: "string" },
    results: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name: { type: "string" },
          id: { type: "string" },
          title: { type: "string" },
          score: { type: "number" },
          description: { type: "string" },
          category: { type: "string" },
          snippet: { type: "string" },
          offset: { type: "integer" },
          url: { type: "string" },
        },
      },
    },
  },
} as const;

/** Adds the error answers every authenticated route can give. */
export function withErrors<T extends Record<string, unknown>>(responses: T): T & Record<"4xx" | "5xx", { $ref: string }> {
  return { ...responses, "4xx": { $ref: "Error#" }, "5xx": { $ref: "Error#" } };
}

/** Marks a route as needing a Bearer key in the OpenAPI document. */
export const bearer = [{ bearer: [] }];
