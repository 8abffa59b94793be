/** `/healthz` (the process answers), `/readyz` (the preload list is loaded and every committed change applied). */
import type { FastifyInstance } from "fastify";
import type { Collections } from "../collections.js";
import { readiness } from "../readiness.js";

const status = { type: "object", properties: { status: { type: "string" }, collections: { type: "integer" }, seq: { type: "integer" }, store: { type: "string", enum: ["ok", "unavailable"] } } } as const;

export async function healthRoutes(app: FastifyInstance, { collections, draining }: { collections: Collections; draining?: () => boolean }): Promise<void> {
  app.get("/healthz", { config: { rateLimit: false }, schema: { summary: "Liveness: 200 while the process answers", response: { 200: status } } }, async () => ({ status: "ok" }));

  app.get("/readyz", {
    config: { rateLimit: false },
    schema: { summary: "Readiness: 200 once the preload list is loaded and every committed change applied (also while the store is away), else 503", response: { 200: status, 503: { $ref: "Error#" } } },
  }, async (_request, reply) => {
    // Shutting down: the load balancer must stop sending requests here while those in flight finish (src/ops/drain.ts).
    if (draining?.()) return reply.code(503).send({ error: { code: "not_ready", message: "Shutting down: this replica is draining; send requests to another one." } });
    const state = await readiness(collections);
    if (!state.ready) return reply.code(503).send({ error: { code: state.code, message: state.message } });
    // `store: "unavailable"`: the database is away; this replica serves searches from memory, writes answer 503.
    return { status: "ready", collections: collections.list().length, seq: state.seq, store: state.store };
  });
}
