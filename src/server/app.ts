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
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { ToolsearchError } from "../errors.js";
import { authPlugin } from "./auth.js";
import type { Collections } from "./collections.js";
import { errorsPlugin } from "./errors.js";
import { createMetrics, metricsPlugin } from "./metrics.js";
import { consolePlaceholder } from "./plugins/console.js";
import { batchRoutes } from "./routes/batch.js";
import { collectionRoutes } from "./routes/collections.js";
import { healthRoutes } from "./routes/health.js";
import { itemRoutes } from "./routes/items.js";
import { mcpRoutes } from "./routes/mcp.js";
import { searchRoutes } from "./routes/search.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Answer 503 `request_timeout` when the route has not answered within the request timeout (reads only). */
    deadline?: boolean;
  }
}

/** Options of the service; every limit has a production default. */
export interface ServiceOptions {
  collections: Collections;
  /** `--no-auth`: no keys needed (the caller allows it on loopback only). Default false. */
  noAuth?: boolean;
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
  /** The page at `/` (default: a placeholder until the console exists). */
  consolePlugin?: (app: FastifyInstance) => Promise<void>;
}

export const DEFAULT_MAX_BODY = 16 * 1024 * 1024;
export const DEFAULT_RATE_LIMIT = { max: 6000, windowMs: 60_000 };
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export async function buildService(options: ServiceOptions): Promise<FastifyInstance> {
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    bodyLimit: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    requestTimeout: timeoutMs,
    logger: loggerOptions(options.logger),
    // Unknown body fields are refused (a typo such as "engnie" must not pass silently as the default).
    ajv: { customOptions: { removeAdditional: false } },
  });
  const { collections } = options;
  await app.register(errorsPlugin);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "toolsearch", version: "0.1.0", description: "Tool and knowledge search for LLM agents (SPEC §9)." },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(authPlugin, { store: collections.store, disabled: options.noAuth });
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
  await app.register(metricsPlugin, { metrics: createMetrics(collections) });
  addDeadline(app, timeoutMs);
  app.get("/openapi.json", { schema: { hide: true }, config: { rateLimit: false } }, async () => app.swagger());
  await app.register(healthRoutes, { collections });
  await app.register(collectionRoutes, { collections });
  await app.register(itemRoutes, { collections });
  await app.register(batchRoutes, { collections });
  await app.register(searchRoutes, { collections });
  await app.register(mcpRoutes, { collections, ...options.mcp, loopbackOnly: options.loopbackOnly });
  await app.register(options.consolePlugin ?? consolePlaceholder);
  return app;
}

/** Pino options: structured lines on stderr, with the Authorization header redacted should anything log it. */
function loggerOptions(logger: ServiceOptions["logger"]): boolean | Record<string, unknown> {
  if (logger === false || logger === undefined) return false;
  const base = { level: "info", redact: ["req.headers.authorization", "headers.authorization"] };
  return logger === true ? { ...base, stream: process.stderr } : { ...base, ...logger };
}

/** Routes marked `deadline` answer 503 `request_timeout` when they run out of time (their result is dropped). */
function addDeadline(app: FastifyInstance, timeoutMs: number): void {
  const timers = new WeakMap<FastifyRequest, NodeJS.Timeout>();
  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.config?.deadline) return;
    timers.set(request, setTimeout(() => {
      if (reply.sent) return;
      void reply.code(503).send({ error: { code: "request_timeout", message: `No answer within ${timeoutMs} ms; retry, or narrow the request.` } });
    }, timeoutMs));
  });
  app.addHook("onResponse", async (request: FastifyRequest) => {
    clearTimeout(timers.get(request));
  });
}
