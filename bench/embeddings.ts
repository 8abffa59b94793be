/**
 * Embedding benchmark: how fast the default provider embeds a catalog (one thread against worker threads), how long
 * a query embedding takes, and what `semantic` and `hybrid` cost at catalog scale apart from the query's embedding.
 *
 *   node --import tsx bench/embeddings.ts [--json] [--catalog FILE] [--queries-file FILE] [--texts N] [--queries N]
 *
 * - throughput: `--texts` catalog texts (default 256, spread over the catalog) embedded with no cache, in this thread and with workers;
 * - query embedding: `--queries` queries (default 40) embedded one at a time, p50/p99;
 * - search without the query's embedding, at the catalog's full size (default ../shared/data/scale, 12.2k tools):
 *   vectors come from a deterministic stand-in provider (pseudo-random unit vectors keyed by text), so that timing
 *   does not wait on embedding 12k texts; ranking work is the same whatever the vectors hold;
 * - a second start: the same index rebuilt from the SQLite cache (no provider call), time until ready.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadCatalogFile } from "../src/catalog/load.js";
import { table } from "../src/cli/output.js";
import { EmbeddingCache } from "../src/embeddings/cache.js";
import { Embedder } from "../src/embeddings/embedder.js";
import type { EmbeddingProvider } from "../src/embeddings/provider.js";
import { toolEmbeddingText } from "../src/embeddings/texts.js";
import { UseLiteProvider } from "../src/embeddings/use-lite.js";
import { splitSentences } from "../src/text/sentences.js";
import { percentile } from "../src/eval/metrics.js";
import { loadQueries } from "../src/eval/queries.js";
import { ToolIndex } from "../src/indexes/tool-index.js";

const { values } = parseArgs({
  options: {
    catalog: { type: "string", default: "../shared/data/scale/catalog.json" },
    "queries-file": { type: "string", default: "../shared/data/scale/queries.jsonl" },
    texts: { type: "string", default: "256" },
    queries: { type: "string", default: "40" },
    json: { type: "boolean", default: false },
  },
});

/** Pseudo-random unit-free vectors derived from the text: stands in for a model where only timing matters. */
class StandInProvider implements EmbeddingProvider {
  readonly id = "bench-stand-in";
  readonly dimensions = 512;
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const out = new Float32Array(this.dimensions);
      let block = createHash("sha256").update(text).digest();
      for (let i = 0; i < this.dimensions; i++) {
        if (i % 32 === 0 && i > 0) block = createHash("sha256").update(block).digest();
        out[i] = block[i % 32] / 255 - 0.5;
      }
      return out;
    });
  }
}

const ms = (start: number) => performance.now() - start;
const tools = loadCatalogFile(values.catalog!);
const sampleTexts = tools.filter((_, i) => i % Math.max(1, Math.floor(tools.length / Number(values.texts))) === 0)
  .slice(0, Number(values.texts)).map((t) => toolEmbeddingText(t));
const queries = loadQueries(values["queries-file"]!, () => true);
const step = Math.max(1, Math.floor(queries.length / Number(values.queries)));
const queryTexts = queries.filter((_, i) => i % step === 0).slice(0, Number(values.queries)).map((q) => q.query);

// 1. Throughput of the default provider, no cache.
const throughput: Record<string, number> = {};
for (const threads of [0, 2]) {
  const provider = new UseLiteProvider({ threads, bulkThreshold: 1 });
  await provider.warmUp(); // the model load (once per thread, before the first text) is not throughput
  const start = performance.now();
  await provider.embed(sampleTexts);
  throughput[threads === 0 ? "1 thread (main)" : `${threads} worker threads`] = sampleTexts.length / (ms(start) / 1000);
  await provider.close();
}

// 2. Query embedding latency, one query (its sentences in one call) at a time, in this thread.
const use = new UseLiteProvider({ threads: 0 });
await use.embed(["warm up"]);
const queryMs: number[] = [];
for (const q of queryTexts) {
  const start = performance.now();
  await use.embed(splitSentences(q)); // a query is embedded as its sentences, in one call
  queryMs.push(ms(start));
}

// 3. Search apart from the query's embedding, at full catalog size; 4. a second start from the cache.
const dir = mkdtempSync(join(tmpdir(), "toolsearch-bench-emb-"));
const cachePath = join(dir, "cache.sqlite");
const stand = new StandInProvider();
let start = performance.now();
const first = new ToolIndex(tools, { embedder: new Embedder(stand, { cache: new EmbeddingCache({ path: cachePath }) }) });
await first.prepareEmbeddings();
const firstStartMs = ms(start);
await first.embedder.close();

start = performance.now();
const embedder = new Embedder(stand, { cache: new EmbeddingCache({ path: cachePath }) });
const index = new ToolIndex(tools, { embedder });
const indexBuildMs = ms(start);
const loadStart = performance.now();
await index.prepareEmbeddings();
const vectorsFromCacheMs = ms(loadStart);
const secondStartMs = ms(start);
const providerCallsOnRestart = embedder.providerCalls;
// Each query's sentence vectors are made now and answered from memory afterwards: the timed searches exclude them.
for (const q of queryTexts) await embedder.embedQueries(splitSentences(q));

const searchMs: Record<string, number[]> = { "toolsearch-bm25": [], "toolsearch-semantic": [], "toolsearch-hybrid": [] };
/** CPU time of the same searches: on a shared machine wall time mostly measures waiting for a core. */
const searchCpuMs: Record<string, number[]> = { "toolsearch-bm25": [], "toolsearch-semantic": [], "toolsearch-hybrid": [] };
for (let round = 0; round < 2; round++) {
  for (const q of queryTexts) {
    for (const engine of ["bm25", "semantic", "hybrid"] as const) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      await index.search(q, { engine, limit: 10 });
      const used = process.cpuUsage(cpu);
      if (round === 1) searchMs[`toolsearch-${engine}`].push(ms(t));
      if (round === 1) searchCpuMs[`toolsearch-${engine}`].push((used.user + used.system) / 1000);
    }
  }
}
await embedder.close();
rmSync(dir, { recursive: true, force: true });

const qP50 = percentile(queryMs, 0.5);
const qP99 = percentile(queryMs, 0.99);
const rows = Object.entries(searchMs).map(([name, xs]) => ({
  system: name,
  search_p50_ms: percentile(xs, 0.5),
  search_p99_ms: percentile(xs, 0.99),
  search_cpu_p50_ms: percentile(searchCpuMs[name], 0.5),
  query_embedding_p50_ms: name === "toolsearch-bm25" ? 0 : qP50,
  query_embedding_p99_ms: name === "toolsearch-bm25" ? 0 : qP99,
}));
const report = {
  catalog: values.catalog,
  tools: tools.length,
  queries: queryTexts.length,
  throughput_texts_per_s: throughput,
  sample_texts: sampleTexts.length,
  first_start_ms_stand_in: firstStartMs,
  second_start_from_cache_ms: secondStartMs,
  of_which_bm25_index_build_ms: indexBuildMs,
  of_which_vectors_from_cache_ms: vectorsFromCacheMs,
  provider_calls_on_second_start: providerCallsOnRestart,
  rows,
};
if (values.json) {
  console.log(JSON.stringify(report));
} else {
  const f = (x: number) => x.toFixed(2);
  console.log(`${tools.length} tools, ${queryTexts.length} queries`);
  for (const [k, v] of Object.entries(throughput)) console.log(`USE-lite throughput, ${k}: ${v.toFixed(1)} texts/s (${sampleTexts.length} texts)`);
  console.log(`query embedding (USE-lite, this thread): p50 ${f(qP50)} ms, p99 ${f(qP99)} ms`);
  console.log(`second start from the cache: ${f(secondStartMs)} ms = BM25/regex index build ${f(indexBuildMs)} ms + ${tools.length} vectors from SQLite ${f(vectorsFromCacheMs)} ms (provider calls: ${providerCallsOnRestart})`);
  console.log(table(["system", "search p50 ms", "search p99 ms", "search CPU p50 ms", "+ query embedding p50 ms", "p99 ms"],
    rows.map((r) => [r.system, f(r.search_p50_ms), f(r.search_p99_ms), f(r.search_cpu_p50_ms), f(r.query_embedding_p50_ms), f(r.query_embedding_p99_ms)])).join("\n"));
}
