/**
 * Same-run p50 of `hybrid` (or `--engine bm25`) search with the shipped ranker, with other models (e.g. an earlier
 * model.json, or a tree model; `--before` takes files separated by commas) and with the ranker off, three alternating
 * rounds; query vectors come from the embedding cache (run train-ranker first).
 *
 *   git show <commit>:src/ranking/model.json > /tmp/before.json
 *   node --import tsx scripts/ranker-cost.ts ../shared/data/stabletoolbench/catalog.json ../shared/data/stabletoolbench/queries.jsonl --before /tmp/before.json
 */
import { parseArgs } from "node:util";
import { EmbeddingCache } from "../src/embeddings/cache.js";
import { Embedder } from "../src/embeddings/embedder.js";
import { UseLiteProvider } from "../src/embeddings/use-lite.js";
import { loadQueries } from "../src/eval/queries.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { loadModel } from "../src/ranking/model.js";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { before: { type: "string" }, engine: { type: "string", default: "hybrid" }, queries: { type: "string", default: "120" }, cache: { type: "string", default: ".bench-out/embeddings.sqlite" } },
});
const [catalog, queriesFile] = positionals;
if (!catalog || !queriesFile) throw new Error("usage: ranker-cost.ts CATALOG QUERIES [--before MODEL.json] [--queries N]");
const embedder = new Embedder(new UseLiteProvider(), { cache: new EmbeddingCache({ path: args.cache! }), persistQueries: true, queryCacheSize: 100_000 });
const engine = args.engine as "hybrid" | "bm25";
if (engine !== "hybrid" && engine !== "bm25") throw new Error(`--engine ${engine}: use hybrid or bm25`);
const dense = engine === "hybrid";
const shipped = await ToolIndex.fromFile(catalog, dense ? { embedder } : {});
if (dense) await shipped.prepareEmbeddings();
const others: [string, ToolIndex][] = [];
for (const file of args.before?.split(",").filter(Boolean) ?? []) {
  const index = await ToolIndex.fromFile(catalog, dense ? { embedder, ranker: loadModel(file) } : { ranker: loadModel(file) });
  if (dense) await index.prepareEmbeddings();
  others.push([file.replace(/^.*\//, ""), index]);
}
const queries = loadQueries(queriesFile, (id) => shipped.get(id) !== undefined).slice(0, Number(args.queries)).map((q) => q.query);
const runs: [string, (q: string) => Promise<unknown>][] = [
  ["shipped", (q) => shipped.search(q, { engine, limit: 10 })],
  ...others.map(([name, index]): [string, (q: string) => Promise<unknown>] => [name, (q) => index.search(q, { engine, limit: 10 })]),
  ["noranker", (q) => shipped.search(q, { engine, limit: 10, ranker: false })],
];
for (const [, run] of runs) for (const q of queries) await run(q); // warm-up: vectors read from the cache
const times = new Map(runs.map(([name]) => [name, [] as number[]]));
for (let round = 0; round < 3; round++) {
  for (const [name, run] of runs) {
    for (const q of queries) {
      const started = process.hrtime.bigint();
      await run(q);
      times.get(name)!.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
}
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${catalog}, ${engine}, ${queries.length} queries x 3 rounds, p50 ms: ${[...times].map(([name, xs]) => `${name} ${p50(xs).toFixed(2)}`).join(", ")}`);
