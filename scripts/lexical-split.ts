/**
 * Where `bm25` and `bm25-plain` part on a labelled set: the tool relevant to the most queries, and both rankings'
 * nDCG@10 / recall@10 on the queries it answers and on the others, with how often each puts it in its top 10. A set
 * whose gap sits on one tool says more about that tool's text than about the scoring (docs/relevance.md, issue 36).
 *
 *   node --import tsx scripts/lexical-split.ts CATALOG QUERIES
 */
import { loadCatalogFile } from "../src/catalog/load.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";
import { loadQueries } from "../src/eval/queries.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { PLAIN_TOOL_BM25 } from "../src/indexes/tool-index-options.js";

const [catalog, queriesFile] = process.argv.slice(2);
if (!catalog || !queriesFile) throw new Error("usage: lexical-split.ts CATALOG QUERIES");
const tools = loadCatalogFile(catalog);
const engines = { bm25: new ToolIndex(tools), "bm25-plain": new ToolIndex(tools, { bm25: PLAIN_TOOL_BM25 }) };
const queries = loadQueries(queriesFile, (id) => engines.bm25.get(id) !== undefined);
const answers = new Map<string, number>();
for (const q of queries) for (const id of q.relevant) answers.set(id, (answers.get(id) ?? 0) + 1);
const [top, count] = [...answers].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
console.log(`${top} is relevant to ${count} of ${queries.length} queries`);
for (const [label, keep] of [[`with ${top}`, true], ["without it", false]] as const) {
  const part = queries.filter((q) => q.relevant.includes(top) === keep);
  const cells: string[] = [];
  for (const [name, index] of Object.entries(engines)) {
    let ndcg = 0, recall = 0, found = 0;
    for (const q of part) {
      const ids = (await index.search(q.query, { limit: 10, engine: "bm25" })).map((h) => h.name);
      const relevant = new Set(q.relevant);
      ndcg += ndcgAt(10, ids, relevant);
      recall += recallAt(10, ids, relevant);
      if (ids.includes(top)) found++;
    }
    const pct = (x: number) => ((100 * x) / part.length).toFixed(1);
    cells.push(`${name} ${pct(ndcg)} / ${pct(recall)} (it in the top 10: ${found})`);
  }
  console.log(`${label} (${part.length} queries): ${cells.join(" | ")}`);
}
