/**
 * `GET /` and `GET /console/*`: the web console (SPEC §12), static files built from `src/console/` (see
 * assets/bundles.ts). The files are public, like any login page; every call they make to `/v1/*` carries the key
 * the user typed (or none under `--no-auth`). A strict Content-Security-Policy lets the page load nothing but this
 * server's own files, so the console works offline and cannot pull a script from elsewhere.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { consoleFiles, type WebFile } from "../../assets/bundles.js";

const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export async function webConsole(app: FastifyInstance): Promise<void> {
  const files = await consoleFiles();
  const send = (reply: FastifyReply, file: WebFile) =>
    reply.header("content-type", file.type).header("cache-control", "no-cache").header("content-security-policy", CSP).header("x-content-type-options", "nosniff").send(file.body);
  app.get("/", { schema: { summary: "The web console (HTML)" }, config: { rateLimit: false } }, async (_request, reply) => send(reply, files.get("index.html")!));
  app.get<{ Params: { file: string } }>("/console/:file", {
    schema: { summary: "The web console's scripts and stylesheet", params: { type: "object", required: ["file"], properties: { file: { type: "string", maxLength: 64 } } } },
    config: { rateLimit: false },
  }, async (request, reply) => {
    const file = files.get(request.params.file);
    if (!file) return reply.callNotFound();
    return send(reply, file);
  });
}
