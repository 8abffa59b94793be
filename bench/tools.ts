/**
 * Tool-search benchmark (SPEC §8), the first suite of `npm run bench`: build time, heap, p50/p99 latency and
 * nDCG@10 for toolsearch's engines and their peers, side by side in one run on the same queries.
 *
 *   npm run bench:tools                 # table
 *   npm run bench:tools -- --json       # one JSON object
 *   npm run bench:tools -- --queries all # every query (the slow peers take minutes)
 *
 * Options: --catalog FILE, --queries-file FILE, --queries N|all (default: a spread sample of 120), --systems a,b.
 */
import { parseArgs } from "node:util";
import { readRecords } from "../src/catalog/read-records.js";
import { loadQueries, type LabelledQuery } from "../src/eval/queries.js";
import { patternFromQuery } from "../src/eval/regex-pattern.js";
import { evaluateSearcher } from "../src/eval/runner.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { LEXICAL_FEATURES } from "../src/ranking/features.js";
import { type RankerModel, shippedModel } from "../src/ranking/model.js";
import { type BenchSystem, flatten, miniSearch, orama } from "./peers.js";
import { table } from "../src/cli/output.js";

const { values } = parseArgs({
  options: {
    catalog: { type: "string", default: "../shared/data/scale/catalog.json" },
    "queries-file": { type: "string", default: "../shared/data/scale/queries.jsonl" },
    queries: { type: "string", default: "120" },
    systems: { type: "string" },
    json: { type: "boolean", default: false },
  },
});

/**
 * `ranker: false` runs without the learned ranker (src/ranking/), so its cost shows beside the default; `model` gives
 * the index a ranker model of its own.
 */
function toolsearch(name: string, engine: "bm25" | "regex", fuzzy = true, ranker?: false, model?: RankerModel): BenchSystem {
  let index: ToolIndex;
  return {
    name,
    async build(_flat, raw) {
      index = await ToolIndex.fromTools(raw, model ? { ranker: model } : {});
    },
    search: (query) => index.searchSync(engine === "regex" ? patternFromQuery(query) : query, { engine, limit: 10, fuzzy, ranker }).map((h) => h.name),
  };
}

const ALL: BenchSystem[] = [
  toolsearch("toolsearch-bm25", "bm25"),
  toolsearch("toolsearch-bm25-noranker", "bm25", true, false),
  // No lexical model ships (docs/relevance.md), so the cost of one is measured with the shipped hybrid model's
  // weights of the lexical features: the weights change the order, not the work.
  toolsearch("toolsearch-bm25-ranker", "bm25", true, undefined, lexicalCostModel()),
  toolsearch("toolsearch-bm25-exact", "bm25", false),
  toolsearch("toolsearch-regex", "regex"),
  miniSearch("exact"),
  miniSearch("fuzzy"),
  orama("exact"),
  orama("typo"),
];

function lexicalCostModel(): RankerModel {
  const hybrid = shippedModel().hybrid;
  const features = LEXICAL_FEATURES.filter((f) => hybrid?.features.includes(f));
  // A tree model's weights cannot be borrowed this way; equal weights cost the same work.
  const weight = (f: (typeof features)[number]) => (hybrid?.kind === "trees" ? 1 : hybrid!.weights[hybrid!.features.indexOf(f)]);
  return { version: 1, lexical: { features, weights: features.map(weight) } };
}

/** Every k-th query, so a sample spreads over all query groups of the file. */
function sample(queries: LabelledQuery[], wanted: string): LabelledQuery[] {
  if (wanted === "all") return queries;
  const n = Math.max(1, Number(wanted));
  const step = Math.max(1, Math.floor(queries.length / n));
  return queries.filter((_, i) => i % step === 0).slice(0, n);
}

const gc = (globalThis as { gc?: () => void }).gc;
function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

const raw = readRecords(values.catalog!, ["tools"]);
const flat = raw.map((r) => flatten(r as Record<string, unknown>));
const names = new Set(flat.map((t) => t.id));
const queries = sample(loadQueries(values["queries-file"]!, (l) => names.has(l)), values.queries!);
const chosen = values.systems ? ALL.filter((s) => values.systems!.split(",").includes(s.name)) : ALL;

const systems: Record<string, { build_ms: number; build_cpu_ms: number; heap_mb: number; p50_ms: number; p99_ms: number; "ndcg@10": number }> = {};
for (const system of chosen) {
  if (!values.json) process.stderr.write(`${system.name}: building…\n`);
  const before = heapMb();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await system.build(flat, raw);
  const build_ms = performance.now() - started;
  // CPU time of the build as well: on a shared machine, wall time also counts the other processes' turns.
  const cpu = process.cpuUsage(cpuBefore);
  const build_cpu_ms = (cpu.user + cpu.system) / 1000;
  const heap_mb = heapMb() - before;
  if (!values.json) process.stderr.write(`${system.name}: ${queries.length} queries…\n`);
  const report = await evaluateSearcher(queries, (q) => system.search(q));
  systems[system.name] = { build_ms, build_cpu_ms, heap_mb, p50_ms: report.p50_ms, p99_ms: report.p99_ms, "ndcg@10": report["ndcg@10"] };
}

const result = { catalog: values.catalog, tools: raw.length, queries: queries.length, systems };
if (values.json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  const fastestPeer = Math.min(...Object.entries(systems).filter(([n]) => !n.startsWith("toolsearch")).map(([, s]) => s.p50_ms));
  console.log(`${result.catalog}: ${result.tools} tools, ${result.queries} queries${gc ? "" : " (run with --expose-gc for exact heap figures)"}`);
  const rows = Object.entries(systems).map(([n, s]) => [
    n, s.build_ms.toFixed(0), s.build_cpu_ms.toFixed(0), s.heap_mb.toFixed(1), s.p50_ms.toFixed(3), s.p99_ms.toFixed(3), s["ndcg@10"].toFixed(4),
    Number.isFinite(fastestPeer) ? (s.p50_ms / fastestPeer).toFixed(3) : "-",
  ]);
  console.log(table(["system", "build ms", "build CPU ms", "heap MB", "p50 ms", "p99 ms", "nDCG@10", "p50 / fastest peer"], rows).join("\n"));
}
