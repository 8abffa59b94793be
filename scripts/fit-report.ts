/**
 * For each labelled set: the lexical ranking the catalog fit chooses, each candidate's pseudo-query nDCG@10, and each
 * candidate's real nDCG@10 and recall@10 on the set's queries, to see whether the fit picks the winner.
 *
 *   node --import tsx scripts/fit-report.ts NAME=CATALOG:QUERIES ...
 */
import { loadCatalogFile } from "../src/catalog/load.js";
import { LEXICAL_CANDIDATES } from "../src/indexes/catalog-fit.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { loadQueries } from "../src/eval/queries.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";

for (const arg of process.argv.slice(2)) {
  const [name, paths] = arg.split("=");
  const [catalog, queriesFile] = paths.split(":");
  const tools = loadCatalogFile(catalog);
  const started = performance.now();
  const index = new ToolIndex(tools);
  const chosen = index.lexicalRanking;
  const fitMs = performance.now() - started;
  const fit = (index as unknown as { fitted: { result: { scores: Record<string, number> } } }).fitted.result;
  const queries = loadQueries(queriesFile, (id) => index.get(id) !== undefined);
  const row: string[] = [];
  for (const c of LEXICAL_CANDIDATES) {
    (index as unknown as { bm25: { rescore(s: unknown): void } }).bm25.rescore(c.scoring);
    let ndcg = 0;
    let r10 = 0;
    for (const q of queries) {
      const ranked = (index as unknown as { bm25: { search(t: string[], k: number): { id: string }[] } }).bm25.search(index.analyzer.analyze(q.query), 10).map((h) => h.id);
      ndcg += ndcgAt(10, ranked, new Set(q.relevant));
      r10 += recallAt(10, ranked, new Set(q.relevant));
    }
    row.push(`${c.name} pseudo ${fit.scores[c.name].toFixed(3)} real ${(ndcg / queries.length).toFixed(4)}/${(r10 / queries.length).toFixed(4)}`);
  }
  console.log(`${name} (${tools.length} tools, fit+build ${fitMs.toFixed(0)} ms): chose ${chosen} | ${row.join(" | ")}`);
}
