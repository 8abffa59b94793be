import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openStore } from "../../src/store/open.js";
import { runCli } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { weatherTools, WEATHER_TOOLS } from "../server/helpers.js";

describe("usage export", () => {
  it("prints a collection's events as JSON Lines, and names an unknown collection", async () => {
    const dir = makeTempDir("toolsearch-usage-");
    const path = join(dir, "store.sqlite");
    const store = await openStore(path);
    await store.putCollection("weather", "tools", {}, weatherTools().map((t) => ({ key: t.name as string, body: t })));
    await store.recordUsage([
      { collection: "weather", session: "s1", kind: "search", query: "rain", tools: ["get_forecast"], at: "2026-01-01T00:00:00.000Z" },
      { collection: "weather", session: "s1", kind: "call", tools: ["get_forecast"], outcome: "ok", at: "2026-01-01T00:00:01.000Z" },
    ]);
    await store.close();
    const out = runCli(["usage", "export", "--collection", "weather", "--store", path, "--json"]);
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((e) => [e.kind, e.session, e.tools[0]]), [["search", "s1", "get_forecast"], ["call", "s1", "get_forecast"]]);
    const missing = runCli(["usage", "export", "--collection", "nope", "--store", path, "--json"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /unknown_collection/);
  });
});

describe("eval --history", () => {
  it("measures bm25 with and without the learned signal side by side; the history lifts a tool its words never name", () => {
    const dir = makeTempDir("toolsearch-history-");
    const line = (id: string, query: string, tool: string) => JSON.stringify({ id, query, relevant: [tool] });
    const history = Array.from({ length: 40 }, (_, i) => line(`h${i}`, i % 2 ? "protect my savings" : "shield savings abroad", "convert_currency"));
    writeFileSync(join(dir, "history.jsonl"), history.join("\n"));
    writeFileSync(join(dir, "test.jsonl"), [line("t1", "protect savings", "convert_currency"), line("t2", "weather forecast tomorrow", "get_forecast")].join("\n"));
    const out = runCli(["eval", "--catalog", WEATHER_TOOLS, "--queries", join(dir, "test.jsonl"), "--history", join(dir, "history.jsonl"), "--json"]);
    assert.equal(out.code, 0, out.stderr);
    const report = JSON.parse(out.stdout);
    assert.deepEqual(Object.keys(report.engines), ["bm25", "bm25+learned"]);
    assert.equal(report.engines["bm25+learned"]["recall@1"], 1);
    assert.ok(report.engines.bm25["recall@1"] < 1);
  });
});
