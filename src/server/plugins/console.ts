/**
 * `GET /`: the place of the web console (SPEC §12). Until the console is built this page says so and points to the
 * API; the console replaces this plugin (one line in app.ts).
 */
import type { FastifyInstance } from "fastify";

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolsearch</title></head>
<body>
<h1>toolsearch service</h1>
<p>The web console is not built yet. The API is described at <a href="/openapi.json">/openapi.json</a>;
health at <a href="/healthz">/healthz</a> and <a href="/readyz">/readyz</a>; metrics at <a href="/metrics">/metrics</a>.</p>
</body></html>
`;

export async function consolePlaceholder(app: FastifyInstance): Promise<void> {
  app.get("/", { schema: { summary: "The web console (HTML)" } }, async (_request, reply) => reply.type("text/html; charset=utf-8").send(PAGE));
}
