/**
 * `/mcp/{c}`: the collection over MCP Streamable HTTP, served by the gateway of src/mcp (`search_tools`,
 * `describe_tool`, `call_tool`; `search_docs`, `read_doc` and document resources for documents; an `mcp` collection's
 * upstream resources, prompts and completion). A session belongs to the key that opened it and to one collection;
 * whatever runs an upstream (`call_tool`, an exposed tool, `prompts/get`, reading or subscribing to an upstream
 * resource, `completion/complete`) needs the `call` scope.
 *
 * Sessions live in the gateway's session table (src/mcp/http-sessions.ts): one idle for `sessionIdleMs` is closed,
 * and beyond `maxSessions` a new one is refused with 503 and a JSON-RPC error saying why. A session outlives a replace
 * of its collection (src/server/collections/gateway-host.ts hands it to the new gateway); a deleted collection, or a revoked key,
 * ends it, and its next request is told which.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type ErrorCode, ToolsearchError } from "../../errors.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionTable } from "../../mcp/http-sessions.js";
import { parseDocResourceUri } from "../../mcp/doc-resources.js";
import { DESCRIBE_TOOL, SEARCH_TOOLS } from "../../mcp/meta-tools.js";
import type { StreamableHTTPServerTransport } from "../../mcp/sdk-http.js";
import { READ_DOC, SEARCH_DOCS } from "../../metatools/docs-tools.js";
import { hashKey, type RequestKey, requireScope } from "../auth.js";
import { visibilityOf } from "../visibility.js";
import type { ToolCallRecord } from "../../mcp/sessions.js";
import type { AuditLog } from "../../trust/audit.js";
import type { Collections } from "../collections.js";
import { bearer, collectionParams } from "../schemas.js";

/** Options of the MCP endpoint. */
export interface McpRouteOptions {
  collections: Collections;
  /** Most open sessions (default 1000, `--max-sessions`); more are refused with 503 until some close. */
  maxSessions?: number;
  /** A session unused this long is closed (default 30 minutes, `--session-idle`; 0 = never). */
  sessionIdleMs?: number;
  /** With `--no-auth` on loopback: refuse requests whose Host is not loopback (DNS rebinding from a web page). */
  loopbackOnly?: boolean;
  /** Where every `call_tool` (and direct call of an exposed tool) is recorded. */
  audit?: AuditLog;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  collection: string;
  keyId: string;
  /**
   * SHA-256 of the API key that opened it: a request with that key, once revoked, ends the session. Unset for an OAuth
   * access token: its 401 means "expired, refresh me", and the refreshed token (same subject) goes on in the session.
   */
  keyHash?: string;
}

/** Sessions remembered after they end, so that a client is told why (and not just "unknown session"). */
const ENDED_REMEMBERED = 10_000;

/** Tools a `read` key may call: they only search and read. */
const READ_ONLY_TOOLS = new Set([SEARCH_TOOLS, DESCRIBE_TOOL, SEARCH_DOCS, READ_DOC]);

/** Requests that make an upstream server run (and start it when it is stopped), beside tool calls. */
const UPSTREAM_METHODS = new Set(["prompts/get", "resources/read", "resources/subscribe", "completion/complete"]);

/**
 * Whether a JSON-RPC message (or batch) runs something upstream: a tool call (other than searching and reading), or
 * a prompt, resource read, subscription or completion (the collection's own documents, `toolsearch://docs/…`, excepted).
 */
export function callsUpstream(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const message = m as { method?: unknown; params?: { name?: unknown; uri?: unknown } } | null;
    if (message?.method === "tools/call") return !READ_ONLY_TOOLS.has(String(message.params?.name));
    if (!UPSTREAM_METHODS.has(String(message?.method))) return false;
    return !(typeof message?.params?.uri === "string" && parseDocResourceUri(message.params.uri));
  });
}

export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { collections } = options;
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  /** Why recently ended sessions ended, by id (oldest forgotten first). */
  const ended = new Map<string, string>();
  let closing = false;
  const sessions = new SessionTable<Session>({
    idleMs,
    max: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    endpoint: "/mcp/{c}",
    close: async (session) => {
      // The table closes a session when it was idle too long, or when the service stops.
      if (!closing) remember(session.transport.sessionId!, `it was idle for more than ${Math.round(idleMs / 1000)} s (--session-idle)`);
      await session.transport.close();
    },
  });
  // Before the server stops listening: an open session holds a stream (GET) that would keep `close` waiting forever.
  app.addHook("preClose", async () => {
    closing = true;
    await sessions.closeAll();
  });

  // A revoked key is refused (401) by the auth hook before any handler runs; the session it opened ends with it.
  app.addHook("onResponse", async (request, reply) => {
    if (reply.statusCode !== 401) return;
    const id = request.headers["mcp-session-id"];
    const session = typeof id === "string" ? sessions.peek(id) : undefined;
    if (session?.keyHash && session.keyHash === bearerHash(request)) {
      remember(id as string, "the API key that opened it was revoked");
      await session.transport.close().catch(() => undefined);
    }
  });

  app.route<{ Params: { c: string } }>({
    method: ["GET", "POST", "DELETE"],
    url: "/mcp/:c",
    config: { scope: "read" },
    schema: { summary: "MCP Streamable HTTP endpoint of one collection (JSON-RPC; see the MCP specification)", security: bearer, params: collectionParams },
    handler: async (request, reply) => {
      const name = request.params.c;
      const sessionId = request.headers["mcp-session-id"];
      try {
        await collections.resolve(name);
      } catch (error) {
        const why = typeof sessionId === "string" ? ended.get(sessionId) : undefined;
        if (why && error instanceof ToolsearchError && error.code === "unknown_collection") return rpcError(reply, 404, "unknown_collection", `This MCP session has ended: ${why}.`);
        throw error;
      }
      if (request.method === "POST" && callsUpstream(request.body)) requireScope(request, "call", name);
      const keyId = request.apiKey!.id;
      const session = typeof sessionId === "string" ? sessions.touch(sessionId) : undefined;
      if (sessionId !== undefined && (!session || session.collection !== name || session.keyId !== keyId)) {
        // 404 is what MCP clients expect for a session that is gone: they initialize a new one.
        const why = typeof sessionId === "string" && !session ? ended.get(sessionId) : undefined;
        return rpcError(reply, 404, "request_invalid", `${why ? `This MCP session has ended: ${why}.` : "Unknown or expired MCP session for this collection and key."} Initialize a new one.`);
      }
      if (!session) {
        if (request.method !== "POST") throw new ToolsearchError("request_invalid", "Start an MCP session with an initialize POST request.");
        const full = await sessions.refusal();
        if (full) {
          reply.header("retry-after", String(full.retryAfterSeconds));
          return rpcError(reply, 503, "not_ready", full.message);
        }
        const fresh = await openSession(name, request.apiKey!, request.apiKey!.subject === undefined ? bearerHash(request) : undefined);
        reply.hijack();
        await fresh.transport.handleRequest(request.raw, reply.raw, request.body);
        // Not an initialize request (refused with 400): nothing holds this session, so it must not stay in the gateway.
        if (!fresh.transport.sessionId) await fresh.transport.close().catch(() => undefined);
        return;
      }
      reply.hijack();
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });

  async function openSession(collection: string, key: RequestKey, keyHash: string | undefined): Promise<Session> {
    const keyId = key.id;
    const gateway = await collections.gatewayFor(collection);
    const port = (app.server.address() as AddressInfo | null)?.port;
    // The SDK's HTTP transport is imported with the first session: a replica that serves no MCP client never loads it.
    const { StreamableHTTPServerTransport } = await import("../../mcp/sdk-http.js");
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, session),
      ...(options.loopbackOnly && port ? { enableDnsRebindingProtection: true, allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] } : {}),
    });
    const audit = options.audit;
    const onCall = (call: ToolCallRecord) => {
      if (call.screen) for (const flag of call.screen.flags) app.metrics?.screenFlags.inc({ rule: flag.rule, action: call.screen.action });
      audit?.record({ who: keyId, action: "call_tool", collection, target: call.tool, outcome: call.outcome, durationMs: call.durationMs, argumentBytes: call.argumentBytes, arguments: call.arguments, ...(call.screen ? { screen: call.screen } : {}) });
    };
    const server = gateway.createSession({ visible: visibilityOf(key), onCall });
    const session: Session = { transport, collection, keyId, keyHash };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id) {
        sessions.delete(id);
        remember(id, endReason(session));
      }
      void server.close().catch(() => undefined);
    };
    await server.connect(transport);
    return session;
  }

  /** Why a session ended, when the collection it belongs to explains it. */
  function endReason(session: Session): string | undefined {
    if (ended.has(session.transport.sessionId!)) return ended.get(session.transport.sessionId!);
    if (!collections.find(session.collection)) return `collection ${JSON.stringify(session.collection)} was deleted`;
    return undefined;
  }

  function remember(id: string, why: string | undefined): void {
    ended.delete(id);
    if (why === undefined) return;
    ended.set(id, why);
    if (ended.size > ENDED_REMEMBERED) ended.delete(ended.keys().next().value!);
  }
}

/** SHA-256 of the request's bearer key, if it sent one. */
function bearerHash(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
  return match ? hashKey(match[1]) : undefined;
}

/** A JSON-RPC error answer (what MCP clients read), with the service's stable code in `data.code`. */
function rpcError(reply: FastifyReply, status: number, code: ErrorCode, message: string): FastifyReply {
  return reply.code(status).type("application/json").send({ jsonrpc: "2.0", id: null, error: { code: -32000, message, data: { code } } });
}
