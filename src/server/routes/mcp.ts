/**
 * `/mcp/{c}`: the collection's tools over MCP Streamable HTTP, served by the gateway of src/mcp (`search_tools`,
 * `describe_tool`, `call_tool`; `search_docs`, `read_doc` for documents). A session belongs to the key that opened it
 * and to one collection; `call_tool` (or calling an exposed upstream tool) needs the `call` scope.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { ToolsearchError } from "../../errors.js";
import { DESCRIBE_TOOL, SEARCH_TOOLS } from "../../mcp/meta-tools.js";
import { StreamableHTTPServerTransport } from "../../mcp/sdk-http.js";
import { READ_DOC, SEARCH_DOCS } from "../../metatools/docs-tools.js";
import { requireScope } from "../auth.js";
import type { Collections } from "../collections.js";
import { bearer, collectionParams } from "../schemas.js";

/** Options of the MCP endpoint. */
export interface McpRouteOptions {
  collections: Collections;
  /** Most open sessions (default 1000); more are refused with 503 until some close. */
  maxSessions?: number;
  /** A session unused this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** With `--no-auth` on loopback: refuse requests whose Host is not loopback (DNS rebinding from a web page). */
  loopbackOnly?: boolean;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  collection: string;
  keyId: string;
  lastUsed: number;
}

/** Tools a `read` key may call: they only search and read. */
const READ_ONLY_TOOLS = new Set([SEARCH_TOOLS, DESCRIBE_TOOL, SEARCH_DOCS, READ_DOC]);

/** Whether a JSON-RPC message (or batch) calls a tool that runs something upstream. */
export function callsUpstream(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const message = m as { method?: unknown; params?: { name?: unknown } } | null;
    return message?.method === "tools/call" && !READ_ONLY_TOOLS.has(String(message.params?.name));
  });
}

export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { collections } = options;
  const sessions = new Map<string, Session>();
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const session of sessions.values()) if (now - session.lastUsed > idleMs) void session.transport.close().catch(() => undefined);
  }, Math.min(idleMs, 60_000));
  sweep.unref();
  app.addHook("onClose", async () => {
    clearInterval(sweep);
    await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
  });

  app.route<{ Params: { c: string } }>({
    method: ["GET", "POST", "DELETE"],
    url: "/mcp/:c",
    config: { scope: "read" },
    schema: { summary: "MCP Streamable HTTP endpoint of one collection (JSON-RPC; see the MCP specification)", security: bearer, params: collectionParams },
    handler: async (request, reply) => {
      const name = request.params.c;
      await collections.resolve(name);
      if (request.method === "POST" && callsUpstream(request.body)) requireScope(request, "call", name);
      const keyId = request.apiKey!.id;
      const sessionId = request.headers["mcp-session-id"];
      let session = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
      if (sessionId !== undefined && (!session || session.collection !== name || session.keyId !== keyId)) {
        // 404 is what MCP clients expect for a session that is gone: they initialize a new one.
        return reply.code(404).send({ error: { code: "request_invalid", message: "Unknown or expired MCP session for this collection and key: initialize a new one." } });
      }
      if (!session) {
        if (request.method !== "POST") throw new ToolsearchError("request_invalid", "Start an MCP session with an initialize POST request.");
        if (sessions.size >= maxSessions) throw new ToolsearchError("not_ready", `Too many open MCP sessions (${maxSessions}); try again when some close.`);
        session = await openSession(name, keyId);
      }
      session.lastUsed = Date.now();
      reply.hijack();
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });

  async function openSession(collection: string, keyId: string): Promise<Session> {
    const gateway = await collections.gatewayFor(collection);
    const port = (app.server.address() as AddressInfo | null)?.port;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, session),
      ...(options.loopbackOnly && port ? { enableDnsRebindingProtection: true, allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] } : {}),
    });
    const server = gateway.createSession();
    const session: Session = { transport, collection, keyId, lastUsed: Date.now() };
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close().catch(() => undefined);
    };
    await server.connect(transport);
    return session;
  }
}
