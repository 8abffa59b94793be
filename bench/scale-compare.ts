/**
 * Two source trees of toolsearch side by side in one process, on the scale catalogs of `npm run bench:scale`: are
 * their bm25 answers identical (names and scores; limits 1, 5, 10 and 50, with and without typo matching, for every
 * scale query), and how fast is each, timed query by query in turn so both see the same machine load.
 *
 *   git archive main | tar -x -C /tmp/main && ln -s "$PWD/node_modules" /tmp/main/node_modules
 *   node --import tsx bench/scale-compare.ts /tmp/main . [--data ../shared/data] [--large FILE] [--passes 5]
 */
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { LARGE_CATALOG_PATH } from "../scripts/make-large-catalog.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    data: { type: "string", default: "../shared/data" },
    large: { type: "string", default: LARGE_CATALOG_PATH },
    passes: { type: "string", default: "5" },
  },
});
if (positionals.length !== 2) throw new Error("usage: bench/scale-compare.ts TREE_A TREE_B");

interface Hit { name: string; score: number }
interface Index { searchSync(query: string, options: { limit: number; fuzzy?: boolean }): Hit[] }
interface Tree { root: string; load: (path: string) => unknown[]; make: (tools: unknown[]) => Index }

async function tree(root: string): Promise<Tree> {
  const dir = resolve(root);
  const { loadCatalogFile } = await import(join(dir, "src/catalog/load.ts"));
  const { ToolIndex } = await import(join(dir, "src/indexes/tool-index.ts"));
  return { root, load: loadCatalogFile, make: (tools) => new ToolIndex(tools) };
}

/** A hash of every answer, so that two trees can be compared without keeping the answers. */
function answers(index: Index, queries: string[]): string {
  const hash = createHash("sha256");
  for (const limit of [1, 5, 10, 50]) {
    for (const query of queries) {
      for (const fuzzy of [true, false]) hash.update(`${index.searchSync(query, { limit, fuzzy }).map((h) => `${h.name}:${h.score}`).join(" ")}\n`);
    }
  }
  return hash.digest("hex");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

const trees = await Promise.all(positionals.map(tree));
const { loadQueries } = await import(resolve(positionals[1], "src/eval/queries.ts"));
const smallPath = join(values.data!, "scale", "catalog.json");
const known = new Set(trees[1].load(smallPath).map((t) => (t as { name: string }).name));
const queries: string[] = loadQueries(join(values.data!, "scale", "queries.jsonl"), (label: string) => known.has(label)).map((q: { query: string }) => q.query);
for (const path of [smallPath, values.large!]) {
  const indexes = trees.map((t) => t.make(t.load(path)));
  const hashes = indexes.map((index) => answers(index, queries));
  const times = indexes.map(() => [] as number[]);
  for (let pass = 0; pass < Number(values.passes); pass++) {
    for (const query of queries) {
      indexes.forEach((index, k) => {
        const started = performance.now();
        index.searchSync(query, { limit: 10 });
        times[k].push(performance.now() - started);
      });
    }
  }
  console.log(`${path}: answers ${hashes[0] === hashes[1] ? "identical" : "DIFFERENT"}; bm25 p50 ms ${trees.map((t, k) => `${t.root} ${median(times[k]).toFixed(3)}`).join(", ")}`);
}
