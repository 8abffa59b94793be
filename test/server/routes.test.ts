/** Route logic through fastify's `inject`: shapes, scopes, ETags, atomic writes, errors and limits. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { buildService } from "../../src/server/app.js";
import { createApiKey } from "../../src/server/auth.js";
import { Collections } from "../../src/server/collections.js";
import { assertNoSecretHeaders, logHeadersOnEveryRequest, sendSecretHeaders } from "../helpers/header-secrets.js";
import { helpCenter, makeService, type TestService, weatherTools } from "./helpers.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("service routes", () => {
  let s: TestService;
  before(async () => {
    s = await makeService();
  });
  after(async () => s.close());

  const call = async (method: string, url: string, key: string | undefined, payload?: unknown, headers: Record<string, string> = {}) => {
    const response = await s.app.inject({ method: method as "GET", url, payload: payload as Json, headers: { ...(key ? s.auth(key) : {}), ...headers } });
    const body = response.body ? (response.headers["content-type"]?.toString().includes("json") ? (JSON.parse(response.body) as Json) : response.body) : undefined;
    return { status: response.statusCode, body: body as Json, headers: response.headers };
  };

  test("PUT a tools collection: 201, then 200 on replace; GET and list show it", async () => {
    const created = await call("PUT", "/v1/collections/weather", s.keys.write, { kind: "tools", tools: weatherTools() });
    assert.equal(created.status, 201);
    assert.deepEqual({ ...created.body, updated_at: undefined }, { name: "weather", kind: "tools", size: 8, updated_at: undefined, loaded: true });
    const replaced = await call("PUT", "/v1/collections/weather", s.keys.write, { kind: "tools", tools: weatherTools() });
    assert.equal(replaced.status, 200);
    const one = await call("GET", "/v1/collections/weather", s.keys.read);
    assert.equal(one.body.size, 8);
    const list = await call("GET", "/v1/collections", s.keys.read);
    assert.deepEqual(list.body.collections.map((c: Json) => c.name), ["weather"]);
  });

  test("search answers the --json shape of search, from the index the write just updated", async () => {
    const hits = await call("POST", "/v1/collections/weather/search", s.keys.read, { query: "stock price of a company", limit: 3 });
    assert.equal(hits.status, 200);
    assert.equal(hits.body.engine, "bm25");
    assert.equal(hits.body.query, "stock price of a company");
    assert.equal(hits.body.results[0].name, "get_stock_price");
    assert.deepEqual(Object.keys(hits.body.results[0]).sort(), ["description", "name", "score"].concat(hits.body.results[0].category ? ["category"] : []).sort());
    const regex = await call("POST", "/v1/collections/weather/search", s.keys.read, { query: "^get_(weather|forecast)$", engine: "regex", limit: 5 });
    assert.deepEqual(regex.body.results.map((r: Json) => r.name).sort(), ["get_forecast", "get_weather"]);
    const semantic = await call("POST", "/v1/collections/weather/search", s.keys.read, { query: "mortgage payment", engine: "semantic", limit: 2 });
    assert.equal(semantic.status, 200);
    assert.equal(semantic.body.results.length, 2);
  });

  test("one tool: PUT with ETag, GET in Anthropic shape, If-Match mismatch is 412 and changes nothing", async () => {
    const tool = { type: "function", function: { name: "get_tide", description: "High and low tide times for a harbour.", parameters: { type: "object", properties: { harbour: { type: "string" } } } } };
    const put = await call("PUT", "/v1/collections/weather/tools/get_tide", s.keys.write, tool);
    assert.equal(put.status, 201);
    const etag = put.headers.etag as string;
    assert.match(etag, /^".+"$/);
    const got = await call("GET", "/v1/collections/weather/tools/get_tide", s.keys.read);
    assert.deepEqual(got.body, { name: "get_tide", description: "High and low tide times for a harbour.", input_schema: tool.function.parameters });
    assert.equal(got.headers.etag, etag);
    const found = await call("POST", "/v1/collections/weather/search", s.keys.read, { query: "tide harbour" });
    assert.equal(found.body.results[0].name, "get_tide");

    const changed = { ...tool, function: { ...tool.function, description: "Changed." } };
    const stale = await call("PUT", "/v1/collections/weather/tools/get_tide", s.keys.write, changed, { "if-match": '"not-the-etag"' });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.error.code, "precondition_failed");
    assert.equal((await call("GET", "/v1/collections/weather/tools/get_tide", s.keys.read)).body.description, "High and low tide times for a harbour.");
    const ok = await call("PUT", "/v1/collections/weather/tools/get_tide", s.keys.write, changed, { "if-match": etag });
    assert.equal(ok.status, 200);
    assert.notEqual(ok.headers.etag, etag);
    assert.equal((await call("DELETE", "/v1/collections/weather/tools/get_tide", s.keys.write, undefined, { "if-match": etag })).status, 412);
    assert.equal((await call("DELETE", "/v1/collections/weather/tools/get_tide", s.keys.write)).status, 204);
    const gone = await call("GET", "/v1/collections/weather/tools/get_tide", s.keys.read);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, "unknown_tool");
    const search = await call("POST", "/v1/collections/weather/search", s.keys.read, { query: "tide harbour" });
    assert.ok(!search.body.results.some((r: Json) => r.name === "get_tide"), "the deleted tool left the index");
  });

  test("a tool whose name differs from the path, or that breaks a rule, is refused with 400", async () => {
    const wrong = await call("PUT", "/v1/collections/weather/tools/get_x", s.keys.write, { name: "get_y", input_schema: { type: "object" } });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.code, "request_invalid");
    const bad = await call("PUT", "/v1/collections/weather/tools/get_x", s.keys.write, { name: "get_x", input_schema: "nope" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "tool_invalid");
  });

  test("PUT of a collection with one bad tool is refused whole (catalog_invalid, every problem listed)", async () => {
    const tools = [...weatherTools(), { name: "bad name!", input_schema: { type: "object" } }, { name: "ok_tool" }];
    const refused = await call("PUT", "/v1/collections/weather", s.keys.write, { kind: "tools", tools });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, "catalog_invalid");
    assert.ok(refused.body.error.details.problems.length >= 1);
    assert.equal((await call("GET", "/v1/collections/weather", s.keys.read)).body.size, 8, "nothing was changed");
  });

  test("batch: all or nothing; counts; the index follows", async () => {
    const tool = (name: string, description: string) => ({ name, description, input_schema: { type: "object", properties: {} } });
    const refused = await call("POST", "/v1/collections/weather/batch", s.keys.write, { upsert: [tool("new_one", "A new tool."), { name: "" }], delete: ["get_weather"] });
    assert.equal(refused.status, 400);
    assert.equal((await call("GET", "/v1/collections/weather/tools/get_weather", s.keys.read)).status, 200, "the delete of a refused batch did not happen");
    assert.equal((await call("GET", "/v1/collections/weather/tools/new_one", s.keys.read)).status, 404);
    const done = await call("POST", "/v1/collections/weather/batch", s.keys.write, { upsert: [tool("aurora_alert", "Northern lights alert.")], delete: ["get_timezone", "never_there"] });
    assert.deepEqual(done.body, { upserted: 1, deleted: 1 });
    const hits = await call("POST", "/v1/collections/weather/search", s.keys.read, { query: "northern lights" });
    assert.equal(hits.body.results[0].name, "aurora_alert");
    const both = await call("POST", "/v1/collections/weather/batch", s.keys.write, { upsert: [tool("x_y", "X.")], delete: ["x_y"] });
    assert.equal(both.status, 400);
  });

  test("documents: collection, search shape of docs search, read pages, one document with ETag", async () => {
    const created = await call("PUT", "/v1/collections/kb", s.keys.write, { kind: "docs", documents: helpCenter() });
    assert.equal(created.status, 201);
    const hits = await call("POST", "/v1/collections/kb/search", s.keys.read, { query: "refund money back" });
    assert.equal(hits.body.results[0].id, "kb-refunds");
    assert.ok(hits.body.results[0].snippet.length <= 240 && hits.body.results[0].title);
    const page = await call("GET", "/v1/collections/kb/documents/kb-refunds?offset=0&max_chars=40", s.keys.read);
    assert.equal(page.status, 200);
    assert.equal(page.body.id, "kb-refunds");
    assert.equal(page.body.offset, 0);
    assert.ok(page.body.text.length <= 40 && page.body.total_chars > 40);
    const whole = await call("GET", "/v1/collections/kb/documents/kb-refunds", s.keys.read);
    assert.equal(whole.body.url, "https://help.example.com/refunds");
    assert.ok(whole.headers.etag);
    const doc = { id: "kb-new", title: "Gift cards", body: "Gift cards never expire and can pay for any course." };
    assert.equal((await call("PUT", "/v1/collections/kb/documents/kb-new", s.keys.write, doc)).status, 201);
    assert.equal((await call("POST", "/v1/collections/kb/search", s.keys.read, { query: "gift card" })).body.results[0].id, "kb-new");
    const wrongKind = await call("PUT", "/v1/collections/kb/tools/x", s.keys.write, { name: "x", input_schema: { type: "object" } });
    assert.equal(wrongKind.status, 409);
    const regex = await call("POST", "/v1/collections/kb/search", s.keys.read, { query: "x", engine: "regex" });
    assert.equal(regex.status, 400);
    assert.equal(regex.body.error.code, "unknown_engine");
  });

  test("a collection of another kind under the same name is a 409 conflict", async () => {
    const conflict = await call("PUT", "/v1/collections/kb", s.keys.write, { kind: "tools", tools: [] });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, "conflict");
  });

  test("lint answers the lint --json shape for tools, 409 for documents", async () => {
    const report = await call("GET", "/v1/collections/weather/lint", s.keys.read);
    assert.equal(report.status, 200);
    assert.equal(typeof report.body.tools, "number");
    assert.ok(Array.isArray(report.body.findings));
    assert.equal((await call("GET", "/v1/collections/kb/lint", s.keys.read)).status, 409);
  });

  test("auth: no key 401, unknown key 401, scope too low 403, a key for one collection sees only it", async () => {
    assert.equal((await call("GET", "/v1/collections", undefined)).status, 401);
    const unknown = await call("GET", "/v1/collections", "ts_nope");
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error.code, "unauthorized");
    const low = await call("PUT", "/v1/collections/x", s.keys.read, { kind: "tools", tools: [] });
    assert.equal(low.status, 403);
    assert.equal(low.body.error.code, "forbidden");
    const call_ = await call("DELETE", "/v1/collections/weather", s.keys.call);
    assert.equal(call_.status, 403);
    const mcp = await call("PUT", "/v1/collections/servers", s.keys.write, { kind: "mcp", mcpServers: {} });
    assert.equal(mcp.status, 403, "an mcp collection runs commands: admin only");
    const { key } = await createApiKey(s.store, { scope: "write", collection: "kb" });
    const list = await call("GET", "/v1/collections", key);
    assert.deepEqual(list.body.collections.map((c: Json) => c.name), ["kb"]);
    assert.equal((await call("POST", "/v1/collections/weather/search", key, { query: "x" })).status, 403);
    assert.equal((await call("POST", "/v1/collections/kb/search", key, { query: "refund" })).status, 200);
  });

  test("a revoked key stops working at once", async () => {
    const { id, key } = await createApiKey(s.store, { scope: "read" });
    assert.equal((await call("GET", "/v1/collections", key)).status, 200);
    await s.store.revokeKey(id);
    assert.equal((await call("GET", "/v1/collections", key)).status, 401);
  });

  test("bad input is a 400 with a stable code, never a 5xx", async () => {
    const cases: Array<[string, string, unknown, string?]> = [
      ["POST", "/v1/collections/weather/search", { query: "" }],
      ["POST", "/v1/collections/weather/search", { query: "x", limit: 51 }],
      ["POST", "/v1/collections/weather/search", { query: "x", engnie: "bm25" }],
      ["POST", "/v1/collections/weather/search", { query: "x".repeat(5000) }],
      ["POST", "/v1/collections/weather/search", { query: "(", engine: "regex" }],
      ["POST", "/v1/collections/weather/search", { query: "a".repeat(201), engine: "regex" }],
      ["PUT", "/v1/collections/bad%20name", { kind: "tools", tools: [] }],
      ["PUT", "/v1/collections/x", { kind: "sheets" }],
      ["PUT", "/v1/collections/x", { kind: "tools", documents: [] }],
      ["PUT", "/v1/collections/x", "{not json", "application/json"],
    ];
    for (const [method, url, payload, type] of cases) {
      const response = await s.app.inject({ method: method as "POST", url, payload: payload as string, headers: { ...s.auth(s.keys.admin), ...(type ? { "content-type": type } : {}) } });
      assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${method} ${url} ${JSON.stringify(payload).slice(0, 60)} → ${response.statusCode}`);
      const body = JSON.parse(response.body) as Json;
      assert.ok(typeof body.error.code === "string" && typeof body.error.message === "string", response.body);
      assert.ok(!/\n\s+at /.test(response.body), "no stack trace");
    }
    const missing = await call("POST", "/v1/collections/nope/search", s.keys.read, { query: "x" });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "unknown_collection");
    const route = await call("GET", "/v1/nothing-here", s.keys.read);
    assert.equal(route.status, 404);
  });

  test("DELETE a collection: 204, then 404; its index is gone", async () => {
    assert.equal((await call("PUT", "/v1/collections/tmp", s.keys.write, { kind: "tools", tools: weatherTools() })).status, 201);
    assert.equal((await call("DELETE", "/v1/collections/tmp", s.keys.write)).status, 204);
    assert.equal((await call("DELETE", "/v1/collections/tmp", s.keys.write)).status, 404);
    assert.equal((await call("POST", "/v1/collections/tmp/search", s.keys.read, { query: "weather" })).status, 404);
  });

  test("/openapi.json is OpenAPI 3.1 and documents every /v1 route with its schemas", async () => {
    const doc = (await call("GET", "/openapi.json", undefined)).body;
    assert.equal(doc.openapi, "3.1.0");
    const paths = Object.keys(doc.paths);
    for (const path of [
      "/v1/collections", "/v1/collections/{c}", "/v1/collections/{c}/tools/{name}", "/v1/collections/{c}/documents/{id}",
      "/v1/collections/{c}/batch", "/v1/collections/{c}/search", "/v1/collections/{c}/lint", "/healthz", "/readyz",
      "/metrics", "/openapi.json", "/mcp/{c}", "/", "/v1/collections/{c}/servers",
    ]) assert.ok(paths.includes(path), `${path} in ${paths.join(", ")}`);
    const search = doc.paths["/v1/collections/{c}/search"].post;
    assert.ok(search.requestBody.content["application/json"].schema.properties.query);
    assert.ok(search.responses["200"]);
    assert.deepEqual(search.security, [{ bearer: [] }]);
    assert.ok(doc.components.schemas.Error);
  });

  test("/healthz and /readyz answer without a key; /metrics takes an admin key and counts requests and sizes", async () => {
    assert.equal((await call("GET", "/healthz", undefined)).status, 200);
    assert.equal((await call("GET", "/readyz", undefined)).body.status, "ready");
    // It names every collection: no key is 401, a read key 403, and a key limited to one collection 403 as well.
    assert.equal((await call("GET", "/metrics", undefined)).status, 401);
    assert.equal((await call("GET", "/metrics", s.keys.read)).status, 403);
    const limited = (await createApiKey(s.store, { scope: "admin", collection: "weather" })).key;
    assert.equal((await call("GET", "/metrics", limited)).status, 403);
    const metrics = await s.app.inject({ method: "GET", url: "/metrics", headers: s.auth(s.keys.admin) });
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.body, /toolsearch_http_requests_total\{route="\/v1\/collections\/:c\/search",method="POST",status="200"\} \d+/);
    assert.match(metrics.body, /toolsearch_search_duration_seconds_count\{engine="bm25",kind="tools"\} \d+/);
    assert.match(metrics.body, /toolsearch_collection_items\{collection="weather",kind="tools"\} 8/);
    assert.equal((await call("GET", "/", undefined)).status, 200);
  });
});

test("--public-metrics serves /metrics without a key", async () => {
  const s = await makeService({ publicMetrics: true });
  try {
    const metrics = await s.app.inject({ method: "GET", url: "/metrics" });
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.body, /toolsearch_store_applied_seq/);
  } finally {
    await s.close();
  }
});

test("body over --max-body is 413 payload_too_large and nothing is written", async () => {
  const s = await makeService({ maxBodyBytes: 2048 });
  try {
    const response = await s.app.inject({
      method: "PUT",
      url: "/v1/collections/big",
      headers: s.auth(s.keys.write),
      payload: { kind: "docs", documents: [{ id: "a", title: "A", body: "x".repeat(4096) }] },
    });
    assert.equal(response.statusCode, 413);
    assert.equal(JSON.parse(response.body).error.code, "payload_too_large");
    assert.equal(await s.store.getCollection("big"), undefined);
  } finally {
    await s.close();
  }
});

test("rate limit: 429 rate_limited per key, with Retry-After; another key is not affected", async () => {
  const s = await makeService({ rateLimit: { max: 3, windowMs: 60_000 } });
  try {
    const get = (key: string) => s.app.inject({ method: "GET", url: "/v1/collections", headers: s.auth(key) });
    for (let i = 0; i < 3; i++) assert.equal((await get(s.keys.read)).statusCode, 200);
    const limited = await get(s.keys.read);
    assert.equal(limited.statusCode, 429);
    assert.equal(JSON.parse(limited.body).error.code, "rate_limited");
    assert.ok(Number(limited.headers["retry-after"]) > 0);
    assert.equal((await get(s.keys.write)).statusCode, 200);
    assert.equal((await s.app.inject({ method: "GET", url: "/healthz" })).statusCode, 200);
  } finally {
    await s.close();
  }
});

test("--no-auth: requests need no key", async () => {
  const s = await makeService({ noAuth: true });
  try {
    assert.equal((await s.app.inject({ method: "GET", url: "/v1/collections" })).statusCode, 200);
  } finally {
    await s.close();
  }
});

test("the log has requests but never a key or a body", async () => {
  const lines: string[] = [];
  const stream = { write: (line: string) => void lines.push(line) };
  const s = await makeService({ logger: { level: "info", stream } });
  try {
    await s.app.inject({ method: "PUT", url: "/v1/collections/secret", headers: s.auth(s.keys.write), payload: { kind: "docs", documents: [{ id: "d", title: "T", body: "SECRET-BODY-TEXT" }] } });
    await s.app.inject({ method: "POST", url: "/v1/collections/secret/search", headers: s.auth(s.keys.read), payload: { query: "SECRET-QUERY-TEXT" } });
    const log = lines.join("");
    assert.match(log, /\/v1\/collections\/secret/);
    for (const secret of [s.keys.write, s.keys.read, "SECRET-BODY-TEXT", "SECRET-QUERY-TEXT"]) assert.ok(!log.includes(secret), `log leaks ${secret.slice(0, 12)}`);
  } finally {
    await s.close();
  }
});

test("the app's default logger redacts every credential-bearing header (authorization, proxy-authorization, cookie, set-cookie, x-api-key)", async () => {
  const lines: string[] = [];
  const s = await makeService({ logger: { level: "info", stream: { write: (line: string) => void lines.push(line) } } });
  try {
    logHeadersOnEveryRequest(s.app);
    await sendSecretHeaders(s.app);
    assertNoSecretHeaders(lines.join(""));
  } finally {
    await s.close();
  }
});

test("--no-auth serves loopback Host names only (DNS rebinding from a web page is refused)", async () => {
  const s = await makeService({ noAuth: true });
  try {
    for (const host of ["localhost:8080", "127.0.0.1:9", "[::1]:8080"]) {
      assert.equal((await s.app.inject({ method: "GET", url: "/v1/collections", headers: { host } })).statusCode, 200, host);
    }
    const rebound = await s.app.inject({ method: "GET", url: "/v1/collections", headers: { host: "evil.example:8080" } });
    assert.equal(rebound.statusCode, 403);
    assert.equal(JSON.parse(rebound.body).error.code, "forbidden");
  } finally {
    await s.close();
  }
});

test("a semantic search that outlives the request timeout answers 503 request_timeout", async () => {
  const stuck = { id: "stuck", dimensions: 4, embed: () => new Promise<Float32Array[]>(() => {}) };
  const s = await makeService({ requestTimeoutMs: 300 }, undefined, stuck);
  try {
    await s.store.putCollection("w", "tools", {}, weatherTools().slice(0, 2).map((t) => ({ key: String(t.name), body: t })));
    await s.collections.sync();
    const response = await s.app.inject({ method: "POST", url: "/v1/collections/w/search", headers: s.auth(s.keys.read), payload: { query: "rain", engine: "semantic" } });
    assert.equal(response.statusCode, 503);
    assert.equal(JSON.parse(response.body).error.code, "request_timeout");
    const bm25 = await s.app.inject({ method: "POST", url: "/v1/collections/w/search", headers: s.auth(s.keys.read), payload: { query: "weather" } });
    assert.equal(bm25.statusCode, 200, "the lexical engines are unaffected");
  } finally {
    await s.close();
  }
});

test("while collections load: /healthz 200, /readyz and collection routes 503 not_ready", async () => {
  const s = await makeService();
  const loading = new Collections(s.store, { log: () => {} });
  const app = await buildService({ collections: loading, logger: false });
  try {
    assert.equal((await app.inject({ method: "GET", url: "/healthz" })).statusCode, 200);
    const ready = await app.inject({ method: "GET", url: "/readyz" });
    assert.equal(ready.statusCode, 503);
    assert.equal(JSON.parse(ready.body).error.code, "not_ready");
    const search = await app.inject({ method: "POST", url: "/v1/collections/any/search", headers: s.auth(s.keys.read), payload: { query: "x" } });
    assert.equal(search.statusCode, 503);
    assert.equal(JSON.parse(search.body).error.code, "not_ready");
    await loading.start();
    assert.equal((await app.inject({ method: "GET", url: "/readyz" })).statusCode, 200);
  } finally {
    await app.close();
    await loading.close();
    await s.close();
  }
});
