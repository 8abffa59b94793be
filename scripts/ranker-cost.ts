/**
 * Same-run p50 of `hybrid` search with the shipped ranker, with another model (e.g. an earlier model.json) and with
 * the ranker off, three alternating rounds; query vectors come from the embedding cache (run train-ranker first).
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
  options: { before: { type: "string" }, queries: { type: "string", default: "120" }, cache: { type: "string", default: ".bench-out/embeddings.sqlite" } },
});
const [catalog, queriesFile] = positionals;
if (!catalog || !queriesFile) throw new Error("usage: ranker-cost.ts CATALOG QUERIES [--before MODEL.json] [--queries N]");
const embedder = new Embedder(new UseLiteProvider(), { cache: new EmbeddingCache({ path: args.cache! }), persistQueries: true, queryCacheSize: 100_000 });
const shipped = await ToolIndex.fromFile(catalog, { embedder });
await shipped.prepareEmbeddings();
const before = args.before ? await ToolIndex.fromFile(catalog, { embedder, ranker: loadModel(args.before) }) : undefined;
await before?.prepareEmbeddings();
const queries = loadQueries(queriesFile, (id) => shipped.get(id) !== undefined).slice(0, Number(args.queries)).map((q) => q.query);
const runs: [string, (q: string) => Promise<unknown>][] = [
  ["shipped", (q) => shipped.search(q, { engine: "hybrid", limit: 10 })],
  ...(before ? [["before", (q: string) => before.search(q, { engine: "hybrid", limit: 10 })] as [string, (q: string) => Promise<unknown>]] : []),
  ["noranker", (q) => shipped.search(q, { engine: "hybrid", limit: 10, ranker: false })],
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
console.log(`${catalog}, ${queries.length} queries x 3 rounds, p50 ms: ${[...times].map(([name, xs]) => `${name} ${p50(xs).toFixed(2)}`).join(", ")}`);
