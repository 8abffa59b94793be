/**
 * Where `bm25` and `bm25-plain` part on a labelled set: the tool relevant to the most queries, and both rankings'
 * nDCG@10 / recall@10 on the queries it answers and on the others, with how often each puts it in its top 10. A set
 * whose gap sits on one tool says more about that tool's text than about the scoring (docs/relevance.md, issue 36).
 *
 * Then, per query, which ranking is ahead in nDCG@10, and for the relevant tools that one has in its top 10 and the
 * other not: how many query words they match, in which fields, how many tools have those words (df), and how long the
 * tools' parameter descriptions are (issue 36, third round: what differs where plain BM25 wins).
 *
 *   node --import tsx scripts/lexical-split.ts CATALOG QUERIES
 */
import { loadCatalogFile } from "../src/catalog/load.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";
import { loadQueries } from "../src/eval/queries.js";
import type { Bm25fIndex } from "../src/engines/bm25f.js";
import { FieldPacking } from "../src/engines/bm25f-postings.js";
import { TOOL_FIELDS } from "../src/indexes/tool-fields.js";
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
const top10 = new Map<string, Record<string, string[]>>();
for (const q of queries) {
  const row: Record<string, string[]> = {};
  for (const [name, index] of Object.entries(engines)) row[name] = (await index.search(q.query, { limit: 10, engine: "bm25" })).map((h) => h.name);
  top10.set(q.id, row);
}
for (const [label, keep] of [[`with ${top}`, true], ["without it", false]] as const) {
  const part = queries.filter((q) => q.relevant.includes(top) === keep);
  const cells: string[] = [];
  for (const [name, index] of Object.entries(engines)) {
    let ndcg = 0, recall = 0, found = 0;
    for (const q of part) {
      const ids = top10.get(q.id)![name];
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

// Where each ranking is ahead: the relevant tools it alone has in its top 10, and what their matches are made of.
const { bm25: postings } = engines.bm25 as unknown as { bm25: Bm25fIndex };
const { store, items } = postings;
const F = TOOL_FIELDS.length;
const packing = new FieldPacking(F);
const slotOf = new Map(items.ids.map((id, slot) => [id, slot]));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
for (const [winner, loser] of [["bm25-plain", "bm25"], ["bm25", "bm25-plain"]] as const) {
  let n = 0, words = 0, tools = 0, matches = 0, paramLength = 0;
  const dfs: number[] = [], fields = new Array<number>(F).fill(0), byTool = new Map<string, number>();
  for (const q of queries) {
    const row = top10.get(q.id)!, relevant = new Set(q.relevant);
    if (ndcgAt(10, row[winner], relevant) <= ndcgAt(10, row[loser], relevant)) continue;
    n++;
    const terms = [...new Set(engines.bm25.analyzer.analyze(q.query))];
    words += terms.length;
    for (const id of q.relevant) {
      if (!row[winner].includes(id) || row[loser].includes(id)) continue;
      const slot = slotOf.get(id)!;
      tools++;
      byTool.set(id, (byTool.get(id) ?? 0) + 1);
      paramLength += items.length(slot, TOOL_FIELDS.indexOf("paramDescriptions"));
      for (const term of terms) {
        if (!postings.hasTerm(term)) continue;
        const t = postings.termId(term);
        for (let i = store.start[t]; i < store.start[t] + store.count[t]; i++) {
          if (store.slots[i] !== slot) continue;
          matches++;
          dfs.push(store.count[t]);
          for (let f = 0; f < F; f++) if (packing.get(store.tfs[i], f) > 0) fields[f]++;
        }
      }
    }
  }
  const share = (x: number, of: number) => `${((100 * x) / Math.max(1, of)).toFixed(0)}%`;
  const most = [...byTool].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([id, k]) => `${id} ${k}`).join(", ");
  console.log(`${winner} ahead on ${n} queries (${(words / Math.max(1, n)).toFixed(1)} distinct words each); ${tools} relevant tools in its top 10 only, each matching ${(matches / Math.max(1, tools)).toFixed(1)} query words, median df ${median(dfs)} (df <= 2: ${share(dfs.filter((d) => d <= 2).length, dfs.length)}), in ${TOOL_FIELDS.map((f, i) => `${f} ${share(fields[i], matches)}`).join(", ")}; parameter descriptions ${(paramLength / Math.max(1, tools)).toFixed(1)} terms on average; most: ${most}`);
}
