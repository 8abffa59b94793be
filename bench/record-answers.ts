/**
 * Records every answer of one source tree, so that a refactor can be proven to change none: search hits (names and
 * scores to full precision), explanations and the learned ranker's evidence (`rankerEvidence`), over a matrix of
 * engines, tool sets, typo tolerance, visibility, a learned usage history, pins and synonyms on four shared sets; one
 * JSON line per answer, in a fixed order. Two trees agree when their files are byte-identical
 * (docs/search-pipeline.md). Tool and query vectors are cached in `--cache` (USE lite; the first run embeds them).
 *
 *   git archive main | tar -x -C /tmp/main && ln -s "$PWD/node_modules" /tmp/main/node_modules
 *   node --import tsx bench/record-answers.ts /tmp/main /tmp/main.jsonl
 *   node --import tsx bench/record-answers.ts . /tmp/mine.jsonl && cmp /tmp/main.jsonl /tmp/mine.jsonl
 */
import { createWriteStream, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";

const FIXED_NOW = Date.parse("2026-12-06T12:00:00Z");
Date.now = () => FIXED_NOW; // the learned signal's confidence decays with time

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { data: { type: "string", default: "../shared/data" }, cache: { type: "string", default: ".bench-out/answers-embeddings.sqlite" } },
});
if (positionals.length !== 2) throw new Error("usage: bench/record-answers.ts TREE OUT.jsonl");
const [treeArg, out] = positionals;
const tree = resolve(treeArg);
const imp = (p: string) => import(join(tree, p));
const { loadCatalogFile } = await imp("src/catalog/load.ts");
const { ToolIndex } = await imp("src/indexes/tool-index.ts");
const { ToolView } = await imp("src/indexes/tool-view.ts");
const { PLAIN_TOOL_BM25 } = await imp("src/indexes/tool-index-options.ts");
const { Embedder } = await imp("src/embeddings/embedder.ts");
const { EmbeddingCache } = await imp("src/embeddings/cache.ts");
const { UseLiteProvider } = await imp("src/embeddings/use-lite.ts");
const { loadQueries } = await imp("src/eval/queries.ts");
const { replayHistory } = await imp("src/usage/replay.ts");
const { patternFromQuery } = await imp("src/eval/regex-pattern.ts");

const DATA = resolve(values.data!);
const SETS: [string, string, number, boolean][] = [
  // name, queries file, max queries, hybrid engines too
  ["toolalpaca", "toolalpaca/queries.jsonl", 214, true],
  ["metatool", "metatool/queries-multi.jsonl", 150, true],
  ["toollens", "toollens/queries.jsonl", 120, true],
  ["stabletoolbench", "stabletoolbench/queries.jsonl", 80, true],
];
const EXPLAIN_QUERIES = 12;
const sink = createWriteStream(out);
const emit = (key: string, value: unknown) => sink.write(JSON.stringify({ key, value }) + "\n");

mkdirSync(dirname(resolve(values.cache!)), { recursive: true });
const embedder = new Embedder(new UseLiteProvider(), { cache: new EmbeddingCache({ path: values.cache! }), persistQueries: true, queryCacheSize: 100_000 });

type Opts = Record<string, unknown>;
const LEX: [string, Opts][] = [
  ["bm25", {}], ["bm25 noranker", { ranker: false }], ["bm25 nofuzzy", { fuzzy: false }], ["bm25 sets", { sets: true }],
  ["bm25 clauses", { sets: { clauses: true } }], ["bm25 groups", { sets: { groups: true } }], ["bm25 groups noranker", { sets: { groups: true }, ranker: false }],
];
const DENSE: [string, Opts][] = [
  ["semantic", { engine: "semantic" }], ["hybrid", { engine: "hybrid" }], ["hybrid noranker", { engine: "hybrid", ranker: false }],
  ["hybrid nosets", { engine: "hybrid", sets: false }], ["hybrid sets", { engine: "hybrid", sets: true }],
  ["hybrid sets noranker", { engine: "hybrid", sets: true, ranker: false }], ["hybrid groups", { engine: "hybrid", sets: { groups: true, clauses: false } }],
];

async function run(set: string, index: any, queries: any[], configs: [string, Opts][], limits: number[], explainIt: boolean, tag: string): Promise<void> {
  for (const [name, opts] of configs) {
    for (const [qi, q] of queries.entries()) {
      for (const limit of limits) {
        const hits = await index.search(q.query, { ...opts, limit });
        emit(`${set}|${tag}|${name}|L${limit}|${q.id}`, hits);
      }
      if (explainIt && qi < EXPLAIN_QUERIES) {
        const top = (await index.search(q.query, { ...opts, limit: 1 }))[0]?.name;
        for (const id of new Set([q.relevant[0], top].filter(Boolean))) {
          const { limit: _l, ...eopts } = opts as any;
          let why: unknown;
          try { why = await index.explain(q.query, id, eopts); } catch (e: any) { why = { error: e.code, message: e.message }; }
          emit(`${set}|${tag}|${name}|explain|${q.id}|${id}`, why);
        }
      }
    }
  }
}

for (const [set, file, max, dense] of SETS) {
  const t0 = Date.now();
  const tools = loadCatalogFile(join(DATA, set, "catalog.json"));
  const index = new ToolIndex(tools, { embedder });
  const queries = loadQueries(join(DATA, file), (id: string) => index.get(id) !== undefined).slice(0, max);
  process.stderr.write(`${set}: ${tools.length} tools, ${queries.length} queries\n`);
  if (dense) await index.prepareEmbeddings();
  const configs = dense ? [...LEX, ...DENSE] : LEX;
  await run(set, index, queries, configs, [10, 50], true, "all");
  // bm25-plain and regex as eval runs them
  const plain = new ToolIndex(index.list(), { bm25: PLAIN_TOOL_BM25 });
  for (const q of queries) emit(`${set}|plain|${q.id}`, plain.searchSync(q.query, { limit: 10 }));
  for (const [qi, q] of queries.entries()) {
    const pattern = patternFromQuery(q.query);
    emit(`${set}|regex|${q.id}`, index.searchSync(pattern, { engine: "regex", limit: 10 }));
    if (qi < EXPLAIN_QUERIES) emit(`${set}|regex|explain|${q.id}`, await index.explain(pattern, q.relevant[0], { engine: "regex" }));
  }
  // visibility: a caller who sees two thirds of the tools
  const names = index.names();
  const seen = new Set(names.filter((_: string, i: number) => i % 3 !== 1));
  const view = new ToolView(index, { accept: (n: string) => seen.has(n) });
  const vq = queries.slice(0, 40);
  await run(set, view, vq, configs.filter(([n]) => ["bm25", "bm25 noranker", "bm25 sets", "semantic", "hybrid", "hybrid noranker", "hybrid sets"].includes(n)), [10], true, "visible");
  // learned usage: the first half of the queries replayed as history, all queries searched
  const history = queries.slice(0, Math.floor(queries.length / 2));
  index.setLearned(replayHistory(history, index.analyzer));
  const lq = queries.slice(0, 60);
  await run(set, index, lq, configs.filter(([n]) => ["bm25", "bm25 noranker", "bm25 sets", "bm25 groups", "hybrid", "hybrid noranker", "hybrid sets", "semantic"].includes(n)), [10], true, "learned");
  await run(set, view, lq.slice(0, 20), [["bm25", {}], ["hybrid", { engine: "hybrid" }]], [10], true, "learned-visible");
  // pins: a rule per query for the first 10 queries, pinning its last relevant tool and one hidden tool
  index.setLearned(undefined);
  const hidden = names.find((n: string) => !seen.has(n));
  index.setRules({ rules: queries.slice(0, 10).map((q: any) => ({ query: q.query.slice(0, 60).replace(/\*/g, "") + "*", pin: [q.relevant[q.relevant.length - 1], hidden] })) });
  await run(set, index, queries.slice(0, 15), configs.filter(([n]) => ["bm25", "bm25 noranker", "hybrid", "hybrid noranker"].includes(n)), [10], true, "pinned");
  await run(set, view, queries.slice(0, 15), [["bm25", {}], ["hybrid", { engine: "hybrid" }]], [10], true, "pinned-visible");
  index.setRules(undefined);
  // synonyms
  index.setSynonyms({ groups: [["get", "fetch", "retrieve"], ["weather", "forecast"]], oneWay: { news: ["headlines"] } });
  await run(set, index, queries.slice(0, 30), configs.filter(([n]) => ["bm25", "hybrid", "hybrid noranker", "bm25 sets"].includes(n)), [10], true, "synonyms");
  // the learned ranker's evidence, as scripts/train-ranker.ts reads it
  const evidence: [string, Opts][] = [["bm25", {}], ["bm25 sets", { sets: true }], ["bm25 noranker", { ranker: false }], ["semantic", { engine: "semantic" }]];
  if (dense) evidence.push(["hybrid", { engine: "hybrid" }], ["hybrid sets", { engine: "hybrid", sets: true }], ["hybrid noranker", { engine: "hybrid", ranker: false }]);
  for (const q of queries.slice(0, 40)) for (const [name, opts] of evidence) emit(`${set}|evidence|${name}|${q.id}`, await index.rankerEvidence(q.query, opts));
  emit(`${set}|lexicalRanking`, index.lexicalRanking);
  if (dense) emit(`${set}|fusionFit`, (await index.fusionFit()).lexicalWeight);
  process.stderr.write(`${set}: done at ${(performance.now() / 1000).toFixed(0)} s\n`);
}
sink.end();
