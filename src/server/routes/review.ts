/**
 * `/v1/collections/{c}/review` (SPEC §16): the upstream tool definitions an `mcp` collection holds for review (changed,
 * new, or flagged by the poisoning lint rules), each with a diff against what is served, and the decisions on them.
 * Admin scope only: held definitions are untrusted text that agents never see. A decision is stored with the pins and
 * then announced as a write of the collection, so every replica reloads it and serves the same definitions.
 */
import type { FastifyInstance } from "fastify";
import type { AuditLog } from "../../trust/audit.js";
import { ToolsearchError } from "../../errors.js";
import { reviewEntry } from "../../trust/diff.js";
import type { Collections, LoadedCollection } from "../collections.js";
import { anyObject, bearer, collectionParams, withErrors } from "../schemas.js";

interface ReviewBody {
  approve?: string[];
  reject?: string[];
}

const names = { type: "array", maxItems: 1000, uniqueItems: true, items: { type: "string", minLength: 1, maxLength: 200 } } as const;
const heldTool = {
  type: "object",
  required: ["name", "server", "tool", "reason", "held", "findings", "since", "diff"],
  properties: {
    name: { type: "string", description: "The namespaced name agents know the tool by" },
    server: { type: "string" },
    tool: { type: "string" },
    reason: { type: "string", enum: ["changed", "new", "flagged"] },
    pinned: { ...anyObject, description: "The definition served now (absent for a tool never approved)" },
    held: { ...anyObject, description: "The definition waiting for review" },
    findings: { type: "array", items: { type: "object", properties: { rule: { type: "string" }, message: { type: "string" } } } },
    since: { type: "string" },
    diff: { ...anyObject, description: "{description, schema}: runs of {op: same|added|removed, text}" },
  },
} as const;
const reviewAnswer = {
  type: "object",
  required: ["collection", "held"],
  properties: { collection: { type: "string" }, held: { type: "array", items: heldTool }, approved: names, rejected: names },
} as const;

/** Options of the review routes: with an audit log, every decision is recorded in it (SPEC §16). */
export interface ReviewRouteOptions {
  collections: Collections;
  audit?: AuditLog;
}

export async function reviewRoutes(app: FastifyInstance, { collections, audit }: ReviewRouteOptions): Promise<void> {
  app.get<{ Params: { c: string } }>("/v1/collections/:c/review", {
    config: { scope: "admin" },
    schema: { summary: "Tool definitions held for review, with diffs", security: bearer, params: collectionParams, response: withErrors({ 200: reviewAnswer }) },
  }, async (request) => {
    const gateway = await mcpGateway(collections, request.params.c);
    // Another replica may have decided since: the store says what is held now.
    await gateway.reloadPins();
    return { collection: request.params.c, held: gateway.held().map(reviewEntry) };
  });

  app.post<{ Params: { c: string }; Body: ReviewBody }>("/v1/collections/:c/review", {
    config: { scope: "admin" },
    schema: {
      summary: "Approve or reject held tool definitions",
      security: bearer,
      params: collectionParams,
      body: { type: "object", additionalProperties: false, properties: { approve: names, reject: names } },
      response: withErrors({ 200: reviewAnswer }),
    },
  }, async (request) => {
    const name = request.params.c;
    const { approve = [], reject = [] } = request.body;
    const both = approve.filter((n) => reject.includes(n));
    if (both.length) throw new ToolsearchError("invalid_option", `Cannot both approve and reject ${both.join(", ")}.`);
    if (!approve.length && !reject.length) throw new ToolsearchError("invalid_option", "Name the tools to approve or reject: {\"approve\": [\"server__tool\"]}.");
    const gateway = await mcpGateway(collections, name);
    await gateway.reloadPins();
    const started = performance.now();
    const held = await gateway.decide({ approve, reject });
    await collections.writes.touch(name);
    const who = request.apiKey?.id ?? "anonymous";
    const durationMs = performance.now() - started;
    for (const tool of approve) audit?.record({ who, action: "review_approve", collection: name, target: tool, outcome: "ok", durationMs });
    for (const tool of reject) audit?.record({ who, action: "review_reject", collection: name, target: tool, outcome: "ok", durationMs });
    return { collection: name, held: held.map(reviewEntry), approved: approve, rejected: reject };
  });
}

async function mcpGateway(collections: Collections, name: string): Promise<NonNullable<LoadedCollection["gateway"]>> {
  const collection = await collections.resolve(name);
  if (collection.kind !== "mcp" || !collection.gateway) {
    throw new ToolsearchError("conflict", `Collection ${JSON.stringify(name)} holds ${collection.kind}: only mcp collections pin upstream tool definitions.`, { details: { kind: collection.kind } });
  }
  return collection.gateway;
}
