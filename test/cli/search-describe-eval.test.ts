import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { fixture, tempFile } from "../helpers/files.js";

const catalog = fixture("catalogs", "weather-finance.json");

describe("toolsearch search", () => {
  it("prints SPEC §4 JSON", () => {
    const { code, stdout } = runCli(["search", "weather in Paris", "--catalog", catalog, "--limit", "2", "--json"]);
    assert.equal(code, 0);
    const out = JSON.parse(stdout);
    assert.equal(out.engine, "bm25");
    assert.equal(out.query, "weather in Paris");
    assert.equal(out.results.length, 2);
    assert.equal(out.results[0].name, "get_weather");
    assert.deepEqual(Object.keys(out.results[0]).sort(), ["description", "name", "score"]);
  });

  it("exits 0 with results: [] or a helpful message when nothing matches", () => {
    const json = runCli(["search", "qqqxxzz", "--catalog", catalog, "--json"]);
    assert.equal(json.code, 0);
    assert.deepEqual(JSON.parse(json.stdout).results, []);
    const text = runCli(["search", "forcast", "--catalog", catalog, "--engine", "regex"]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /No tool matched "forcast"/);
  });

  it("exits 1 for an invalid pattern and 2 for bad usage", () => {
    const bad = runCli(["search", "(?<=x)y", "--catalog", catalog, "--engine", "regex"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /look-behind/);
    const usage = runCli(["search", "x", "--catalog", catalog, "--limit", "500"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--limit takes a whole number from 1 to 50/);
    assert.equal(runCli(["search", "x"]).code, 2);
  });

  it("exits 1 and names file, item and rule for a bad catalog", () => {
    const file = tempFile("bad.json", JSON.stringify([{ name: "ok", input_schema: { type: "object" } }, { name: "not ok!", input_schema: { type: "object" } }]));
    const { code, stderr } = runCli(["search", "x", "--catalog", file]);
    assert.equal(code, 1);
    assert.match(stderr, /bad\.json: item 1 \("not ok!"\): name must match/);
  });
});

describe("toolsearch describe", () => {
  it("prints the tool in Anthropic shape", () => {
    const { code, stdout } = runCli(["describe", "get_stock_price", "--catalog", catalog, "--json"]);
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(stdout), {
      name: "get_stock_price", description: "Get the latest price of a stock by its ticker symbol",
      input_schema: { type: "object", properties: { ticker: { type: "string" } }, required: ["ticker"] },
    });
  });

  it("exits 1 for an unknown name and suggests the closest", () => {
    const { code, stderr } = runCli(["describe", "get_stock_prices", "--catalog", catalog]);
    assert.equal(code, 1);
    assert.match(stderr, /Unknown tool "get_stock_prices"\. Did you mean: get_stock_price/);
  });
});

describe("toolsearch eval", () => {
  it("prints SPEC §4 JSON with every metric per engine", () => {
    const queries = tempFile("queries.jsonl", [
      { id: "q1", query: "weather in Paris", relevant: ["get_weather"] },
      { id: "q2", query: "share price of a ticker", relevant: ["get_stock_price"] },
      { id: "q3", query: "exchange currencies", relevant: ["convert_currency", "get_exchange_rate"] },
    ].map((q) => JSON.stringify(q)).join("\n"));
    const { code, stdout } = runCli(["eval", "--catalog", catalog, "--queries", queries, "--engine", "bm25,regex", "--max-queries", "2", "--json"]);
    assert.equal(code, 0);
    const report = JSON.parse(stdout);
    assert.equal(report.queries, 2);
    assert.deepEqual(Object.keys(report.engines), ["bm25", "regex"]);
    assert.deepEqual(Object.keys(report.engines.bm25).sort(), ["mrr@10", "ndcg@10", "p50_ms", "p99_ms", "recall@1", "recall@10", "recall@5"]);
    assert.equal(report.engines.bm25["recall@1"], 1);
  });

  it("runs the tool-set variants beside their engine, and refuses an unknown variant", () => {
    const queries = tempFile("multi-queries.jsonl", JSON.stringify({ id: "m1", query: "weather in Paris tomorrow and the share price of a ticker", relevant: ["get_weather", "get_stock_price"] }));
    const { code, stdout } = runCli(["eval", "--catalog", catalog, "--queries", queries, "--engine", "bm25,bm25+clauses,bm25+sets", "--json"]);
    assert.equal(code, 0);
    const report = JSON.parse(stdout);
    assert.deepEqual(Object.keys(report.engines), ["bm25", "bm25+clauses", "bm25+sets"]);
    assert.equal(report.engines["bm25+clauses"]["recall@5"], 1);
    const bad = runCli(["eval", "--catalog", catalog, "--queries", queries, "--engine", "regex+sets"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown engine "regex\+sets"/);
  });

  it("refuses queries whose labels are not in the catalog", () => {
    const queries = tempFile("bad-queries.jsonl", JSON.stringify({ id: "q1", query: "x", relevant: ["no_such_tool"] }));
    const { code, stderr } = runCli(["eval", "--catalog", catalog, "--queries", queries]);
    assert.equal(code, 1);
    assert.match(stderr, /item 0 \("q1"\): relevant names "no_such_tool", not in the catalog/);
  });
});
