/**
 * Request ids (src/ops/request-id.ts): the caller's X-Request-Id when safe, else traceparent's trace id, else a fresh
 * random one; echoed as `x-request-id` on every answer, in error bodies, and in the audit entries a request causes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { Embedder } from "../../src/embeddings/embedder.js";
import { requestIdOf, withRequestId } from "../../src/ops/request-id.js";
import { buildService } from "../../src/server/app.js";
import { Collections } from "../../src/server/collections.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/types.js";
import { AuditLog } from "../../src/trust/audit.js";
import { LetterProvider, tempDir } from "../server/helpers.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

describe("requestIdOf", () => {
  const of = (headers: Record<string, string>) => requestIdOf({ headers });

  it("takes a safe X-Request-Id as it is", () => {
    assert.equal(of({ "x-request-id": "abc-123_x.y:z/1+2=3@host" }), "abc-123_x.y:z/1+2=3@host");
  });

  it("ignores an unsafe or oversized X-Request-Id and falls back to traceparent's trace id, else a fresh id", () => {
    const traceparent = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
    assert.equal(of({ "x-request-id": "has space", traceparent }), TRACE_ID);
    assert.equal(of({ "x-request-id": "x".repeat(129), traceparent }), TRACE_ID);
    assert.equal(of({ "x-request-id": 'quote"d\n', traceparent }), TRACE_ID);
    const fresh = [of({}), of({ traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` }), of({ traceparent: "garbage" })];
    for (const id of fresh) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(new Set(fresh).size, 3);
  });

  it("adds the id to error bodies only", () => {
    assert.equal(withRequestId('{"error":{"code":"x","message":"m"}}', "r1"), '{"error":{"request_id":"r1","code":"x","message":"m"}}');
    assert.equal(withRequestId('{"results":[]}', "r1"), '{"results":[]}');
  });
});

describe("request ids in the service", () => {
  const dir = tempDir();
  let app: FastifyInstance;
  let store: Store;
  let collections: Collections;
  before(async () => {
    store = await openStore(join(dir, "store.sqlite"));
    collections = new Collections(store, { embedder: new Embedder(new LetterProvider(), { cache: store }), log: () => {} });
    await collections.start();
    app = await buildService({ collections, logger: false, noAuth: true, audit: new AuditLog(store, { flushMs: 10 }) });
  });
  after(async () => {
    await app.close();
    await collections.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("echoes the caller's id on success and on error, where the body carries it too", async () => {
    const ok = await app.inject({ method: "GET", url: "/healthz", headers: { "x-request-id": "req-ok-1" } });
    assert.equal(ok.headers["x-request-id"], "req-ok-1");
    const missing = await app.inject({ method: "GET", url: "/v1/collections/nope", headers: { "x-request-id": "req-404-1" } });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers["x-request-id"], "req-404-1");
    assert.deepEqual(missing.json().error.request_id, "req-404-1");
    assert.equal(missing.json().error.code, "unknown_collection");
    const unrouted = await app.inject({ method: "GET", url: "/no/such/route" });
    assert.equal(unrouted.json().error.request_id, unrouted.headers["x-request-id"]);
    const traced = await app.inject({ method: "GET", url: "/v1/collections/nope", headers: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` } });
    assert.equal(traced.headers["x-request-id"], TRACE_ID);
  });

  it("gives two requests without an id two different ids", async () => {
    const [a, b] = await Promise.all([app.inject({ method: "GET", url: "/healthz" }), app.inject({ method: "GET", url: "/healthz" })]);
    assert.notEqual(a.headers["x-request-id"], b.headers["x-request-id"]);
  });

  it("records the id in the audit entry of a write", async () => {
    const put = await app.inject({
      method: "PUT",
      url: "/v1/collections/crm",
      headers: { "x-request-id": "audit-me-7" },
      payload: { kind: "tools", tools: [{ name: "get_customer", description: "Get a customer.", input_schema: { type: "object" } }] },
    });
    assert.equal(put.statusCode, 201);
    const entries = (await app.inject({ method: "GET", url: "/v1/audit" })).json().entries as Array<{ action: string; requestId?: string }>;
    assert.equal(entries.find((e) => e.action === "put_collection")?.requestId, "audit-me-7");
  });
});
