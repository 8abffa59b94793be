/**
 * Prometheus metrics at `/metrics`: requests by route, method and status; search latency by engine and collection
 * kind; items per collection; open MCP sessions, and upstream servers by state; loaded collections, the bytes their
 * indexes hold, loads and evictions, and how long a cold load took; and the operator metrics of src/ops/metrics.ts
 * (process, HTTP latency, replica lag, upstream calls, audit drops). Per-collection series stop at `collectionCap`
 * collections (the largest), the rest summed under `_other`. Each app has its own registry, so several apps (tests,
 * benchmarks) never collide.
 */
import type { FastifyContextConfig, FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { capByCollection, DEFAULT_METRICS_COLLECTIONS, OTHER_COLLECTIONS, operatorMetrics, type OperatorMetrics } from "../ops/metrics.js";
import type { Collections } from "./collections.js";
import { bearer } from "./schemas.js";

/** The service's metrics, shared with the routes that observe them. */
export interface ServiceMetrics {
  registry: Registry;
  requests: Counter<"route" | "method" | "status">;
  searchSeconds: Histogram<"engine" | "kind">;
  operator: OperatorMetrics;
}

/** Options of `createMetrics`. */
export interface MetricsOptions {
  /** `--metrics-collections N`: per-collection series for the N largest collections (default 100), the rest as `_other`. */
  collectionCap?: number;
  /** The audit log's count of dropped entries. */
  auditDropped?: () => number;
}

declare module "fastify" {
  interface FastifyInstance {
    metrics: ServiceMetrics;
  }
}

export function createMetrics(collections: Collections, options: MetricsOptions = {}): ServiceMetrics {
  const registry = new Registry();
  const cap = options.collectionCap ?? DEFAULT_METRICS_COLLECTIONS;
  const requests = new Counter({
    name: "toolsearch_http_requests_total",
    help: "HTTP requests answered, by route pattern, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const searchSeconds = new Histogram({
    name: "toolsearch_search_duration_seconds",
    help: "Time to answer a search, by engine and collection kind",
    labelNames: ["engine", "kind"] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  new Gauge({
    name: "toolsearch_collection_items",
    help: "Items served per collection (tools, documents, or live upstream tools for mcp)",
    labelNames: ["collection", "kind"] as const,
    registers: [registry],
    collect() {
      this.reset();
      const list = collections.list();
      const kinds = new Map(list.map((c) => [c.name, c.kind]));
      for (const [name, size] of capByCollection(list.map((c) => [c.name, collections.sizeOf(c)]), cap)) this.set({ collection: name, kind: kinds.get(name) ?? "mixed" }, size);
    },
  });
  new Gauge({
    name: "toolsearch_store_applied_seq",
    help: "Last change of the store's change log applied to the in-memory indexes",
    registers: [registry],
    collect() {
      this.set(collections.appliedSeq);
    },
  });
  new Gauge({
    name: "toolsearch_mcp_sessions",
    help: "Open MCP sessions of /mcp/{c}, per collection",
    labelNames: ["collection"] as const,
    registers: [registry],
    collect() {
      this.reset();
      const open = collections.list().flatMap((c): Array<[string, number]> => (c.gateway ? [[c.name, c.gateway.sessionCount]] : []));
      for (const [name, count] of capByCollection(open, cap)) this.set({ collection: name }, count);
    },
  });
  new Gauge({
    name: "toolsearch_mcp_upstreams",
    help: "Upstream servers of mcp collections, per collection and state (stopped ones start on their next call)",
    labelNames: ["collection", "state"] as const,
    registers: [registry],
    collect() {
      this.reset();
      const withUpstreams = collections.list().filter((c) => c.gateway?.upstreams.size);
      const kept = new Set(capByCollection(withUpstreams.map((c) => [c.name, c.gateway!.upstreams.size]), cap).map(([name]) => name));
      for (const c of withUpstreams) {
        const collection = kept.has(c.name) ? c.name : OTHER_COLLECTIONS;
        for (const upstream of c.gateway!.upstreams.values()) this.inc({ collection, state: upstream.state });
      }
    },
  });
  new Gauge({
    name: "toolsearch_collections_loaded",
    help: "Collections whose index this replica holds in memory (the others load on their first request)",
    registers: [registry],
    collect() {
      this.set(collections.loadedCount);
    },
  });
  new Gauge({
    name: "toolsearch_index_bytes",
    help: "Bytes the loaded indexes hold, as they count them (what --memory-budget bounds)",
    registers: [registry],
    collect() {
      this.set(collections.loadedBytes);
    },
  });
  const loads = new Counter({
    name: "toolsearch_collection_loads_total",
    help: "Collections loaded into memory, by source (a stored snapshot, or a rebuild from the items)",
    labelNames: ["source"] as const,
    registers: [registry],
  });
  const evictions = new Counter({
    name: "toolsearch_collection_evictions_total",
    help: "Loaded collections dropped to stay within the memory budget",
    registers: [registry],
  });
  const loadSeconds = new Histogram({
    name: "toolsearch_collection_load_duration_seconds",
    help: "Time to load a collection that was not in memory (store read, snapshot or rebuild, catch-up)",
    labelNames: ["source"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  collections.observe((event) => {
    if (event.type === "evict") return evictions.inc();
    loads.inc({ source: event.source });
    loadSeconds.observe({ source: event.source }, event.seconds);
  });
  const operator = operatorMetrics(registry, { lag: collections, auditDropped: options.auditDropped });
  return { registry, requests, searchSeconds, operator };
}

/** Counts every answer and serves `/metrics`. */
export const metricsPlugin = fp(async (app: FastifyInstance, options: { metrics: ServiceMetrics; public?: boolean }) => {
  app.decorate("metrics", options.metrics);
  app.addHook("onClose", async () => options.metrics.operator.close());
  app.addHook("onResponse", async (request, reply) => {
    // The route pattern, never the raw URL: a label per collection name or query would grow without bound.
    const route = request.routeOptions.url ?? "unmatched";
    const labels = { route, method: request.method, status: String(reply.statusCode) };
    options.metrics.requests.inc(labels);
    options.metrics.operator.httpSeconds.observe(labels, reply.elapsedTime / 1000);
  });
  // Unless public: collection names and sizes are what a key limited to some collections must not see.
  const guard: FastifyContextConfig | undefined = options.public ? undefined : { scope: "admin", wholeService: true };
  app.get("/metrics", { config: guard ?? {}, schema: { summary: "Prometheus metrics (text exposition format)", ...(guard ? { security: bearer } : {}) } }, async (_request, reply) => {
    reply.header("content-type", options.metrics.registry.contentType);
    return options.metrics.registry.metrics();
  });
}, { name: "toolsearch-metrics" });
