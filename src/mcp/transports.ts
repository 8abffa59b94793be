/**
 * How the gateway is reached: stdio (Claude Desktop, Claude Code and most MCP clients start it as a child process)
 * or Streamable HTTP on `/mcp`, bound to loopback by default, optionally behind a bearer token. Over HTTP, sessions
 * that go quiet are closed after `sessionIdleMs` and at most `maxSessions` are open (http-sessions.ts), so clients
 * that open sessions and never close them cannot grow the gateway without bound.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Gateway } from "./gateway.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionTable } from "./http-sessions.js";
import { StdioServerTransport } from "./sdk.js";

/** Serves one session over stdin/stdout; resolves when the client closes stdin. */
export async function serveStdio(gateway: Gateway): Promise<void> {
  const session = gateway.createSession();
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    transport.onclose = () => resolve();
  });
  await session.connect(transport);
  await closed;
}

/** Options of the HTTP transport. */
export interface HttpServeOptions {
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Interface to bind (default 127.0.0.1, loopback only). */
  host?: string;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** Close a session after this long without a request (default 30 min; 0 = never). */
  sessionIdleMs?: number;
  /** Most sessions open at once (default 1000); one more is refused with HTTP 503 once idle ones are closed. */
  maxSessions?: number;
}

export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS };

/** A running HTTP endpoint. */
export interface HttpEndpoint {
  /** e.g. http://127.0.0.1:3000/mcp */
  url: string;
  port: number;
  close(): Promise<void>;
}

export const MCP_PATH = "/mcp";

/** Serves the gateway over Streamable HTTP (stateful sessions, one MCP server session per client). */
export async function serveHttp(gateway: Gateway, options: HttpServeOptions): Promise<HttpEndpoint> {
  // Loaded here, not at the top: a stdio gateway (the common case) starts faster without the HTTP stack.
  const { StreamableHTTPServerTransport: HttpTransport } = await import("./sdk-http.js");
  const host = options.host ?? "127.0.0.1";
  const sessions = new SessionTable<StreamableHTTPServerTransport>({
    idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    max: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    close: (transport) => transport.close(),
  });
  let port = options.port;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== MCP_PATH) return reply(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    if (options.token && !hasToken(req, options.token)) {
      res.setHeader("WWW-Authenticate", "Bearer");
      return reply(res, 401, "Missing or wrong bearer token (send Authorization: Bearer <token>).");
    }
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.touch(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res);
    if (sessionId !== undefined) return reply(res, 404, "Unknown or expired MCP session: initialize a new one.");
    if (req.method !== "POST") return reply(res, 400, "Start a session with an initialize POST request.");
    const full = await sessions.refusal();
    if (full) {
      res.setHeader("Retry-After", String(full.retryAfterSeconds));
      return reply(res, 503, full.message);
    }
    const transport: StreamableHTTPServerTransport = new HttpTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id): void => sessions.add(id, transport),
      // Loopback endpoints refuse requests whose Host is not loopback (DNS rebinding from a web page).
      ...(isLoopback(host) ? { enableDnsRebindingProtection: true, allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] } : {}),
    });
    const session = gateway.createSession();
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void session.close().catch(() => undefined);
    };
    await session.connect(transport);
    await transport.handleRequest(req, res);
    // Not an initialize request (refused with 400): nothing holds this session, so it must not stay in the gateway.
    if (!transport.sessionId) await transport.close().catch(() => undefined);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    port,
    close: async () => {
      await sessions.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function hasToken(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? "";
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "localhost" || host === "::1";
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
