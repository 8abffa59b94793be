/**
 * A local HTTP server built from an OpenAPI fixture: it routes each request to the document's operation, checks the
 * credentials that operation's security asks for, and echoes what it received (so tests see exactly where each input
 * went). A few operations have fixed behaviour: `failWith` answers the status it is given, `slowReport` waits,
 * `exportAll` sends a large body. Listens on port 0 on loopback.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parse } from "yaml";

export const CREDENTIALS = { bearer: "t0ken", basic: { username: "alice", password: "s3cret" }, apiKey: "k3y" };
export const BASE_PATH = "/api/v1";

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  operation: Record<string, unknown>;
}

export interface FixtureServer {
  baseUrl: string;
  /** Requests answered so far. */
  requests: number;
  close(): Promise<void>;
}

export async function startFixtureServer(specPath: string): Promise<FixtureServer> {
  const doc = parse(readFileSync(specPath, "utf8")) as Record<string, any>;
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === "parameters") continue;
      const names: string[] = [];
      const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{([^}]+)\\?\}/g, (_m, n: string) => (names.push(n), "([^/]+)"))}$`);
      routes.push({ method: method.toUpperCase(), pattern, names, operation });
    }
  }
  const state = { requests: 0 };
  const server: Server = createServer((request, response) => {
    void handle(request).then(({ status, body, headers }) => {
      state.requests++;
      const text = typeof body === "string" ? body : JSON.stringify(body);
      response.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json", ...headers });
      response.end(text);
    });
  });

  async function handle(request: IncomingMessage): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> {
    const url = new URL(request.url ?? "/", "http://localhost");
    const raw = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      request.on("data", (c: Buffer) => chunks.push(c));
      request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    });
    if (!url.pathname.startsWith(BASE_PATH)) return { status: 404, body: { message: `no route ${url.pathname}` } };
    const path = url.pathname.slice(BASE_PATH.length);
    for (const route of routes) {
      const match = route.method === request.method ? route.pattern.exec(path) : null;
      if (!match) continue;
      const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]));
      const security = (route.operation.security ?? doc.security ?? []) as Record<string, unknown>[];
      if (security.length && !security.some((r) => Object.keys(r).every((name) => authorized(doc.components.securitySchemes[name], request, url)))) {
        return { status: 401, body: { error: { message: `missing or wrong credentials for ${route.operation.operationId}` } } };
      }
      const id = route.operation.operationId;
      if (id === "failWith") return { status: Number(params.code), body: { message: `failing with ${params.code} as asked` } };
      if (id === "slowReport") {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return { status: 200, body: { report: "late" } };
      }
      if (id === "exportAll") return { status: 200, body: { records: Array.from({ length: 50_000 }, (_, i) => ({ id: `p${i}`, name: "patient" })) } };
      return {
        status: request.method === "POST" ? 201 : 200,
        headers: { location: `${BASE_PATH}${path}`, "x-request-id": String(request.headers["x-request-id"] ?? "none") },
        body: {
          operationId: id ?? null, method: request.method, path, params, query: [...url.searchParams.entries()],
          headers: { "x-request-id": request.headers["x-request-id"] ?? null, "content-type": request.headers["content-type"] ?? null },
          cookie: request.headers.cookie ?? null, body: raw,
        },
      };
    }
    return { status: 404, body: { message: `no operation for ${request.method} ${path}` } };
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}${BASE_PATH}`,
    get requests() {
      return state.requests;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function authorized(scheme: Record<string, string>, request: IncomingMessage, url: URL): boolean {
  const header = request.headers.authorization ?? "";
  if (scheme.type === "http" && scheme.scheme === "bearer") return header === `Bearer ${CREDENTIALS.bearer}`;
  if (scheme.type === "http" && scheme.scheme === "basic") return header === `Basic ${Buffer.from(`${CREDENTIALS.basic.username}:${CREDENTIALS.basic.password}`).toString("base64")}`;
  if (scheme.type === "apiKey" && scheme.in === "header") return request.headers[scheme.name!.toLowerCase()] === CREDENTIALS.apiKey;
  if (scheme.type === "apiKey" && scheme.in === "query") return url.searchParams.get(scheme.name!) === CREDENTIALS.apiKey;
  return false;
}
