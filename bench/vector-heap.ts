/**
 * What embedding vectors add to a `ToolIndex`, counted (`memoryBytes()`) against measured (V8 heap used plus
 * external memory, which holds the vectors' WebAssembly memory), in one process: `--indexes` copies of one catalog
 * are built and searched once with BM25, then embedded (`prepareEmbeddings`, every vector from the embedding cache
 * filled by a first warm-up copy, so the model's own memory is in both measurements).
 *
 *   node --expose-gc --import tsx bench/vector-heap.ts [--catalog ../shared/data/metatool/catalog.json] [--indexes 10]
 */
import { parseArgs } from "node:util";
import { ToolIndex } from "../src/indexes/tool-index.js";

const { values } = parseArgs({
  options: {
    catalog: { type: "string", default: "../shared/data/metatool/catalog.json" },
    indexes: { type: "string", default: "10" },
  },
});
if (typeof gc !== "function") throw new Error("run with node --expose-gc");
const collect = gc;

const warm = await ToolIndex.fromFile(values.catalog!);
await warm.prepareEmbeddings();
const embedder = warm.embedder;
const indexes = await Promise.all(Array.from({ length: Number(values.indexes) }, () => ToolIndex.fromFile(values.catalog!, { embedder })));
for (const index of indexes) await index.search("warm up", { limit: 1 });

function measured(): number {
  collect();
  collect();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}
const counted = () => indexes.reduce((sum, index) => sum + index.memoryBytes(), 0);

const [heapBefore, countedBefore] = [measured(), counted()];
for (const index of indexes) await index.prepareEmbeddings();
const [heapAfter, countedAfter] = [measured(), counted()];
console.log(
  JSON.stringify({
    tools: warm.size,
    indexes: indexes.length,
    countedPerIndexBefore: Math.round(countedBefore / indexes.length),
    countedPerIndexAfter: Math.round(countedAfter / indexes.length),
    countedPerTool: Math.round((countedAfter - countedBefore) / indexes.length / warm.size),
    countedOverMeasured: +((countedAfter - countedBefore) / (heapAfter - heapBefore)).toFixed(2),
  }),
);
