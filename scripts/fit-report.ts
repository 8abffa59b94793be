/**
 * For each labelled set: the lexical ranking the catalog fit chooses, each candidate's pseudo-query nDCG@10, and each
 * candidate's real nDCG@10 and recall@10 on the set's queries, to see whether the fit picks the winner.
 *
 *   node --import tsx scripts/fit-report.ts [--quoted] NAME=CATALOG:QUERIES ...
 *
 * `--quoted` prints instead, per set, plain BM25's mean paired gain over `fields` on the pseudo-queries in standard
 * errors (what the fit's rule reads; it switches above 2), with the fit's pseudo-queries as they are and with each
 * given one more word of its source's parameter descriptions (a content word, or a literal with a digit: task queries
 * quote parameter examples, issue 36), to see whether such pseudo-queries would tell the catalogs where plain wins.
 */
import { loadCatalogFile } from "../src/catalog/load.js";
import { LEXICAL_CANDIDATES, pseudoQueries, type PseudoQuery } from "../src/indexes/catalog-fit.js";
import { toolTexts } from "../src/indexes/tool-fields.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { loadQueries } from "../src/eval/queries.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";
import { seededRandom } from "../src/eval/seeded-random.js";

type Internals = { fitted: { result: { scores: Record<string, number> } }; bm25: { rescore(s: unknown): void; search(t: string[], k: number, o?: { fuzzy?: boolean }): { id: string }[] } };
const quoted = process.argv.includes("--quoted");

for (const arg of process.argv.slice(2).filter((a) => a !== "--quoted")) {
  const [name, paths] = arg.split("=");
  const [catalog, queriesFile] = paths.split(":");
  const tools = loadCatalogFile(catalog);
  if (quoted) {
    quotedReport(name, tools);
    continue;
  }
  const started = performance.now();
  const index = new ToolIndex(tools);
  const chosen = index.lexicalRanking;
  const fitMs = performance.now() - started;
  const internals = index as unknown as Internals;
  const fit = internals.fitted.result;
  const queries = loadQueries(queriesFile, (id) => index.get(id) !== undefined);
  const row: string[] = [];
  for (const c of LEXICAL_CANDIDATES) {
    internals.bm25.rescore(c.scoring);
    let ndcg = 0;
    let r10 = 0;
    for (const q of queries) {
      const ranked = internals.bm25.search(index.analyzer.analyze(q.query), 10).map((h) => h.id);
      ndcg += ndcgAt(10, ranked, new Set(q.relevant));
      r10 += recallAt(10, ranked, new Set(q.relevant));
    }
    row.push(`${c.name} pseudo ${fit.scores[c.name].toFixed(3)} real ${(ndcg / queries.length).toFixed(4)}/${(r10 / queries.length).toFixed(4)}`);
  }
  console.log(`${name} (${tools.length} tools, fit+build ${fitMs.toFixed(0)} ms): chose ${chosen} | ${row.join(" | ")}`);
}

function quotedReport(name: string, tools: ReturnType<typeof loadCatalogFile>): void {
  const index = new ToolIndex(tools, { bm25: { fit: false } });
  const { bm25 } = index as unknown as Internals;
  const texts = new Map(tools.map((t) => [t.name, toolTexts(t)]));
  const base = pseudoQueries(tools.map((t) => ({ name: t.name, texts: texts.get(t.name)! })), index.analyzer);
  const withWord = (pattern: RegExp) => base.map((q): PseudoQuery => {
    const words = [...new Set(texts.get(q.relevant[0])!.paramDescriptions.match(pattern) ?? [])];
    const random = seededRandom(q.query.length * 7919 + words.length);
    return words.length ? { query: `${q.query} ${words[Math.floor(random() * words.length)]}`, relevant: q.relevant } : q;
  });
  const cells = ([["as they are", base], ["+ a parameter word", withWord(/[a-z][a-z0-9]{2,}/g)], ["+ a parameter literal", withWord(/[A-Za-z0-9][\w.:,-]*\d[\w.:,-]*/g)]] as const).map(([label, queries]) => {
    const [fields, plain] = ["fields", "plain"].map((c) => {
      bm25.rescore(LEXICAL_CANDIDATES.find((x) => x.name === c)!.scoring);
      return queries.map((q) => ndcgAt(10, bm25.search(index.analyzer.analyze(q.query), 10, { fuzzy: false }).map((h) => h.id), new Set(q.relevant)));
    });
    const gains = plain.map((x, i) => x - fields[i]);
    const gain = gains.reduce((a, b) => a + b, 0) / gains.length;
    const error = Math.sqrt(gains.reduce((a, g) => a + (g - gain) ** 2, 0) / gains.length / Math.max(1, gains.length - 1));
    return `${label}: fields ${mean(fields).toFixed(3)} plain ${mean(plain).toFixed(3)} (${error ? (gain / error).toFixed(2) : "0"} SE)`;
  });
  console.log(`${name}: ${cells.join(" | ")}`);
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
