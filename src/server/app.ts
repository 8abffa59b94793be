/**
 * The service as a fastify app: one plugin per concern (errors, auth, rate limits, metrics, OpenAPI) and one route
 * file per resource. The app adapts the store and the indexes to HTTP and owns no search logic. `buildService`
 * returns it ready for `inject` (tests) or `listen` (the `serve` command).
 *
 * @example
 * const store = await openStore("store.sqlite");
 * const collections = new Collections(store, { embedder });
 * await collections.start();
 * const app = await buildService({ collections });
 * await app.listen({ port: 8080, host: "127.0.0.1" });
 */
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from "fastify";
import { type OAuthResourceOptions, TokenVerifier } from "../auth/oauth-resource.js";
import { ToolsearchError } from "../errors.js";
import type { Drain } from "../ops/drain.js";
import { withRedaction } from "../ops/logging.js";
import { requestIdOf, requestIdPlugin } from "../ops/request-id.js";
import { tracingPlugin } from "../ops/tracing-plugin.js";
import type { AuditLog } from "../trust/audit.js";
import { auditPlugin } from "./audit.js";
import { authPlugin } from "./auth.js";
import type { Collections } from "./collections.js";
import { errorsPlugin } from "./errors.js";
import { DEFAULT_MAX_BODY, DEFAULT_RATE_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS } from "./limits.js";
import { createMetrics, metricsPlugin } from "./metrics.js";
import { webConsole } from "./plugins/web-console.js";
import { explainEvalRoutes } from "./routes/explain-eval.js";
import { batchRoutes } from "./routes/batch.js";
import { collectionRoutes } from "./routes/collections.js";
import { curationRoutes } from "./routes/curation.js";
import { healthRoutes } from "./routes/health.js";
import { itemRoutes } from "./routes/items.js";
import { mcpRoutes } from "./routes/mcp.js";
import { oauthMetadataRoutes } from "./routes/oauth-metadata.js";
import { reviewRoutes } from "./routes/review.js";
import { serversRoutes } from "./routes/servers.js";
import { searchRoutes } from "./routes/search.js";
import { type LazyCompilers, lazyCompilers } from "./lazy-compilers.js";

/** Options of the service; every limit has a production default. */
export interface ServiceOptions {
  collections: Collections;
  /** `--no-auth`: no keys needed (the caller allows it on loopback only). Default false. */
  noAuth?: boolean;
  /**
   * `--public-metrics`: `/metrics` without a key. Default false: it names every collection and its size, which a
   * caller limited to some collections must not learn, so it takes an admin key or token (Prometheus sends one).
   */
  publicMetrics?: boolean;
  /** Largest request body, in bytes (default 16 MB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Requests per key (per client address without a key) per window; `false` turns limiting off. */
  rateLimit?: { max: number; windowMs: number } | false;
  /** Most time to receive a request, and to answer a search or lint (default 30 s). */
  requestTimeoutMs?: number;
  /** fastify's logger (pino options), or false. Keys and bodies are never logged. */
  logger?: boolean | Record<string, unknown>;
  /** MCP sessions: most open, and idle time before one is closed. */
  mcp?: { maxSessions?: number; sessionIdleMs?: number };
  /** Bound to a loopback address: `/mcp/{c}` then refuses non-loopback Host headers. */
  loopbackOnly?: boolean;
  /**
   * The audit log (SPEC §16): with one, every write to a collection and every `call_tool` on `/mcp/{c}` is recorded,
   * and `GET /v1/audit` reads it. Without one nothing is recorded (library use, tests).
   */
  audit?: AuditLog;
  /** `--oauth-issuer …`: accept that issuer's JWT access tokens beside API keys (SPEC §15). */
  oauth?: OAuthResourceOptions;
  /** The page at `/` (default: the web console, plugins/web-console.ts). */
  consolePlugin?: (app: FastifyInstance) => Promise<void>;
  /** `--metrics-collections N`: per-collection metric series for at most N collections (default 100), the rest summed. */
  metricsCollections?: number;
  /** A span per request and its children (src/ops/tracing-plugin.ts); set when `startTracing` started tracing. */
  tracing?: boolean;
  /** Graceful drain (src/ops/drain.ts): `/readyz` answers 503 once it starts, and the work in flight is counted. */
  drain?: Drain;
}

export { DEFAULT_MAX_BODY, DEFAULT_RATE_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS };

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>;

/** The lazy schema compilers of each service built (see `compilePendingSchemas`). */
const schemaCompilers = new WeakMap<FastifyInstance, LazyCompilers>();

/**
 * Compiles every route schema of a built service that no request has needed yet (they compile on first use,
 * src/server/lazy-compilers.ts); throws what a bad schema throws. Returns how many were compiled. For tests.
 */
export function compilePendingSchemas(app: FastifyInstance): number {
  return schemaCompilers.get(app)?.compilePending() ?? 0;
}

export async function buildService(options: ServiceOptions): Promise<FastifyInstance> {
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const compilers = lazyCompilers();
  const app = Fastify({
    bodyLimit: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    requestTimeout: timeoutMs,
    logger: loggerOptions(options.logger),
    // The caller's X-Request-Id (or traceparent's trace id), else a random one: unique across replicas (src/ops/request-id.ts).
    genReqId: requestIdOf,
    requestIdHeader: false,
    logController: new OneLinePerRequest({ requestIdLogLabel: "requestId" }),
    // Unknown body fields are refused (a typo such as "engnie" must not pass silently as the default).
    ajv: { customOptions: { removeAdditional: false } },
    // Each route's validator and serializer is compiled on its first request, not before the service can listen.
    // (Typed as fastify's factories: fastify only calls the functions and reads a validator's `errors`.)
    schemaController: { compilersFactory: compilers as unknown as CompilersFactory },
  });
  schemaCompilers.set(app, compilers);
  const { collections } = options;
  // Both wrap the handlers of the routes registered after them.
  await app.register(requestIdPlugin);
  if (options.drain) await app.register(options.drain.plugin);
  if (options.tracing) await app.register(tracingPlugin);
  await app.register(errorsPlugin);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "toolsearch", version: "0.1.0", description: "Tool and knowledge search for LLM agents (SPEC §9)." },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  const oauth = options.oauth && { options: options.oauth, verifier: new TokenVerifier(options.oauth) };
  await app.register(authPlugin, { store: collections.store, disabled: options.noAuth, oauth });
  if (options.rateLimit !== false) {
    const limit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
    await app.register(rateLimit, {
      max: limit.max,
      timeWindow: limit.windowMs,
      // After auth, so that the limit is per key; requests without a key never get this far on protected routes.
      hook: "preHandler",
      keyGenerator: (request) => (request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`),
      errorResponseBuilder: (_request, context) =>
        new ToolsearchError("rate_limited", `Rate limit of ${context.max} requests per ${context.after} reached for this key; retry later.`, {
          details: { limit: context.max, retry_after_s: Math.ceil(context.ttl / 1000) },
        }),
    });
  }
  const metrics = createMetrics(collections, { collectionCap: options.metricsCollections, auditDropped: options.audit && (() => options.audit!.dropped) });
  await app.register(metricsPlugin, { metrics, public: options.publicMetrics });
  if (options.audit) await app.register(auditPlugin, { audit: options.audit, store: collections.store });
  // The collection a request names stays loaded until its answer is sent (or the client goes): a memory budget
  // never drops it mid-request (src/server/collection-cache.ts).
  app.addHook("preHandler", async (request, reply) => {
    const name = (request.params as { c?: unknown } | undefined)?.c;
    if (typeof name !== "string") return;
    collections.pin(name);
    reply.raw.once("close", () => collections.release(name));
  });
  app.get("/openapi.json", { schema: { summary: "This document (OpenAPI 3.1)" }, config: { rateLimit: false } }, async () => app.swagger());
  const drain = options.drain;
  await app.register(healthRoutes, { collections, draining: drain && (() => drain.draining) });
  if (options.oauth) await app.register(oauthMetadataRoutes, { oauth: options.oauth });
  await app.register(collectionRoutes, { collections });
  await app.register(itemRoutes, { collections });
  await app.register(batchRoutes, { collections });
  await app.register(searchRoutes, { collections, timeoutMs });
  await app.register(curationRoutes, { collections });
  await app.register(reviewRoutes, { collections, audit: options.audit });
  await app.register(serversRoutes, { collections, store: collections.store });
  await app.register(mcpRoutes, { collections, ...options.mcp, loopbackOnly: options.loopbackOnly, audit: options.audit });
  await app.register(explainEvalRoutes, { collections, timeoutMs });
  await app.register(options.consolePlugin ?? webConsole);
  return app;
}

/**
 * One log line per answered request (method, URL, status, time), instead of fastify's two (received, completed):
 * logging is a measurable part of a search's cost. Nothing from headers or bodies is logged.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 };
    if (error) request.log.error({ ...line, err: error }, "failed");
    else request.log.info(line, "answered");
  }
}

/**
 * Pino options: structured lines on stderr, with the credential-bearing headers redacted should anything log them,
 * also when the caller gives its own options (a `redact` of its own is added to, not replaced).
 */
function loggerOptions(logger: ServiceOptions["logger"]): boolean | Record<string, unknown> {
  if (logger === false || logger === undefined) return false;
  return withRedaction(logger === true ? { level: "info", stream: process.stderr } : { level: "info", ...logger });
}
