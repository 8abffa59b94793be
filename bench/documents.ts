/**
 * Knowledge-search benchmark: a 100k-passage corpus generated from the StackFAQ text, searched by toolsearch's
 * DocumentIndex and by MiniSearch (exact mode) side by side in one run, with the same StackFAQ queries.
 *
 *   npm run bench:documents               # table
 *   npm run bench:documents -- --json     # one JSON object
 *
 * The corpus: every StackFAQ thread cut into passages (as DocumentIndex cuts them) and kept under its thread's id,
 * plus generated distractor passages (random StackFAQ sentences under titles mixed from StackFAQ title words) up to
 * `--passages`. Every record is one passage, so both systems index exactly the same units. A search takes the top 10
 * passages, maps them to their thread and drops repeats; nDCG@10, recall@5 and MRR@10 are computed on that list, so
 * quality is comparable, and latency is one search call (ours includes the snippets).
 *
 * Options: --docs FILE, --queries FILE, --passages N (default 100000), --sample N|all (queries, spread over the
 * file; default 200, since MiniSearch takes seconds per query at this size), --seed N, --systems a,b.
 */
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import { parseArgs } from "node:util";
import MiniSearch from "minisearch";
import { table } from "../src/cli/output.js";
import { loadQueries } from "../src/eval/queries.js";
import { evaluateSearcher } from "../src/eval/runner.js";
import { DocumentIndex } from "../src/indexes/document-index.js";
import { ENGLISH_STOPWORDS } from "../src/text/filters/stopwords.js";
import { buildCorpus, type PassageRecord } from "./corpus.js";

const { values } = parseArgs({
  options: {
    docs: { type: "string", default: "../shared/data/stackfaq/docs.jsonl" },
    queries: { type: "string", default: "../shared/data/stackfaq/queries.jsonl" },
    passages: { type: "string", default: "100000" },
    seed: { type: "string", default: "42" },
    sample: { type: "string", default: "200" },
    systems: { type: "string" },
    json: { type: "boolean", default: false },
  },
});

interface BenchSystem {
  name: string;
  build(records: PassageRecord[]): void;
  /** The top 10 passage ids. */
  search(query: string): string[];
}

function toolsearch(): BenchSystem {
  let index: DocumentIndex;
  return {
    name: "toolsearch-bm25",
    build(records) {
      index = new DocumentIndex(records);
      if (index.passageCount !== records.length) throw new Error(`expected one passage per record, got ${index.passageCount}`);
    },
    search: (query) => index.searchSync(query, { limit: 10 }).map((h) => h.id),
  };
}

/**
 * MiniSearch in exact mode (no fuzzy or prefix matching), the title boosted. `stopwords` gives it our English
 * stopword list as well, a fairer match for our analyzer (and much less work on question-shaped queries).
 */
function miniSearchExact(stopwords = false): BenchSystem {
  let index: MiniSearch<PassageRecord>;
  const options = { boost: { title: 3 }, fuzzy: false, prefix: false };
  const processTerm = (term: string) => {
    const lower = term.toLowerCase();
    return stopwords && ENGLISH_STOPWORDS.has(lower) ? null : lower;
  };
  return {
    name: stopwords ? "minisearch-stopwords" : "minisearch",
    build(records) {
      index = new MiniSearch<PassageRecord>({ fields: ["title", "body"], idField: "id", processTerm });
      index.addAll(records);
    },
    search: (query) => index.search(query, options).slice(0, 10).map((r) => String(r.id)),
  };
}

// A collectable heap for exact figures, whether or not node was started with --expose-gc.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

const { records, owner } = buildCorpus(values.docs!, Number(values.passages), Number(values.seed));
const threads = new Set(owner.values());
const allQueries = loadQueries(values.queries!, (label) => threads.has(label));
/** Every k-th query, so that a sample spreads over all threads. */
const step = values.sample === "all" ? 1 : Math.max(1, Math.floor(allQueries.length / Number(values.sample)));
const queries = allQueries.filter((_, i) => i % step === 0).slice(0, values.sample === "all" ? undefined : Number(values.sample));
/** Passage ids → thread ids, first occurrence kept. */
const toThreads = (ids: string[]) => [...new Set(ids.map((id) => owner.get(id) ?? id))];

const ALL = [toolsearch(), miniSearchExact(), miniSearchExact(true)];
const chosen = values.systems ? ALL.filter((s) => values.systems!.split(",").includes(s.name)) : ALL;
type Figures = { build_ms: number; heap_mb: number; p50_ms: number; p99_ms: number; "ndcg@10": number; "recall@5": number; "mrr@10": number };
const systems: Record<string, Figures> = {};
for (const system of chosen) {
  if (!values.json) process.stderr.write(`${system.name}: building over ${records.length} passages…\n`);
  const before = heapMb();
  const started = performance.now();
  system.build(records);
  const build_ms = performance.now() - started;
  const heap_mb = heapMb() - before;
  if (!values.json) process.stderr.write(`${system.name}: ${queries.length} queries…\n`);
  const r = await evaluateSearcher(queries, (q) => toThreads(system.search(q)));
  systems[system.name] = { build_ms, heap_mb, p50_ms: r.p50_ms, p99_ms: r.p99_ms, "ndcg@10": r["ndcg@10"], "recall@5": r["recall@5"], "mrr@10": r["mrr@10"] };
  system.build([]); // release the index before the next system is measured
}

const ours = systems["toolsearch-bm25"];
const peer = systems.minisearch;
const result = {
  docs: values.docs,
  passages: records.length,
  queries: queries.length,
  systems,
  ...(ours && peer ? { p50_ratio_vs_minisearch: ours.p50_ms / peer.p50_ms } : {}),
};
if (values.json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  console.log(`${result.docs}: ${result.passages} passages, ${result.queries} queries`);
  const rows = Object.entries(systems).map(([name, s]) => [
    name, s.build_ms.toFixed(0), s.heap_mb.toFixed(1), s.p50_ms.toFixed(3), s.p99_ms.toFixed(3),
    s["ndcg@10"].toFixed(4), s["recall@5"].toFixed(4), s["mrr@10"].toFixed(4), peer ? (s.p50_ms / peer.p50_ms).toFixed(3) : "-",
  ]);
  console.log(table(["system", "build ms", "heap MB", "p50 ms", "p99 ms", "nDCG@10", "R@5", "MRR@10", "p50 / minisearch"], rows).join("\n"));
}
