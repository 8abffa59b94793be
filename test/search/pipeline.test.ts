import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { normalizeTools } from "../../src/catalog/load.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { liftGroups, groupOf } from "../../src/indexes/tool-sets.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import type { ToolEngine, ToolSearchOptions } from "../../src/indexes/tool-index-options.js";
import { FEATURE_NAMES, LEXICAL_FEATURES } from "../../src/ranking/features.js";
import type { RankerModel } from "../../src/ranking/model.js";
import { rankLearned } from "../../src/ranking/rank.js";
import { curate } from "../../src/search/curation.js";
import { toolHit } from "../../src/search/hits.js";
import { searchRequest } from "../../src/search/request.js";
import { createAnalyzer } from "../../src/text/analyzer.js";
import { replayHistory } from "../../src/usage/replay.js";
import { UsageRanking } from "../../src/usage/ranking.js";
import { LetterProvider } from "../helpers/letter-provider.js";

const tools = normalizeTools([
  { name: "weather__current", description: "Current weather for a city", input_schema: { type: "object", properties: { city: { type: "string" } } } },
  { name: "weather__forecast", description: "Weather forecast for the next days in a city", input_schema: { type: "object", properties: { days: { type: "integer" } } } },
  { name: "mail__send", description: "Send an email message to a recipient", input_schema: { type: "object", properties: { to: { type: "string" } } } },
  { name: "mail__search", description: "Search the mailbox for messages", input_schema: { type: "object", properties: { q: { type: "string" } } } },
  { name: "stock_quote", description: "Latest stock price of a listed company", category: "finance", input_schema: { type: "object", properties: {} } },
  { name: "stock_chart", description: "Chart a share price over a period", category: "finance", input_schema: { type: "object", properties: {} } },
  { name: "news_headlines", description: "Latest news headlines about a company or topic", category: "news", input_schema: { type: "object", properties: {} } },
  { name: "calendar_add", description: "Add an event to the calendar on a day", input_schema: { type: "object", properties: {} } },
]);

/** Made-up weights on every feature: what is tested is where the model sits in the pipeline, not what it learned. */
const model: RankerModel = {
  version: 1,
  hybrid: { features: [...FEATURE_NAMES], weights: FEATURE_NAMES.map((_, i) => ((i % 5) - 2) * 0.7 + 0.1) },
  lexical: { features: [...LEXICAL_FEATURES], weights: LEXICAL_FEATURES.map((_, i) => ((i % 3) - 1) * 0.9 + 0.2) },
};
const queries = [
  "weather in a city", "latest news about a company and chart its share price over the year", "send a message then add an event to the calendar",
  "stock price", "forcast for the next days",
];
const variants: [string, ToolSearchOptions][] = [
  ["bm25", {}], ["bm25 clauses", { sets: { clauses: true } }], ["bm25 groups", { sets: { groups: true } }], ["bm25 no ranker", { ranker: false, sets: true }],
  ["semantic", { engine: "semantic" }], ["regex", { engine: "regex" }],
  ["hybrid", { engine: "hybrid" }], ["hybrid sets", { engine: "hybrid", sets: true }], ["hybrid no ranker", { engine: "hybrid", ranker: false, sets: true }],
];

function index(): ToolIndex {
  return new ToolIndex(tools, { bm25: { fit: false }, embedder: new Embedder(new LetterProvider()), ranker: model });
}

describe("tool search pipeline", () => {
  it("explain places each tool where search ranks it, with the same score (every engine, tool sets, usage, pins, visibility)", async () => {
    const tools = index();
    const learned = replayHistory([{ id: "h", query: "message a recipient", relevant: ["mail__search"] }], tools.analyzer, { minEvidence: 1 });
    tools.setRules({ rules: [{ query: "stock*", pin: ["news_headlines", "mail__send"] }] });
    const hidden = new Set(["mail__send", "weather__current"]);
    const visible = { accept: (name: string) => !hidden.has(name) };
    let checked = 0;
    for (const withHistory of [false, true]) {
      tools.setLearned(withHistory ? learned : undefined);
      for (const [label, options] of variants) {
        // Known difference, kept as it was: with the lexical model, bm25 lifts groups in its candidate list and
        // explain lifts them again over the model's ranking (docs/search-pipeline.md).
        if (label === "bm25 groups") continue;
        for (const seeing of [undefined, visible]) {
          for (const query of queries) {
            const q = options.engine === "regex" ? query.split(" ")[0] : query;
            const hits = await tools.search(q, { ...options, visible: seeing, limit: 10 });
            for (const [at, hit] of hits.entries()) {
              const why = await tools.explain(q, hit.name, { ...options, visible: seeing });
              assert.equal(why.rank, at + 1, `${label} ${seeing ? "visible" : "all"} ${withHistory ? "learned" : ""}: ${q} → ${hit.name}`);
              // The learned signal's confidence decays with the clock, which moves between the two calls.
              if (withHistory) assert.ok(Math.abs(why.score - hit.score) <= 1e-8, `${label}: ${q} → ${hit.name}: ${why.score} vs ${hit.score}, rank ${why.rank} vs ${at + 1}`);
              else assert.equal(why.score, hit.score, `${label}: ${q} → ${hit.name}`);
              checked++;
            }
            if (seeing) for (const hit of hits) assert.ok(!hidden.has(hit.name), `${label}: ${hit.name} is hidden`);
          }
        }
      }
    }
    assert.ok(checked > 300, `only ${checked} hits checked`);
  });

  it("a learned ranking is the model's ranking of the evidence modelEvidence gathers, then curated", async () => {
    const tools = index();
    for (const query of queries) {
      for (const [engine, sets] of [["bm25", false], ["bm25", true], ["hybrid", false], ["hybrid", { clauses: true }], ["hybrid", true]] as [ToolEngine, ToolSearchOptions["sets"]][]) {
        const found = (await tools.rankerEvidence(query, { engine, sets }))!;
        let ranked = rankLearned(found.model!, found.evidence);
        // Curation: hybrid lifts groups over the model's ranking (bm25's candidate list carries its lifts already).
        if (engine === "hybrid" && sets === true) ranked = liftGroups(ranked, (id) => groupOf(tools.get(id)!));
        const hits = await tools.search(query, { engine, sets, limit: 10 });
        assert.deepEqual(hits.map((h) => [h.name, h.score]), ranked.slice(0, 10).map((h) => [h.id, h.score]), `${engine} ${JSON.stringify(sets)}: ${query}`);
      }
    }
  });

  it("curation: hybrid lifts groups over the ranking, pins bring in only tools the caller sees, the list is cut to the limit", () => {
    const usage = new UsageRanking(createAnalyzer());
    usage.setRules({ rules: [{ query: "pin me", pin: ["b__hidden", "c__pinned"] }] });
    const byName = new Map(["a__one", "a__two", "b__hidden", "c__pinned", "d"].map((name) => [name, { name, description: name, inputSchema: {} } as never]));
    const engines = { usage, tool: (name: string) => byName.get(name)!, exists: (name: string) => byName.has(name) && name !== "b__hidden" };
    const ranked = [{ id: "a__one", score: 10 }, { id: "d", score: 9 }, { id: "c__pinned", score: 5 }, { id: "a__two", score: 4 }, { id: "b__hidden", score: 1 }];
    const hybrid = searchRequest({ engine: "hybrid", sets: { groups: true }, limit: 3 }, {});
    const bm25 = searchRequest({ engine: "bm25", sets: { groups: true }, limit: 3 }, {});
    // a__two is lifted by its group's leader a__one (0.3 × the range 9 = 2.7, to 6.7) past c__pinned, not past d.
    assert.deepEqual(curate("q", [], ranked, hybrid, engines).map((h) => h.id), ["a__one", "d", "a__two"]);
    assert.deepEqual(curate("q", [], ranked, bm25, engines).map((h) => h.id), ["a__one", "d", "c__pinned"]);
    assert.deepEqual(curate("pin me", [], ranked, bm25, engines).map((h) => h.id), ["c__pinned", "a__one", "d"]);
  });

  it("shapes a hit: description cut at a word, category only when the tool has one", () => {
    const [tool] = normalizeTools([{ name: "t", description: `${"word ".repeat(60)}end`, input_schema: { type: "object" } }]);
    const hit = toolHit(tool, { id: "t", score: 1.5 });
    assert.deepEqual(Object.keys(hit), ["name", "score", "description"]);
    assert.ok(hit.description.length <= 200 && hit.description.endsWith("word…"), hit.description);
    assert.equal(toolHit({ ...tool, category: "c" }, { id: "t", score: 1 }).category, "c");
  });

  it("no stage imports the index: src/search calls only downward", () => {
    const dir = new URL("../../src/search/", import.meta.url);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(new URL(file, dir), "utf8");
      assert.doesNotMatch(text, /from "\.\.\/indexes\/tool-index\.js"|from "\.\.\/indexes\/tool-view\.js"/, file);
    }
  });
});
