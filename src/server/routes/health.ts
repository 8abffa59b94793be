/** `/healthz` (the process answers), `/readyz` (every collection is loaded and the store answers). */
import type { FastifyInstance } from "fastify";
import type { Collections } from "../collections.js";

const status = { type: "object", properties: { status: { type: "string" }, collections: { type: "integer" }, seq: { type: "integer" } } } as const;

export async function healthRoutes(app: FastifyInstance, { collections }: { collections: Collections }): Promise<void> {
  app.get("/healthz", { config: { rateLimit: false }, schema: { summary: "Liveness: 200 while the process answers", response: { 200: status } } }, async () => ({ status: "ok" }));

  app.get("/readyz", {
    config: { rateLimit: false },
    schema: { summary: "Readiness: 200 once every collection is loaded and the store answers, else 503", response: { 200: status, 503: { $ref: "Error#" } } },
  }, async (_request, reply) => {
    if (!collections.ready) return reply.code(503).send({ error: { code: "not_ready", message: "Still loading collections from the store." } });
    try {
      const seq = await collections.store.latestSeq();
      return { status: "ready", collections: collections.list().length, seq };
    } catch (error) {
      return reply.code(503).send({ error: { code: "store_unavailable", message: `The store does not answer: ${(error as Error).message}` } });
    }
  });
}
