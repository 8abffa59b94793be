import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { fixture } from "../helpers/files.js";

const catalog = fixture("catalogs", "weather-finance.json");
const sum = (values: { contribution: number }[]) => values.reduce((total, v) => total + v.contribution, 0);

describe("toolsearch explain", () => {
  it("--json: rank, score, and term contributions that add up to it; typo expansions marked", () => {
    const result = runCli(["explain", "wether forecast", "get_forecast", "--catalog", catalog, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const why = JSON.parse(result.stdout);
    assert.equal(why.name, "get_forecast");
    assert.equal(why.engine, "bm25");
    assert.equal(why.rank, 1);
    assert.ok(Math.abs(sum(why.terms) - why.score) < 1e-9);
    assert.ok(why.terms.some((t: { typo?: { query_term: string } }) => t.typo?.query_term === "wether"));
  });

  it("human output: the verdict, a table of terms and fields, and what ranks above", () => {
    const result = runCli(["explain", "weather forecast in a location", "get_timezone", "--catalog", catalog]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /get_timezone ranks #3 for "weather forecast in a location" \(bm25, score \d+\.\d{3}\)/);
    assert.match(result.stdout, /term\s+field\s+contribution/);
    assert.match(result.stdout, /1\. get_forecast/);
  });

  it("regex: the fields and spans that matched", () => {
    const result = runCli(["explain", "forecast", "get_forecast", "--engine", "regex", "--catalog", catalog]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /name: "forecast" at 4/);
  });

  it("documents with --docs", () => {
    const result = runCli(["explain", "refund", "kb-refunds", "--docs", fixture("documents", "help-center.jsonl"), "--json"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).rank, 1);
  });

  it("an unknown tool is a user error (1) naming close names; neither --catalog nor --docs is bad usage (2)", () => {
    const unknown = runCli(["explain", "weather", "get_wether", "--catalog", catalog]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /get_wether/);
    assert.match(unknown.stderr, /get_weather/);
    assert.doesNotMatch(unknown.stderr, /\n\s+at /);
    assert.equal(runCli(["explain", "weather", "get_weather"]).code, 2);
  });
});
