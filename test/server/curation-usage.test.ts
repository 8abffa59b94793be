import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Collections } from "../../src/server/collections.js";
import { makeService, type TestService, weatherTools } from "./helpers.js";

describe("curation and usage routes (SPEC §17)", () => {
  let s: TestService;
  before(async () => {
    s = await makeService();
    await s.app.inject({ method: "PUT", url: "/v1/collections/weather", headers: s.auth(s.keys.admin), payload: { kind: "tools", tools: weatherTools() } });
  });
  after(() => s?.close());

  const call = (method: "GET" | "PUT" | "POST", url: string, payload?: unknown, key = s.keys.write) =>
    s.app.inject({ method, url, headers: s.auth(key), ...(payload === undefined ? {} : { payload: payload as object }) });
  const top = async (query: string, extra: object = {}) => (await call("POST", "/v1/collections/weather/search", { query, ...extra }, s.keys.read)).json().results.map((r: { name: string }) => r.name);

  it("synonyms: PUT with the write scope changes search and explain; GET returns them; a read key may not write", async () => {
    assert.deepEqual(await top("umbrella"), []);
    assert.deepEqual((await call("GET", "/v1/collections/weather/synonyms", undefined, s.keys.read)).json(), { groups: [], oneWay: {} });
    assert.equal((await call("PUT", "/v1/collections/weather/synonyms", { oneWay: { umbrella: ["forecast"] } }, s.keys.read)).statusCode, 403);
    const put = await call("PUT", "/v1/collections/weather/synonyms", { groups: [["fx", "exchange rate"]], oneWay: { umbrella: ["forecast"] } });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal((await top("umbrella"))[0], "get_forecast");
    assert.deepEqual((await call("GET", "/v1/collections/weather/synonyms", undefined, s.keys.read)).json().oneWay, { umbrella: ["forecast"] });
    const why = (await call("POST", "/v1/collections/weather/explain", { query: "umbrella", name: "get_forecast" }, s.keys.read)).json();
    assert.deepEqual(why.synonyms, [{ term: "umbrella", added: ["forecast"] }]);
  });

  it("refuses bad curation with 400 (schema) or curation_invalid, and changes nothing", async () => {
    const bad = await call("PUT", "/v1/collections/weather/synonyms", { groups: [["lonely"]] });
    assert.equal(bad.statusCode, 400);
    const blank = await call("PUT", "/v1/collections/weather/rules", { rules: [{ query: "   ", pin: ["get_weather"] }] });
    assert.equal(blank.statusCode, 400);
    assert.equal(blank.json().error.code, "curation_invalid");
    assert.equal((await top("umbrella"))[0], "get_forecast");
  });

  it("rules: a pinned tool comes first for matching queries, and explain names the rule", async () => {
    assert.equal((await call("PUT", "/v1/collections/weather/rules", { rules: [{ query: "stock*", pin: ["get_company_news"] }] })).statusCode, 200);
    assert.equal((await top("stock price of ACME"))[0], "get_company_news");
    assert.equal((await top("price of a stock"))[0], "get_stock_price");
    const why = (await call("POST", "/v1/collections/weather/explain", { query: "stock price of ACME", name: "get_company_news" }, s.keys.read)).json();
    assert.deepEqual(why.pinned, { rule: "stock*", position: 1 });
  });

  it("rules: a hostile pattern (issue 38) answers a 900-letter query, and the service stays up", async () => {
    const hostile = `${"*a".repeat(20)}*b`;
    assert.equal((await call("PUT", "/v1/collections/weather/rules", { rules: [{ query: hostile, pin: ["get_company_news"] }] })).statusCode, 200);
    // On a backtracking RegExp (^.*a.*a…b$) this search never answered and /healthz stopped with it.
    const long = await call("POST", "/v1/collections/weather/search", { query: "a".repeat(900) }, s.keys.read);
    assert.equal(long.statusCode, 200, long.body);
    assert.ok(!long.json().results.some((r: { name: string }) => r.name === "get_company_news"), "the rule does not match: the query has no b");
    assert.equal((await top(`${"a".repeat(511)}b`))[0], "get_company_news", "and it still matches what it should");
    // Rules look at queries of at most 512 characters (docs/learning.md): a longer one gets no pins.
    assert.notEqual((await top(`${"a".repeat(512)}b`))[0], "get_company_news", "over the cap, rules are not looked at");
    assert.equal((await s.app.inject({ method: "GET", url: "/healthz" })).statusCode, 200);
    assert.equal((await call("PUT", "/v1/collections/weather/rules", { rules: [] })).statusCode, 200);
  });

  it("usage: searches with a session and reported calls teach the learned signal, which survives a restart and can be switched off", async () => {
    const before = await top("protect my savings", { limit: 3 });
    for (let i = 0; i < 40; i++) {
      await call("POST", "/v1/collections/weather/search", { query: "protect my savings", session: `s${i}` }, s.keys.read);
      const res = await call("POST", "/v1/collections/weather/events", { events: [{ session: `s${i}`, kind: "call", tool: "convert_currency" }, { session: `s${i}`, kind: "call", tool: "no_such_tool" }] }, s.keys.call);
      assert.deepEqual(res.json(), { recorded: 1 });
    }
    assert.equal((await top("protect my savings"))[0], "convert_currency");
    assert.deepEqual(await top("protect my savings", { limit: 3, learned: false }), before);
    const why = (await call("POST", "/v1/collections/weather/explain", { query: "protect my savings", name: "convert_currency" }, s.keys.read)).json();
    assert.ok(why.learned.contribution > 0);
    assert.ok(why.learned.terms.some((t: { term: string }) => t.term === "save"));

    const events = await s.store.listUsage("weather");
    assert.equal(events.filter((e) => e.kind === "call").length, 40);
    // A second replica on the same store learns the same from the stored events.
    const replica = new Collections(s.store, { log: () => {}, snapshots: false });
    await replica.start();
    assert.equal(replica.get("weather").tools!.searchSync("protect my savings")[0].name, "convert_currency");
    await replica.close();

    assert.equal((await call("PUT", "/v1/collections/weather/learning", { enabled: false })).statusCode, 200);
    assert.deepEqual(await top("protect my savings", { limit: 3 }), before);
    assert.equal((await call("PUT", "/v1/collections/weather/learning", { enabled: true })).statusCode, 200);
    assert.equal((await top("protect my savings"))[0], "convert_currency");
  });
});
