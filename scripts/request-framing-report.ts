/**
 * Does the sentence encoder rank better when it reads a request without its framing ("Also, could you tell me …",
 * `scripts/request-framing.ts`)? Measures `semantic` and `hybrid` without the learned ranker (and with the shipped
 * one, in-sample) on each labelled set, with the query sentences and clauses embedded as they are and stripped at
 * each level. Only the texts the encoder reads change: BM25 and the fusion fit are the same in every column.
 *
 *   node --import tsx scripts/request-framing-report.ts [--cache .bench-out/embeddings.sqlite] [--data ../shared/data]
 *     [--sets metatool,…] [--levels connectives,requests] [--strip sentences,clauses]
 *
 * Query texts go through the persistent embedding cache (one batch per set and level), so a second run embeds nothing.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { EmbeddingCache } from "../src/embeddings/cache.js";
import { Embedder } from "../src/embeddings/embedder.js";
import { querySentences } from "../src/embeddings/semantic-store.js";
import { UseLiteProvider } from "../src/embeddings/use-lite.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";
import { loadQueries } from "../src/eval/queries.js";
import { taskClauses } from "../src/indexes/tool-sets.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import type { ToolSearchOptions } from "../src/indexes/tool-index-options.js";
import { type FramingLevel, stripFraming } from "./request-framing.js";

const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    cache: { type: "string", default: ".bench-out/embeddings.sqlite" },
    sets: { type: "string", default: "metatool,metatool-multi,stabletoolbench,toolalpaca,toollens" },
    levels: { type: "string", default: "connectives,requests" },
    /** Which query texts are stripped: the request's sentences (what `semantic` reads), its clauses, or both. */
    strip: { type: "string", default: "sentences,clauses" },
  },
});

/** The sets of docs/relevance.md's ranker table; MetaTool's single-tool file every 10th query, as there. */
const SETS: Record<string, { catalog: string; queries: string; every?: number }> = {
  metatool: { catalog: "metatool/catalog.json", queries: "metatool/queries.jsonl", every: 10 },
  "metatool-multi": { catalog: "metatool/catalog.json", queries: "metatool/queries-multi.jsonl" },
  stabletoolbench: { catalog: "stabletoolbench/catalog.json", queries: "stabletoolbench/queries.jsonl" },
  toolalpaca: { catalog: "toolalpaca/catalog.json", queries: "toolalpaca/queries.jsonl" },
  toollens: { catalog: "toollens/catalog.json", queries: "toollens/queries.jsonl" },
};

const ENGINES: Record<string, ToolSearchOptions> = {
  semantic: { engine: "semantic" },
  "hybrid+noranker": { engine: "hybrid", ranker: false },
  hybrid: { engine: "hybrid" },
};

type Level = "none" | FramingLevel;
const levels: Level[] = ["none", ...(args.levels!.split(",").filter(Boolean) as FramingLevel[])];

const embedder = new Embedder(new UseLiteProvider(), { cache: new EmbeddingCache({ path: args.cache! }), persistQueries: true, queryCacheSize: 100_000 });
// The one place the experiment reaches in: every query text the index embeds (a request's sentences and its clauses)
// passes through `embedQueries`, so stripping there changes exactly what the encoder reads of queries.
let level: Level = "none";
const stripSentences = args.strip!.includes("sentences");
const stripClauses = args.strip!.includes("clauses");
/** The clauses of the set being measured: told apart from sentences, which keep their closing punctuation. */
let clauseTexts = new Set<string>();
const stripped = (text: string) => (level !== "none" && (clauseTexts.has(text) ? stripClauses : stripSentences) ? stripFraming(text, level) : text);
const embedQueries = embedder.embedQueries.bind(embedder);
embedder.embedQueries = (texts) => embedQueries(texts.map(stripped));

const pct = (x: number) => (100 * x).toFixed(1);
const lines: string[] = [`| set | queries | engine | ${levels.join(" | ")} |`, `|---|---|---|${levels.map(() => "---|").join("")}`];
for (const name of args.sets!.split(",")) {
  const spec = SETS[name];
  const index = await ToolIndex.fromFile(join(args.data!, spec.catalog), { embedder });
  await index.prepareEmbeddings();
  let queries = loadQueries(join(args.data!, spec.queries), (id) => index.get(id) !== undefined);
  if (spec.every) queries = queries.filter((_, i) => i % spec.every! === 0);
  const cells: Record<string, string[]> = Object.fromEntries(Object.keys(ENGINES).map((e) => [e, []]));
  for (const at of levels) {
    level = at;
    // Every text of this level in one batch through the cache, so the searches below embed nothing one by one.
    clauseTexts = new Set(queries.flatMap((q) => taskClauses(q.query)));
    const texts = queries.flatMap((q) => [...querySentences(q.query), ...taskClauses(q.query)]);
    const started = Date.now();
    await embedder.embedMany([...new Set(texts.map(stripped))]);
    process.stderr.write(`${name} ${at}: ${texts.length} texts ready in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    for (const [engine, options] of Object.entries(ENGINES)) {
      let ndcg = 0, r5 = 0, r10 = 0;
      for (const q of queries) {
        const ranked = (await index.search(q.query, { ...options, limit: 10 })).map((h) => h.name);
        const relevant = new Set(q.relevant);
        ndcg += ndcgAt(10, ranked, relevant);
        r5 += recallAt(5, ranked, relevant);
        r10 += recallAt(10, ranked, relevant);
      }
      const n = queries.length;
      cells[engine].push(`${pct(ndcg / n)} / ${pct(r5 / n)} / ${pct(r10 / n)}`);
    }
  }
  for (const engine of Object.keys(ENGINES)) lines.push(`| ${name} | ${queries.length} | ${engine} | ${cells[engine].join(" | ")} |`);
  process.stderr.write(lines.slice(-3).join("\n") + "\n");
}
console.log(lines.join("\n"));
await embedder.close();
