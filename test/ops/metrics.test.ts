/**
 * The metrics operators watch (src/ops/metrics.ts), read from `/metrics` of a service over a real SQLite store:
 * default process metrics, HTTP latency by route pattern, replica lag that moves when another handle writes and goes
 * back to 0 once applied, upstream call latency and errors, dropped audit entries, and per-collection series capped.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { Embedder } from "../../src/embeddings/embedder.js";
import { capByCollection } from "../../src/ops/metrics.js";
import { observeUpstreamCall } from "../../src/ops/upstream-calls.js";
import { ToolsearchError } from "../../src/errors.js";
import { buildService } from "../../src/server/app.js";
import { Collections } from "../../src/server/collections.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/types.js";
import { AuditLog } from "../../src/trust/audit.js";
import { LetterProvider, tempDir } from "../server/helpers.js";

const tool = (name: string) => ({ key: name, body: { name, description: `Does ${name}.`, input_schema: { type: "object" } } });

/** The value of one series of a Prometheus text exposition (undefined when absent). */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("capByCollection", () => {
  it("keeps the largest collections by name and sums the rest as _other", () => {
    assert.deepEqual(capByCollection([["a", 1], ["b", 5], ["c", 3], ["d", 2]], 2), [["b", 5], ["c", 3], ["_other", 3]]);
    assert.deepEqual(capByCollection([["a", 1]], 2), [["a", 1]]);
    assert.deepEqual(capByCollection([["a", 1], ["b", 2]], 0), [["_other", 3]]);
  });
});

describe("/metrics for operators", () => {
  const dir = tempDir();
  let store: Store;
  let collections: Collections;
  let app: FastifyInstance;
  const failing = { appendAudit: () => Promise.reject(new Error("store down")) };
  const audit = new AuditLog(failing, { maxQueued: 2, flushMs: 60_000, log: () => {} });
  const scrape = async () => (await app.inject({ method: "GET", url: "/metrics" })).body;

  before(async () => {
    store = await openStore(join(dir, "store.sqlite"));
    await store.putCollection("big", "tools", {}, [tool("a1"), tool("a2"), tool("a3")]);
    await store.putCollection("mid", "tools", {}, [tool("b1"), tool("b2")]);
    await store.putCollection("small", "tools", {}, [tool("c1")]);
    collections = new Collections(store, { embedder: new Embedder(new LetterProvider(), { cache: store }), log: () => {} });
    await collections.start();
    app = await buildService({ collections, logger: false, noAuth: true, audit, metricsCollections: 1 });
  });
  after(async () => {
    await app.close();
    await collections.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("has prom-client's process, heap and event-loop metrics", async () => {
    const text = await scrape();
    for (const name of ["process_cpu_user_seconds_total", "process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds"]) {
      assert.ok(valueOf(text, name) !== undefined, `${name} missing`);
    }
  });

  it("times requests by route pattern, never the raw URL", async () => {
    await app.inject({ method: "POST", url: "/v1/collections/big/search", payload: { query: "does a1" } });
    await app.inject({ method: "POST", url: "/v1/collections/big/search", payload: { query: "does a2" } });
    const text = await scrape();
    assert.equal(valueOf(text, 'toolsearch_http_request_duration_seconds_count{route="/v1/collections/:c/search",method="POST",status="200"}'), 2);
    assert.ok(!text.includes('route="/v1/collections/big/search"'));
  });

  it("shows replica lag when another process commits, and 0 once the change is applied", async () => {
    assert.equal(valueOf(await scrape(), "toolsearch_replica_lag_changes"), 0);
    // A second handle on the file is another process as far as this replica knows: no notification reaches it.
    const other = await openStore(join(dir, "store.sqlite"));
    await other.putItem("small", tool("c2"));
    await other.putItem("small", tool("c3"));
    await other.close();
    assert.equal(valueOf(await scrape(), "toolsearch_replica_lag_changes"), 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok((valueOf(await scrape(), "toolsearch_replica_lag_seconds") ?? 0) >= 0.05);
    await collections.sync();
    const caughtUp = await scrape();
    assert.equal(valueOf(caughtUp, "toolsearch_replica_lag_changes"), 0);
    assert.equal(valueOf(caughtUp, "toolsearch_replica_lag_seconds"), 0);
  });

  it("counts upstream calls by server and outcome, and their errors", async () => {
    await observeUpstreamCall("crm", "get", async () => ({ content: [] }));
    await observeUpstreamCall("crm", "get", async () => ({ content: [], isError: true }));
    await assert.rejects(observeUpstreamCall("crm", "get", async () => {
      throw new ToolsearchError("upstream_timeout", "slow");
    }));
    const text = await scrape();
    assert.equal(valueOf(text, 'toolsearch_upstream_call_duration_seconds_count{server="crm",outcome="ok"}'), 1);
    assert.equal(valueOf(text, 'toolsearch_upstream_call_errors_total{server="crm",outcome="tool_error"}'), 1);
    assert.equal(valueOf(text, 'toolsearch_upstream_call_errors_total{server="crm",outcome="timeout"}'), 1);
    assert.equal(valueOf(text, 'toolsearch_upstream_call_errors_total{server="crm",outcome="ok"}'), undefined);
  });

  it("counts audit entries dropped while the store fails", async () => {
    assert.equal(valueOf(await scrape(), "toolsearch_audit_dropped_total"), 0);
    for (let i = 0; i < 5; i++) audit.record({ who: "k", action: "put_item", collection: "big", outcome: "ok", durationMs: 1 });
    assert.equal(valueOf(await scrape(), "toolsearch_audit_dropped_total"), 3);
  });

  it("keeps per-collection series to --metrics-collections, the rest as _other", async () => {
    await collections.sync();
    const text = await scrape();
    assert.equal(valueOf(text, 'toolsearch_collection_items{collection="big",kind="tools"}'), 3);
    assert.equal(valueOf(text, 'toolsearch_collection_items{collection="_other",kind="mixed"}'), 5);
    assert.ok(!text.includes('collection="mid"'));
  });
});
