/**
 * Chooses the hybrid fusion by measurement: nDCG@10 of bm25, semantic, reciprocal-rank fusion and weighted fusion at
 * several lexical weights, on every data set given. Embeddings come from (and go to) the cache, queries included.
 *
 *   node --import tsx scripts/tune-fusion.ts [--json]
 *
 * Sets: ../shared/data/{stabletoolbench,metatool,stackfaq}; MetaTool is sampled (every 10th query, 2,062 of 20,614)
 * since a query embedding costs 30–70 ms here.
 */
import { existsSync } from "node:fs";
import { Embedder } from "../src/embeddings/embedder.js";
import { UseLiteProvider } from "../src/embeddings/use-lite.js";
import type { FusionOptions } from "../src/engines/fusion.js";
import { loadQueries, type LabelledQuery } from "../src/eval/queries.js";
import { evaluate, type Searcher } from "../src/eval/runner.js";
import { DocumentIndex } from "../src/indexes/document-index.js";
import { ToolIndex } from "../src/indexes/tool-index.js";

const DATA = new URL("../../shared/data/", import.meta.url).pathname;
const embedder = new Embedder(new UseLiteProvider(), { persistQueries: true, queryCacheSize: 100_000 });

const METHODS: Record<string, FusionOptions> = {
  "rrf-60": { method: "rrf", rrfK: 60 },
  ...Object.fromEntries(weights("TUNE_ADAPTIVE", "10,15,20").map((k) => [`adaptive-${k}`, { method: "adaptive", lexicalScale: k } as FusionOptions])),
  ...Object.fromEntries(weights("TUNE_WEIGHTED", "0.2,0.3,0.4,0.5,0.6,0.7,0.8").map((w) => [`weighted-${w}`, { method: "weighted", lexicalWeight: w } as FusionOptions])),
  ...Object.fromEntries(weights("TUNE_ZSCORE", "0.3,0.4,0.5,0.6,0.7").map((w) => [`zscore-${w}`, { method: "zscore", lexicalWeight: w } as FusionOptions])),
};

/** Lexical weights to try, from an environment variable (comma-separated) or the defaults. */
function weights(variable: string, defaults: string): number[] {
  return (process.env[variable] ?? defaults).split(",").filter(Boolean).map(Number);
}

interface SearchIndex {
  search(query: string, options: { engine: "bm25" | "semantic" | "hybrid"; limit: number }): Promise<Array<{ name?: string; id?: string }>>;
}

async function searchers(build: (fusion: FusionOptions) => Promise<SearchIndex>): Promise<Record<string, Searcher>> {
  const out: Record<string, Searcher> = {};
  const ids = (hits: Array<{ name?: string; id?: string }>) => hits.map((h) => (h.name ?? h.id)!);
  const base = await build({});
  out.bm25 = async (q) => ids(await base.search(q, { engine: "bm25", limit: 10 }));
  out.semantic = async (q) => ids(await base.search(q, { engine: "semantic", limit: 10 }));
  for (const [name, fusion] of Object.entries(METHODS)) {
    const index = await build(fusion);
    out[`hybrid ${name}`] = async (q) => ids(await index.search(q, { engine: "hybrid", limit: 10 }));
  }
  return out;
}

function sample(queries: LabelledQuery[], every: number): LabelledQuery[] {
  return queries.filter((_, i) => i % every === 0);
}

const sets: Array<{ name: string; run: () => Promise<Record<string, number>> }> = [
  { name: "stabletoolbench", run: () => tools("stabletoolbench", 1) },
  { name: "metatool", run: () => tools("metatool", 10) },
  { name: "stackfaq", run: docs },
].filter((s) => !process.env.TUNE_SETS || process.env.TUNE_SETS.split(",").includes(s.name));

async function tools(set: string, every: number): Promise<Record<string, number>> {
  const catalog = `${DATA}${set}/catalog.json`;
  const build = async (fusion: FusionOptions) => {
    const index = await ToolIndex.fromFile(catalog, { embedder, fusion });
    await index.prepareEmbeddings();
    return index;
  };
  const probe = await build({});
  const queries = sample(loadQueries(`${DATA}${set}/queries.jsonl`, (id) => probe.get(id) !== undefined), every);
  return ndcg(queries, await searchers(build));
}

async function docs(): Promise<Record<string, number>> {
  const file = `${DATA}stackfaq/docs.jsonl`;
  const build = async (fusion: FusionOptions) => {
    const index = await DocumentIndex.fromFile(file, { embedder, fusion });
    await index.prepareEmbeddings();
    return index;
  };
  const probe = await build({});
  const queries = loadQueries(`${DATA}stackfaq/queries.jsonl`, (id) => probe.get(id) !== undefined);
  return ndcg(queries, await searchers(build));
}

async function ndcg(queries: LabelledQuery[], engines: Record<string, Searcher>): Promise<Record<string, number>> {
  const report = await evaluate(queries, engines);
  return Object.fromEntries(Object.entries(report.engines).map(([name, r]) => [name, Number(r["ndcg@10"].toFixed(4))]));
}

const results: Record<string, Record<string, number>> = {};
for (const set of sets) {
  if (!existsSync(`${DATA}${set.name}`)) continue;
  results[set.name] = await set.run();
  if (!process.argv.includes("--json")) console.log(set.name, results[set.name]);
}
if (process.argv.includes("--json")) console.log(JSON.stringify(results));
await embedder.close();
