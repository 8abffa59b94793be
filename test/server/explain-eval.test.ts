import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { helpCenter, makeService, type TestService, weatherTools } from "./helpers.js";

const sum = (values: { contribution: number }[]) => values.reduce((total, v) => total + v.contribution, 0);
const QUERIES = [
  { id: "q1", query: "weather in Paris", relevant: ["get_weather"] },
  { id: "q2", query: "how much is a dollar in euros", relevant: ["get_exchange_rate"] },
  { id: "q3", query: "monthly house loan payment", relevant: ["calculate_mortgage"] },
].map((q) => JSON.stringify(q)).join("\n");

describe("explain and eval routes, and the console's files", () => {
  let s: TestService;
  before(async () => {
    s = await makeService();
    await s.app.inject({ method: "PUT", url: "/v1/collections/weather", headers: s.auth(s.keys.admin), payload: { kind: "tools", tools: weatherTools() } });
    await s.app.inject({ method: "PUT", url: "/v1/collections/help", headers: s.auth(s.keys.admin), payload: { kind: "docs", documents: helpCenter() } });
  });
  after(() => s?.close());

  const post = (url: string, payload: unknown, key = s.keys.read) => s.app.inject({ method: "POST", url, headers: s.auth(key), payload: payload as object });

  it("POST …/explain answers the explain --json shape; its terms add up to the score", async () => {
    const res = await post("/v1/collections/weather/explain", { query: "wether forecast", name: "get_forecast" });
    assert.equal(res.statusCode, 200, res.body);
    const why = res.json();
    assert.equal(why.rank, 1);
    assert.ok(Math.abs(sum(why.terms) - why.score) < 1e-9);
    assert.ok(why.terms.some((t: { typo?: unknown }) => t.typo));
    const hybrid = (await post("/v1/collections/weather/explain", { query: "weather", name: "get_weather", engine: "hybrid" })).json();
    // hybrid ends in the learned ranker: its features' parts add up to the score (the fusion parts are one feature).
    assert.ok(Math.abs(sum(hybrid.ranker.features) - hybrid.score) < 1e-9);
    assert.equal(hybrid.parts.length, 2);
    const doc = await post("/v1/collections/help/explain", { query: "refund", name: "kb-refunds" });
    assert.equal(doc.json().rank, 1);
  });

  it("explain refuses an unknown item (404), an engine the collection lacks and a bad body (400), and needs a key (401)", async () => {
    assert.equal((await post("/v1/collections/weather/explain", { query: "x", name: "nope" })).json().error.code, "unknown_tool");
    assert.equal((await post("/v1/collections/weather/explain", { query: "x", name: "nope" })).statusCode, 404);
    const regexOnDocs = await post("/v1/collections/help/explain", { query: "refund", name: "kb-refunds", engine: "regex" });
    assert.equal(regexOnDocs.statusCode, 400);
    assert.equal(regexOnDocs.json().error.code, "unknown_engine");
    assert.equal((await post("/v1/collections/weather/explain", { query: "x" })).statusCode, 400);
    const anonymous = await s.app.inject({ method: "POST", url: "/v1/collections/weather/explain", payload: { query: "x", name: "get_weather" } });
    assert.equal(anonymous.statusCode, 401);
  });

  it("POST …/eval runs uploaded labelled queries and answers the report's data", async () => {
    const res = await post("/v1/collections/weather/eval", { queries: QUERIES, engines: ["bm25", "regex"] });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json();
    assert.equal(data.queries, 3);
    assert.deepEqual(data.engines, ["bm25", "regex"]);
    assert.equal(data.recall_at_k.bm25.length, 10);
    assert.ok(data.metrics.bm25["recall@10"] > 0);
    for (const m of data.missed) for (const e of m.missed) assert.ok(m.explanations[e].length > 0);
  });

  it("eval refuses a bad queries file whole, naming the line and rule", async () => {
    const bad = await post("/v1/collections/weather/eval", { queries: `${QUERIES}\n{"id":"q4","query":"x","relevant":["no_such_tool"]}`, file: "mine.jsonl" });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, "queries_invalid");
    assert.match(bad.json().error.message, /mine\.jsonl/);
    const broken = await post("/v1/collections/weather/eval", { queries: "{not json" });
    assert.equal(broken.statusCode, 400);
    assert.equal(broken.json().error.code, "file_parse");
  });

  it("GET / serves the console with a policy that loads nothing from elsewhere; its files are served, others 404", async () => {
    const page = await s.app.inject({ method: "GET", url: "/" });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers["content-type"] as string, /text\/html/);
    assert.match(page.headers["content-security-policy"] as string, /default-src 'self'/);
    assert.match(page.body, /<script type="module" src="\/console\/app\.js">/);
    assert.doesNotMatch(page.body, /https?:\/\//);
    const js = await s.app.inject({ method: "GET", url: "/console/app.js" });
    assert.equal(js.statusCode, 200);
    assert.match(js.headers["content-type"] as string, /javascript/);
    assert.equal((await s.app.inject({ method: "GET", url: "/console/nope.js" })).statusCode, 404);
  });
});
