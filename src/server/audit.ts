/**
 * The service's side of the audit log (SPEC §16): routes that write a collection declare `config.audit` (the action's
 * name), and each of their answers, success or refusal, becomes one entry once sent, written off the request path by
 * the `AuditLog` (src/trust/audit.ts). `GET /v1/audit` (admin) reads the log, newest first, in pages.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Store } from "../store/types.js";
import type { AuditLog } from "../trust/audit.js";
import { parseSince } from "../trust/audit.js";
import { anyObject, bearer, withErrors } from "./schemas.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The audit action of a route that writes (e.g. `put_item`); its every answer is recorded. */
    audit?: string;
  }
}

/** Options of the audit plugin. */
export interface AuditPluginOptions {
  audit: AuditLog;
  store: Pick<Store, "listAudit">;
}

/** Most entries per page of `GET /v1/audit`. */
const MAX_PAGE = 1000;

const auditQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    since: { type: "string", maxLength: 64, description: "ISO 8601 time, or an age such as 30m, 12h, 7d" },
    collection: { type: "string", maxLength: 256 },
    who: { type: "string", maxLength: 256, description: "Key id or token subject" },
    before: { type: "integer", minimum: 1, description: "Entries older than this id: the `next` of the previous page" },
    limit: { type: "integer", minimum: 1, maximum: MAX_PAGE, description: "Default 100" },
  },
} as const;

interface AuditQuerystring {
  since?: string;
  collection?: string;
  who?: string;
  before?: number;
  limit?: number;
}

export const auditPlugin = fp(async (app: FastifyInstance, { audit, store }: AuditPluginOptions) => {
  app.addHook("onResponse", async (request, reply) => {
    const action = request.routeOptions.config?.audit;
    if (action === undefined || request.apiKey === undefined) return;
    const params = (request.params ?? {}) as { c?: string; name?: string; id?: string };
    const status = reply.statusCode;
    audit.record({
      who: request.apiKey.id,
      action,
      collection: params.c ?? "",
      ...(params.name ?? params.id ? { target: params.name ?? params.id } : {}),
      outcome: status < 400 ? "ok" : String(status),
      durationMs: reply.elapsedTime,
      argumentBytes: Number(request.headers["content-length"] ?? 0),
      requestId: request.id,
    });
  });

  app.get<{ Querystring: AuditQuerystring }>("/v1/audit", {
    config: { scope: "admin", wholeService: true },
    schema: { summary: "The audit log, newest first (admin)", security: bearer, querystring: auditQuery, response: withErrors({ 200: anyObject }) },
  }, async (request) => {
    const { since, collection, who, before } = request.query;
    const limit = request.query.limit ?? 100;
    // What is still queued is written first, so a reader sees every call answered before it asked.
    await audit.flush();
    const entries = await store.listAudit({ since: since === undefined ? undefined : parseSince(since), collection, who, before, limit });
    return { entries, ...(entries.length === limit ? { next: entries[entries.length - 1].id } : {}) };
  });
}, { name: "toolsearch-audit" });
