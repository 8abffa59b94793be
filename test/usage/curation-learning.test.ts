import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolsearchError } from "../../src/errors.js";
import { normalizeTools } from "../../src/catalog/load.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { createAnalyzer } from "../../src/text/analyzer.js";
import { checkRules, checkSynonyms } from "../../src/usage/curation.js";
import { LearnedSignal } from "../../src/usage/learned.js";
import { replayHistory } from "../../src/usage/replay.js";

const tools = normalizeTools([
  { name: "request_time_off", description: "Request vacation days or leave from work." },
  { name: "process_refund", description: "Send money back to a customer for a returned order." },
  { name: "cancel_order", description: "Cancel an order before it ships; refund is issued automatically." },
  { name: "deploy_cluster", description: "Deploy a kubernetes cluster." },
  { name: "get_weather", description: "Current weather for a city." },
  { name: "get_forecast", description: "Weather forecast for the next days in a city." },
  { name: "new_tool", description: "Weather radar images for a city." },
].map((t) => ({ ...t, input_schema: { type: "object", properties: {} } })));
const known = tools.filter((t) => t.name !== "new_tool");

const names = (hits: { name: string }[]) => hits.map((h) => h.name);

describe("synonyms", () => {
  it("a group makes a query word match its synonyms, and explain names the expansion", async () => {
    const index = new ToolIndex(tools);
    assert.deepEqual(index.searchSync("pto"), []);
    index.setSynonyms({ groups: [["pto", "vacation", "leave"]], oneWay: { k8s: ["kubernetes"] } });
    assert.equal(index.searchSync("pto")[0].name, "request_time_off");
    assert.equal(index.searchSync("k8s")[0].name, "deploy_cluster");
    // one-way: kubernetes does not expand to k8s (nothing to check in texts), and k8s is not a group member
    const why = await index.explain("pto", "request_time_off");
    assert.equal(why.rank, 1);
    assert.deepEqual(why.synonyms, [{ term: "pto", added: ["vacat", "leav"] }]);
    assert.ok(why.terms!.some((t) => t.term === "vacat"));
  });

  it("refuses broken synonyms with curation_invalid naming the entry, and keeps the old ones", () => {
    const index = new ToolIndex(tools, { synonyms: { groups: [["pto", "vacation"]] } });
    assert.throws(() => index.setSynonyms({ groups: [["pto"]] }), (e: ToolsearchError) => e.code === "curation_invalid" && /groups\[0\]/.test(e.message));
    assert.throws(() => checkSynonyms({ oneWay: { k8s: "kubernetes" } }, "s.json"), (e: ToolsearchError) => e.code === "curation_invalid" && /s\.json/.test(e.message));
    assert.equal(index.searchSync("pto")[0].name, "request_time_off");
  });
});

describe("pinned rules", () => {
  it("puts the pinned tools first for matching queries only, and explain names the rule", async () => {
    const index = new ToolIndex(tools, { rules: { rules: [{ query: "refund*", pin: ["process_refund", "no_such_tool"] }] } });
    assert.equal(index.searchSync("Refund  for cancel order")[0].name, "process_refund");
    assert.notEqual(index.searchSync("cancel order refund")[0].name, "process_refund", "the pattern is anchored at the start");
    const hits = index.searchSync("refund an order", { limit: 3 });
    assert.equal(hits[0].name, "process_refund");
    assert.ok(hits[0].score >= hits[1].score);
    assert.ok(!names(hits).includes("no_such_tool"), "a pin naming a tool the index lacks is skipped");
    const why = await index.explain("refund an order", "process_refund");
    assert.deepEqual(why.pinned, { rule: "refund*", position: 1 });
    assert.equal(why.rank, 1);
  });

  it("refuses a rule without pin", () => {
    assert.throws(() => checkRules({ rules: [{ query: "x" }] }, "rules"), (e: ToolsearchError) => e.code === "curation_invalid" && /rules\[0\]/.test(e.message));
  });
});

describe("learned signal", () => {
  const analyzer = createAnalyzer();
  const history = (n: number, query: string, tool: string) => Array.from({ length: n }, (_, i) => ({ id: `${tool}-${i}`, query, relevant: [tool] }));

  it("is off until there is enough evidence, then lifts the tool agents called for those words", () => {
    const index = new ToolIndex(known);
    const before = names(index.searchSync("is it going to rain tomorrow in the city", { limit: 3 }));
    index.setLearned(replayHistory(history(10, "rain tomorrow", "get_forecast"), analyzer));
    assert.deepEqual(names(index.searchSync("is it going to rain tomorrow in the city", { limit: 3 })), before, "10 pairs are below minEvidence");
    const varied = [...history(40, "rain tomorrow", "get_forecast"), ...history(20, "temperature now", "get_weather"), ...history(20, "cancel order", "cancel_order")];
    index.setLearned(replayHistory(varied, analyzer));
    assert.equal(index.searchSync("is it going to rain tomorrow in the city")[0].name, "get_forecast");
    assert.deepEqual(names(index.searchSync("is it going to rain tomorrow in the city", { limit: 3, learned: false })), before, "learned: false switches it off");
  });

  it("brings in a tool history knows for words its text lacks, and explain shows the learned part", async () => {
    const index = new ToolIndex(tools, { learned: replayHistory(history(40, "umbrella", "get_forecast"), analyzer) });
    assert.equal(index.searchSync("umbrella")[0].name, "get_forecast");
    const why = await index.explain("umbrella", "get_forecast");
    assert.equal(why.rank, 1);
    assert.ok(why.learned && why.learned.contribution > 0);
    assert.equal(why.learned.terms[0].term, "umbrella");
    assert.ok(Math.abs(why.score - why.learned.contribution - (why.terms ?? []).reduce((s, t) => s + t.contribution, 0)) < 1e-9);
    const off = await index.explain("umbrella", "get_forecast", { learned: false });
    assert.equal(off.learned, undefined);
    assert.equal(off.rank, null);
  });

  it("does not bury a tool never called: it gets the part of the query history leaves open", () => {
    // get_weather was called a lot for "weather city"; new_tool never was. Its text matches "radar" better.
    const learned = replayHistory(history(60, "weather city", "get_weather"), analyzer);
    const index = new ToolIndex(tools, { learned });
    assert.equal(index.searchSync("weather radar city")[0].name, "new_tool");
    assert.equal(learned.confidence("new_tool"), 0);
    assert.ok(learned.confidence("get_weather") > 0.8);
  });

  it("does not bury a tool never called under tools that a query's familiar words led to", () => {
    // Every word of the query is familiar, but history split it across several tools: it leaves the choice open.
    const learned = replayHistory([...history(20, "weather city", "get_weather"), ...history(20, "weather city", "get_forecast"), ...history(20, "images", "cancel_order")], analyzer);
    const index = new ToolIndex(tools, { learned });
    const query = "weather images city";
    assert.equal(index.searchSync(query, { learned: false })[0].name, "new_tool");
    assert.equal(index.searchSync(query)[0].name, "new_tool");
  });

  it("a popular tool does not win a query whose specific words led elsewhere", () => {
    const learned = replayHistory([...history(200, "weather city now", "get_weather"), ...history(40, "forecast days", "get_forecast")], analyzer);
    const index = new ToolIndex(tools, { learned });
    assert.equal(index.searchSync("forecast for next days")[0].name, "get_forecast");
  });

  it("decays: old evidence counts less than new", () => {
    const signal = new LearnedSignal(analyzer, { halfLifeDays: 1 });
    const day = 86_400_000;
    const now = 10 * day;
    for (let i = 0; i < 20; i++) signal.add({ query: "rain", tool: "get_weather", at: 0 });
    for (let i = 0; i < 20; i++) signal.add({ query: "rain", tool: "get_forecast", at: now });
    const scores = signal.scores(["rain"], now);
    assert.ok(scores.get("get_forecast")! > 100 * scores.get("get_weather")!);
    assert.equal(signal.evidence, 40);
  });
});

describe("curation in catalog files", () => {
  it("reads synonyms and rules beside tools, and refuses broken ones naming the file", async () => {
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { makeTempDir } = await import("../helpers/temp-dir.js");
    const dir = makeTempDir("toolsearch-curation-");
    const path = join(dir, "catalog.json");
    const definitions = tools.map((t) => t.definition);
    writeFileSync(path, JSON.stringify({ tools: definitions, synonyms: { groups: [["pto", "vacation"]] }, rules: [{ query: "refund*", pin: ["process_refund"] }] }));
    const index = await ToolIndex.fromFile(path);
    assert.equal(index.searchSync("pto")[0].name, "request_time_off");
    assert.equal(index.searchSync("refund an order")[0].name, "process_refund");
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ tools: definitions, rules: { rules: [{ query: "x" }] } }));
    await assert.rejects(ToolIndex.fromFile(bad), (e: ToolsearchError) => e.code === "curation_invalid" && e.message.includes("bad.json"));
  });
});
