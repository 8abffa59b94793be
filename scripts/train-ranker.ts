/**
 * Trains the learned ranker (issue 36, `src/ranking/`) from the labelled tool sets in ../shared/data and proves it
 * leave-one-catalog-out.
 *
 *   node --import tsx scripts/train-ranker.ts --leave-out toollens     # train on the others, measure toollens
 *   node --import tsx scripts/train-ranker.ts --all                    # every catalog left out in turn: the table
 *   node --import tsx scripts/train-ranker.ts --write-model --ship hybrid,lexical   # train on all, write model.json
 *
 * Options: --drop FEATURES (train without them, comma-separated), --model-kind linear|trees (default linear; trees: gradient-boosted regression trees, `src/ranking/boost.ts`, with
 * --tree-loss softmax|lambda, --depth, --shrinkage and at most --trees trees, the number chosen by an inner
 * leave-one-catalog-out on the training catalogs only, in steps of --tree-step (10), unless --fixed-trees; --tree-base linear (the
 * default: the trees are boosted from the linear model of the same sets and correct it, and 0 trees, the linear model
 * alone, is one of the numbers chosen from) or none),
 * --depth and --min-hessian may list several values, chosen from by the same inner leave-one-catalog-out,
 * --searches hybrid,lexical (the models trained and measured), --loss every|any|apart|lambda|recall (linear only;
 * default every: each relevant candidate is asked for; any: their mass together; the others in `ranker-losses.ts`,
 * lambda and recall weighing pairs by the change of nDCG@K / recall@K, K = --at, default 10), --clause-loss W (each
 * clause of a split request also asks for any of the task's tools, weighted W; default 0), --l2 (1e-4), --steps (400),
 * --bag N (linear only: the mean of N models, each trained on a bootstrap resample of the queries within each file;
 * default 0, one model), --no-coverage (no clause coverage weight), --data DIR (default ../shared/data), --cache FILE (embedding cache,
 * default .bench-out/embeddings.sqlite),
 * --out DIR (features, default .bench-out/ranker), --refresh (recompute features), --max-queries N (per query file,
 * evenly spread). The first run embeds every catalog and query with USE lite (minutes on a loaded machine) and writes
 * each set's candidates and features under --out; later runs train in seconds from those files.
 *
 * `scale` (12.2k tools) is measured and trained with BM25 only unless --embed-scale is given: embedding its 9.7k MCP
 * tools with USE lite took longer than this machine's share allowed.
 *
 * Sets: every query file counts once in training (MetaTool's two files half each, since they share one catalog), so
 * MetaTool's 20k queries do not outvote ToolAlpaca's 214; MetaTool's single-tool file is sampled to every 10th query
 * (2,062), as in docs/relevance.md. Leave-one-out leaves out a catalog with everything built from it: `scale` is
 * StableToolBench's queries over StableToolBench plus 9.7k MCP tools, so the two go out together.
 *
 * --pairs: also train on multi-tool requests made from the single-step files of MetaTool, StableToolBench and
 * ToolAlpaca (two queries joined, "A. Also, B", both answers relevant; `src/eval/query-pairs.ts`), each at half its
 * source file's weight (the source keeps the other half) and left out with its catalog. Their features are stored as
 * `<name>-pairs.json` beside the others. The coverage weight is chosen on the real files only, unless --pairs-coverage
 * (see chooseCoverage).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { EmbeddingCache } from "../src/embeddings/cache.js";
import { Embedder } from "../src/embeddings/embedder.js";
import { UseLiteProvider } from "../src/embeddings/use-lite.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";
import { loadQueries } from "../src/eval/queries.js";
import { seededRandom } from "../src/eval/seeded-random.js";
import { pairQueries } from "../src/eval/query-pairs.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { PLAIN_TOOL_BM25 } from "../src/indexes/tool-index-options.js";
import { FEATURE_NAMES, type FeatureName, featureRows, LEXICAL_FEATURES } from "../src/ranking/features.js";
import { type LearnedModel, type LinearModel, type RankerModel, scoreRow } from "../src/ranking/model.js";
import { BOOST_DEFAULTS, type BoostOptions, boostTrees } from "../src/ranking/boost.js";
import { coverClauses } from "../src/ranking/coverage.js";
import { type Loss, LOSSES, scoreGradients } from "./ranker-losses.js";
import { compareRanked, type Ranked } from "../src/engines/top-k.js";

const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    cache: { type: "string", default: ".bench-out/embeddings.sqlite" },
    out: { type: "string", default: ".bench-out/ranker" },
    "leave-out": { type: "string" },
    all: { type: "boolean", default: false },
    "write-model": { type: "boolean", default: false },
    ship: { type: "string", default: "hybrid,lexical" },
    model: { type: "string", default: "src/ranking/model.json" },
    refresh: { type: "boolean", default: false },
    "embed-scale": { type: "boolean", default: false },
    "max-queries": { type: "string" },
    only: { type: "string" },
    "no-coverage": { type: "boolean", default: false },
    loss: { type: "string", default: "every" },
    at: { type: "string", default: "10" },
    l2: { type: "string", default: "1e-4" },
    steps: { type: "string", default: "400" },
    "clause-loss": { type: "string", default: "0" },
    drop: { type: "string", default: "" },
    bag: { type: "string", default: "0" },
    "model-kind": { type: "string", default: "linear" },
    searches: { type: "string", default: "hybrid,lexical" },
    "tree-loss": { type: "string", default: BOOST_DEFAULTS.loss },
    trees: { type: "string", default: "100" },
    depth: { type: "string", default: String(BOOST_DEFAULTS.depth) },
    shrinkage: { type: "string", default: String(BOOST_DEFAULTS.shrinkage) },
    "min-hessian": { type: "string", default: String(BOOST_DEFAULTS.minHessian) },
    "fixed-trees": { type: "boolean", default: false },
    "tree-base": { type: "string", default: "linear" },
    "tree-step": { type: "string", default: "10" },
    pairs: { type: "boolean", default: false },
    "pairs-coverage": { type: "boolean", default: false },
  },
});

interface SetSpec {
  name: string;
  /** The catalog it comes from: left out together. */
  group: string;
  catalog: string;
  queries: string;
  /** Keep every n-th query (a huge file). */
  every?: number;
  /** Its share of the training weight. */
  weight: number;
  /** Measured and trained with BM25 only (its catalog takes too long to embed here); only the lexical model uses it. */
  lexicalOnly?: boolean;
  /** Its queries are those of `queries` joined two by two into multi-tool requests (`pairQueries`). */
  pairs?: boolean;
}

const SOURCE_SETS: SetSpec[] = [
  { name: "metatool", group: "metatool", catalog: "metatool/catalog.json", queries: "metatool/queries.jsonl", every: 10, weight: 0.5 },
  { name: "metatool-multi", group: "metatool", catalog: "metatool/catalog.json", queries: "metatool/queries-multi.jsonl", weight: 0.5 },
  { name: "stabletoolbench", group: "stabletoolbench", catalog: "stabletoolbench/catalog.json", queries: "stabletoolbench/queries.jsonl", weight: 1 },
  { name: "scale", group: "stabletoolbench", catalog: "scale/catalog.json", queries: "scale/queries.jsonl", weight: 1, lexicalOnly: !process.argv.includes("--embed-scale") },
  { name: "toolalpaca", group: "toolalpaca", catalog: "toolalpaca/catalog.json", queries: "toolalpaca/queries.jsonl", weight: 1 },
  { name: "toollens", group: "toollens", catalog: "toollens/catalog.json", queries: "toollens/queries.jsonl", weight: 1 },
];

/** The single-step files that `--pairs` joins into multi-tool requests (as `scripts/make-multi-sets.ts` does). */
const PAIRED = ["metatool", "stabletoolbench", "toolalpaca"];

/**
 * With `--pairs`, each file of PAIRED also gives `<name>-pairs`: its (sampled) queries joined two by two, so that every
 * training fold holds multi-tool requests, not only the folds that keep MetaTool's multi-tool file. A pairs file is
 * made from its source file and shares its weight half and half (the catalog's weight is unchanged, as MetaTool's two
 * files share theirs), and it leaves out with its catalog.
 */
const SETS: SetSpec[] = SOURCE_SETS.flatMap((spec) =>
  args.pairs && PAIRED.includes(spec.name)
    ? [{ ...spec, weight: spec.weight / 2 }, { ...spec, name: `${spec.name}-pairs`, weight: spec.weight / 2, pairs: true }]
    : [spec],
);

/**
 * The loss over a query's relevant candidates: `any` (−log of the mass on all of them together: one high relevant
 * candidate satisfies it) or `every` (the mean −log of each one's share: each relevant candidate is asked for).
 */
const LOSS = args.loss as Loss;
if (!LOSSES.includes(LOSS)) throw new Error(`--loss ${args.loss}: use ${LOSSES.join(", ")}`);
const LOSS_WORDS: Record<Loss, string> = {
  every: "listwise softmax (every relevant candidate asked for)",
  any: "listwise softmax (the relevant candidates' mass)",
  apart: "listwise softmax (each relevant candidate against the irrelevant ones)",
  lambda: `LambdaRank (pairwise logistic × |ΔnDCG@${args.at}|) from the listwise softmax model`,
  recall: `pairwise logistic × |Δrecall@${args.at}| from the listwise softmax model`,
};
/** The weight of each clause's own loss beside the whole request's (--clause-loss; 0: none). */
const CLAUSE_LOSS = Number(args["clause-loss"]);
/** Where the pairwise losses' measure stops counting (--at): nDCG@K's discount, recall@K's cut-off. */
const AT = Number(args.at);

const BASELINES = ["bm25-plain", "bm25", "semantic", "hybrid"] as const;

/** One query's candidates as stored: ids, labels and feature rows per model kind, and each baseline's top 10. */
interface StoredQuery<Row = Float64Array> {
  relevant: string[];
  hybrid: { ids: string[]; rows: Row[]; clauses?: { ids: string[]; rows: Row[] }[] };
  lexical: { ids: string[]; rows: Row[] };
  baselines: Record<(typeof BASELINES)[number], string[]>;
}

const round = (x: number) => Math.round(x * 1e5) / 1e5;

async function extract(spec: SetSpec, embedder: Embedder): Promise<StoredQuery[]> {
  const file = join(args.out!, `${spec.name}${spec.lexicalOnly ? "-lexical" : ""}.json`);
  if (existsSync(file) && !args.refresh) {
    const stored = JSON.parse(readFileSync(file, "utf8")) as StoredQuery<number[]>[];
    // Files written before a feature was added have shorter rows: computed again rather than read as zeros.
    const row = stored.find((q) => q.lexical.rows.length > 0)?.lexical.rows[0];
    if (!row || row.length === FEATURE_NAMES.length) return stored.map(typed);
    process.stderr.write(`${file}: features of an older version, computing them again\n`);
  }
  const started = Date.now();
  const index = await ToolIndex.fromFile(join(args.data!, spec.catalog), { embedder, ranker: false });
  const plain = new ToolIndex(index.list(), { bm25: PLAIN_TOOL_BM25 });
  if (!spec.lexicalOnly) await index.prepareEmbeddings();
  let queries = loadQueries(join(args.data!, spec.queries), (id) => index.get(id) !== undefined);
  if (spec.every) queries = queries.filter((_, i) => i % spec.every! === 0);
  if (spec.pairs) queries = pairQueries(queries);
  const out: StoredQuery<number[]>[] = [];
  for (const [i, q] of queries.entries()) {
    const hybrid = spec.lexicalOnly ? { fields: [], candidates: [] } : (await index.rankerEvidence(q.query, { engine: "hybrid" }))!.evidence;
    const lexical = (await index.rankerEvidence(q.query, { engine: "bm25" }))!.evidence;
    const table = (evidence: typeof hybrid) => ({ ids: evidence.candidates.map((c) => c.id), rows: featureRows(evidence).map((r) => [...r].map(round)) });
    const byRank = (key: "fusedRank" | "denseRank") =>
      hybrid.candidates.filter((c) => c[key] !== undefined).sort((a, b) => a[key]! - b[key]!).slice(0, 10).map((c) => c.id);
    out.push({
      relevant: q.relevant,
      hybrid: { ...table(hybrid), ...(hybrid.clauses ? { clauses: hybrid.clauses.map(table) } : {}) },
      lexical: table(lexical),
      baselines: {
        "bm25-plain": plain.searchSync(q.query, { limit: 10 }).map((h) => h.name),
        bm25: lexical.candidates.slice(0, 10).map((c) => c.id),
        semantic: byRank("denseRank"),
        hybrid: byRank("fusedRank"),
      },
    });
    if ((i + 1) % 200 === 0) process.stderr.write(`  ${spec.name}: ${i + 1}/${queries.length}\n`);
  }
  mkdirSync(args.out!, { recursive: true });
  writeFileSync(file, JSON.stringify(out));
  process.stderr.write(`${spec.name}: ${out.length} queries, features in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  return out.map(typed);
}

/** A stored query with its feature rows as the typed rows the models score. */
function typed(q: StoredQuery<number[]>): StoredQuery {
  const table = (t: { ids: string[]; rows: number[][] }) => ({ ids: t.ids, rows: t.rows.map((r) => Float64Array.from(r)) });
  return {
    ...q,
    hybrid: { ...table(q.hybrid), ...(q.hybrid.clauses ? { clauses: q.hybrid.clauses.map(table) } : {}) },
    lexical: table(q.lexical),
  };
}

/** Spreads `max` queries evenly over a file (deterministic). */
function sample<T>(items: T[], max: number | undefined): T[] {
  if (!max || items.length <= max) return items;
  return Array.from({ length: max }, (_, i) => items[Math.floor((i * items.length) / max)]);
}

type Kind = "hybrid" | "lexical";
/** Features left out of training (`--drop a,b`): to measure what a feature adds, from the same stored rows. */
const DROPPED = new Set(args.drop!.split(",").filter(Boolean));
for (const name of DROPPED) if (!FEATURE_NAMES.includes(name as FeatureName)) throw new Error(`--drop ${name}: not a feature`);
const KIND_FEATURES: Record<Kind, readonly FeatureName[]> = {
  hybrid: FEATURE_NAMES.filter((name) => !DROPPED.has(name)),
  lexical: LEXICAL_FEATURES.filter((name) => !DROPPED.has(name)),
};

interface TrainingQuery {
  /** Rows of `d` features, one after the other. */
  x: Float64Array;
  labels: Uint8Array;
  /** How many of the candidates are relevant. */
  relevant: number;
  weight: number;
  /** The query file it comes from. */
  file: string;
  /** A request of several clauses: each clause's candidates against that clause (rows and labels as above). */
  clauses?: { x: Float64Array; labels: Uint8Array; relevant: number }[];
}

type Sets = { spec: SetSpec; queries: StoredQuery[] }[];

/** The sets a model of `kind` is trained and measured on (the hybrid one needs embeddings). */
const setsFor = (kind: Kind, sets: Sets) => sets.filter((s) => kind === "lexical" || !s.spec.lexicalOnly);

/** The training queries of `sets` for a model of `kind`: those with a relevant candidate, weighted per set. */
function trainingData(kind: Kind, sets: Sets): TrainingQuery[] {
  const names = KIND_FEATURES[kind];
  const d = names.length;
  const columns = names.map((n) => FEATURE_NAMES.indexOf(n));
  const data: TrainingQuery[] = [];
  for (const { spec, queries } of sets) {
    if (kind === "hybrid" && spec.lexicalOnly) continue;
    const usable = queries.filter((q) => q[kind].ids.some((id) => q.relevant.includes(id)));
    for (const q of usable) {
      const relevant = new Set(q.relevant);
      const list = (table: { ids: string[]; rows: Float64Array[] }) => {
        const x = new Float64Array(table.rows.length * d);
        table.rows.forEach((r, i) => columns.forEach((c, j) => (x[i * d + j] = r[c])));
        const labels = Uint8Array.from(table.ids, (id) => (relevant.has(id) ? 1 : 0));
        return { x, labels, relevant: labels.reduce((a, b) => a + b, 0) };
      };
      const clauses = "clauses" in q[kind] ? (q[kind] as StoredQuery["hybrid"]).clauses?.map(list).filter((c) => c.relevant > 0) : undefined;
      data.push({ ...list(q[kind]), weight: spec.weight / usable.length, file: spec.name, ...(clauses?.length ? { clauses } : {}) });
    }
  }
  return data;
}

/** The model of `kind` trained on `sets`, of the kind asked for (`--model-kind`). */
function train(kind: Kind, sets: Sets): LearnedModel {
  if (MODEL_KIND === "trees") return trainTrees(kind, sets);
  const data = trainingData(kind, sets);
  return BAG > 0 ? trainBagged(kind, data) : trainLinear(kind, data);
}

/** How many bootstrap resamples a bagged linear model averages (--bag; 0: one model on all the data). */
const BAG = Number(args.bag);

/**
 * A bagged linear model: the mean weights of BAG linear models, each trained on a bootstrap resample of the queries
 * (drawn with replacement within each query file, so every file keeps its share). A mean of linear models is one
 * linear model, so it costs nothing at search time; it only lowers the variance of the weights.
 */
function trainBagged(kind: Kind, data: TrainingQuery[]): LinearModel {
  const random = seededRandom(36);
  const files = new Map<string, number[]>();
  data.forEach((q, i) => (files.get(q.file) ?? files.set(q.file, []).get(q.file)!).push(i));
  const sum = new Float64Array(KIND_FEATURES[kind].length);
  for (let b = 0; b < BAG; b++) {
    const counts = new Float64Array(data.length);
    for (const members of files.values()) for (let k = 0; k < members.length; k++) counts[members[Math.floor(random() * members.length)]]++;
    const resample = data.map((q, i) => ({ ...q, weight: q.weight * counts[i] })).filter((q) => q.weight > 0);
    trainLinear(kind, resample).weights.forEach((w, j) => (sum[j] += w / BAG));
  }
  return { features: [...KIND_FEATURES[kind]], weights: [...sum].map((x) => Math.round(x * 1e4) / 1e4) };
}

/**
 * Fits a linear model with a listwise softmax loss (each query: −log of the probability mass the model puts on its
 * relevant candidates), queries weighted so that every set counts by its `weight` whatever its size, with a small L2
 * penalty. Full-batch Adam; deterministic.
 */
function trainLinear(kind: Kind, data: TrainingQuery[], loss: Loss = LOSS): LinearModel {
  const names = KIND_FEATURES[kind];
  const d = names.length;
  const total = data.reduce((s, q) => s + q.weight, 0);
  // The pairwise losses weigh a pair by where the model now ranks it, which means nothing at w = 0 (every score
  // ties): they start from the listwise model and move it.
  const w = loss === "lambda" || loss === "recall" ? Float64Array.from(trainLinear(kind, data, "every").weights) : new Float64Array(d);
  const m = new Float64Array(d);
  const v = new Float64Array(d);
  const rate = 0.05, beta1 = 0.9, beta2 = 0.999, l2 = Number(args.l2), steps = Number(args.steps);
  const grad = new Float64Array(d);
  let scores = new Float64Array(256);
  let coef = new Float64Array(256);
  /** Adds one list's gradient, times `scale`, to `grad`. */
  const add = (lossOf: Loss, list: { x: Float64Array; labels: Uint8Array; relevant: number }, scale: number) => {
    const n = list.labels.length;
    if (scores.length < n) (scores = new Float64Array(n * 2)), (coef = new Float64Array(n * 2));
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += list.x[i * d + j] * w[j];
      scores[i] = s;
    }
    scoreGradients(lossOf, AT, list.labels, list.relevant, scores, n, coef);
    for (let i = 0; i < n; i++) {
      const c = scale * coef[i];
      if (c === 0) continue;
      for (let j = 0; j < d; j++) grad[j] += c * list.x[i * d + j];
    }
  };
  for (let step = 1; step <= steps; step++) {
    grad.fill(0);
    for (const q of data) {
      const scale = q.weight / total;
      add(loss, q, scale);
      // Each clause is a request for one step: one of the task's tools should serve it (`any`), and the coverage stage
      // reads the model's scores of each clause's candidates.
      if (CLAUSE_LOSS > 0 && q.clauses) for (const clause of q.clauses) add("any", clause, (scale * CLAUSE_LOSS) / q.clauses.length);
    }
    for (let j = 0; j < d; j++) {
      const g = grad[j] + l2 * w[j];
      m[j] = beta1 * m[j] + (1 - beta1) * g;
      v[j] = beta2 * v[j] + (1 - beta2) * g * g;
      w[j] -= (rate * (m[j] / (1 - beta1 ** step))) / (Math.sqrt(v[j] / (1 - beta2 ** step)) + 1e-8);
    }
  }
  return { features: [...names], weights: [...w].map((x) => Math.round(x * 1e4) / 1e4) };
}

const MODEL_KIND = args["model-kind"];
if (MODEL_KIND !== "linear" && MODEL_KIND !== "trees") throw new Error(`--model-kind ${MODEL_KIND}: use linear or trees`);

/** The boosting options asked for (`boost.ts` defaults otherwise); --depth and --min-hessian may list several. */
function boostOptions(): Partial<BoostOptions> {
  const loss = args["tree-loss"];
  if (loss !== "softmax" && loss !== "lambda") throw new Error(`--tree-loss ${loss}: use softmax or lambda`);
  return { loss, trees: Number(args.trees), shrinkage: Number(args.shrinkage) };
}

/** The (depth, leaf hessian) pairs the inner leave-one-catalog-out chooses from. */
function treeShapes(): { depth: number; minHessian: number }[] {
  const list = (name: "depth" | "min-hessian") => args[name]!.split(",").map(Number);
  return list("depth").flatMap((depth) => list("min-hessian").map((minHessian) => ({ depth, minHessian })));
}

/** Trees are counted in steps of this when their number is chosen (--tree-step). */
const TREE_STEP = Number(args["tree-step"]);

/**
 * A tree ensemble of `kind` trained on `sets` (boosted from their linear model unless --tree-base none). Its shape
 * (depth, leaf hessian, from the lists given) and number of trees are chosen on `sets` alone, by leaving each of their
 * catalogs out in turn (an inner leave-one-catalog-out): the ones, in steps of --tree-step up to --trees (0 too when
 * boosted from the linear model), whose models rank the inner left-out sets best (the measure `chooseCoverage` uses,
 * the model alone); then trained on all `sets`. With 0 chosen the linear model is returned: the trees did not help.
 */
function trainTrees(kind: Kind, sets: Sets): LearnedModel {
  const options = boostOptions();
  const shapes = treeShapes();
  const names = KIND_FEATURES[kind];
  const linearBase = args["tree-base"] === "linear";
  if (!linearBase && args["tree-base"] !== "none") throw new Error(`--tree-base ${args["tree-base"]}: use linear or none`);
  const groups = [...new Set(setsFor(kind, sets).map((s) => s.spec.group))];
  if (args["fixed-trees"] || groups.length < 2) {
    const data = trainingData(kind, sets);
    return boostTrees(names, data, { ...options, ...shapes[0], ...(linearBase ? { weights: trainLinear(kind, data).weights } : {}) });
  }
  /** The inner measure of each choice, keyed "depth/hessian/trees" ("0" for the linear model alone). */
  const value = new Map<string, number>();
  for (const group of groups) {
    const inner = trainingData(kind, sets.filter((s) => s.spec.group !== group));
    const held = setsFor(kind, sets).filter((s) => s.spec.group === group);
    const started = Date.now();
    const score = (key: string, model: LearnedModel) => {
      const got = held.reduce((sum, { spec, queries }) => {
        const f = measure(queries, (q) => scoreWith(model, q[kind]).map((hit) => hit.id));
        return sum + (spec.weight * (f.ndcg + f.r5 + f.r10)) / 3;
      }, 0);
      value.set(key, (value.get(key) ?? 0) + got);
    };
    const base = linearBase ? trainLinear(kind, inner) : undefined;
    if (base) score("0", base);
    for (const shape of shapes) {
      boostTrees(names, inner, {
        ...options,
        ...shape,
        ...(base ? { weights: base.weights } : {}),
        onTree: (model) => model.trees.length % TREE_STEP === 0 && score(`${shape.depth}/${shape.minHessian}/${model.trees.length}`, model),
      });
    }
    process.stderr.write(`  ${kind} trees, inner fold without ${group}: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
  let best = { key: "", value: -Infinity };
  for (const [key, v] of value) if (v > best.value + 1e-9) best = { key, value: v };
  process.stderr.write(`  ${kind}: ${best.key} chosen (${[...value].map(([k, v]) => `${k}: ${v.toFixed(4)}`).join(", ")})\n`);
  const data = trainingData(kind, sets);
  const linear = linearBase ? trainLinear(kind, data) : undefined;
  if (best.key === "0") return linear!;
  const [depth, minHessian, trees] = best.key.split("/").map(Number);
  return boostTrees(names, data, { ...options, depth, minHessian, trees, ...(linear ? { weights: linear.weights } : {}) });
}

/** A stored query's candidates scored by a model, best first (ties by id, as search breaks them). */
function scoreWith(model: LearnedModel, table: { ids: string[]; rows: Float64Array[] }): Ranked[] {
  return table.ids.map((id, i) => ({ id, score: scoreRow(model, table.rows[i]) })).sort(compareRanked);
}

/** Ranks a stored query's candidates with a model as search does: coverage of the clauses included (`coverage.ts`). */
function rankWith(model: LearnedModel, table: StoredQuery[Kind]): string[] {
  return cover(model.coverage, scoreTables(model, table));
}

/** A query's candidates scored by a model, for the whole request and for each clause. */
function scoreTables(model: LearnedModel, table: StoredQuery[Kind]): { whole: Ranked[]; clauses?: Ranked[][] } {
  const clauses = "clauses" in table ? table.clauses : undefined;
  return { whole: scoreWith(model, table), clauses: clauses?.map((c) => scoreWith(model, c)) };
}

/** The ids of scored candidates in coverage order; the first 10 places are all the measures read. */
function cover(weight: number | undefined, scored: { whole: Ranked[]; clauses?: Ranked[][] }): string[] {
  const ranked = weight && scored.clauses ? coverClauses(scored.whole, scored.clauses, weight, 10) : scored.whole;
  return ranked.map((hit) => hit.id);
}

/** Coverage weights tried for a hybrid model. */
const COVERAGE_GRID = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/**
 * The coverage weight (`coverage.ts`) that ranks the training sets best: the mean of nDCG@10, recall@5 and recall@10
 * over the sets, each set counting by its training weight. Chosen on the training sets only, as the weights are.
 * Pairs files take no part unless --pairs-coverage: their clauses are split exactly where the two queries were joined,
 * which real requests are not, so they would overstate what coverage gives; their source files then count by the
 * weight they had without pairs.
 */
function chooseCoverage(model: LearnedModel, sets: Sets): number {
  const usable = sets.filter((s) => !s.spec.lexicalOnly && (args["pairs-coverage"] || !s.spec.pairs));
  const paired = (spec: SetSpec) => sets.some((t) => t.spec.pairs && t.spec.name === `${spec.name}-pairs`);
  const weight = (spec: SetSpec) => (args["pairs-coverage"] || !paired(spec) ? spec.weight : spec.weight * 2);
  const total = usable.reduce((sum, s) => sum + weight(s.spec), 0);
  let best = { weight: 0, value: -Infinity };
  const scored = usable.map(({ queries }) => new Map(queries.map((q) => [q, scoreTables(model, q.hybrid)])));
  for (const coverage of COVERAGE_GRID) {
    const value = usable.reduce((sum, { spec, queries }, s) => {
      const f = measure(queries, (q) => cover(coverage, scored[s].get(q)!));
      return sum + (weight(spec) * (f.ndcg + f.r5 + f.r10)) / 3;
    }, 0) / total;
    if (value > best.value + 1e-9) best = { weight: coverage, value };
  }
  return best.weight;
}

/** The hybrid model of `sets` with its coverage weight; the lexical model has no clauses to cover. */
function trainKind(kind: Kind, sets: Sets): LearnedModel {
  const model = train(kind, sets);
  if (kind !== "hybrid" || args["no-coverage"]) return model;
  return { ...model, coverage: chooseCoverage(model, sets) };
}

interface Figures { ndcg: number; r5: number; r10: number }

function measure(queries: StoredQuery[], ranked: (q: StoredQuery) => string[]): Figures {
  const sum = { ndcg: 0, r5: 0, r10: 0 };
  for (const q of queries) {
    const relevant = new Set(q.relevant);
    const list = ranked(q);
    sum.ndcg += ndcgAt(10, list, relevant);
    sum.r5 += recallAt(5, list, relevant);
    sum.r10 += recallAt(10, list, relevant);
  }
  const n = Math.max(1, queries.length);
  return { ndcg: sum.ndcg / n, r5: sum.r5 / n, r10: sum.r10 / n };
}

const pct = (f: Figures) => `${(f.ndcg * 100).toFixed(1)} / ${(f.r5 * 100).toFixed(1)} / ${(f.r10 * 100).toFixed(1)}`;

async function main(): Promise<void> {
  const max = args["max-queries"] ? Number(args["max-queries"]) : undefined;
  const chosen = args.only ? SETS.filter((s) => args.only!.split(",").includes(s.name)) : SETS;
  const embedder = new Embedder(new UseLiteProvider(), { cache: new EmbeddingCache({ path: args.cache! }), persistQueries: true, queryCacheSize: 100_000 });
  const sets: { spec: SetSpec; queries: StoredQuery[] }[] = [];
  for (const spec of chosen) sets.push({ spec, queries: sample(await extract(spec, embedder), max) });
  const groups = [...new Set(chosen.map((s) => s.group))];
  const leaveOut = args.all ? groups : args["leave-out"] ? args["leave-out"].split(",") : [];
  for (const g of leaveOut) if (!groups.includes(g)) throw new Error(`--leave-out ${g}: not one of ${groups.join(", ")}`);
  if (leaveOut.length) {
    const searches = args.searches!.split(",").filter(Boolean) as Kind[];
    for (const kind of searches) if (!(kind in KIND_FEATURES)) throw new Error(`--searches ${kind}: use hybrid, lexical`);
    const size = (m: LearnedModel | undefined) => (m === undefined ? "—" : m.kind === "trees" ? `${m.trees.length} trees` : "linear");
    const lines = [
      "| left out | set | queries | bm25-plain | bm25 | semantic | hybrid (before) | hybrid + model | **hybrid + ranker** (model + coverage) | coverage weight | hybrid model | bm25 + lexical ranker | lexical model |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ];
    const models: Record<string, Partial<Record<Kind, LearnedModel>>> = {};
    for (const group of leaveOut) {
      const training = sets.filter((s) => s.spec.group !== group);
      const model: Partial<Record<Kind, LearnedModel>> = {};
      for (const kind of searches) model[kind] = trainKind(kind, training);
      models[group] = model;
      for (const { spec, queries } of sets.filter((s) => s.spec.group === group)) {
        const cells = BASELINES.map((b) => (spec.lexicalOnly && (b === "semantic" || b === "hybrid") ? "—" : pct(measure(queries, (q) => q.baselines[b]))));
        const h = spec.lexicalOnly ? undefined : model.hybrid;
        const hybrid = h ? pct(measure(queries, (q) => rankWith(h, q.hybrid))) : "—";
        const uncovered = h ? pct(measure(queries, (q) => rankWith({ ...h, coverage: 0 }, q.hybrid))) : "—";
        const l = model.lexical;
        const lexical = l ? pct(measure(queries, (q) => rankWith(l, q.lexical))) : "—";
        const weight = h ? String(h.coverage ?? 0) : "—";
        lines.push(`| ${group} | ${spec.name} | ${queries.length} | ${cells.join(" | ")} | ${uncovered} | **${hybrid}** | ${weight} | ${size(h)} | ${lexical} | ${size(l)} |`);
        process.stderr.write(`${lines[lines.length - 1]}\n`);
      }
    }
    mkdirSync(args.out!, { recursive: true });
    writeFileSync(join(args.out!, "leave-out.md"), lines.join("\n") + "\n");
    writeFileSync(join(args.out!, "leave-out-models.json"), JSON.stringify(models, null, 1));
    process.stdout.write(lines.join("\n") + "\n(nDCG@10 / recall@5 / recall@10 in %)\n");
  }
  if (args["write-model"]) {
    const ship = args.ship!.split(",").filter(Boolean) as Kind[];
    const model: RankerModel = {
      version: 1,
      trained: {
        by: "scripts/train-ranker.ts --write-model",
        loss: `${MODEL_KIND === "trees" ? treesTrained() : `${LOSS_WORDS[LOSS]}, L2 ${args.l2}, ${args.steps} Adam steps${CLAUSE_LOSS > 0 ? `, each clause's own loss (any of the task's tools) weighted ${CLAUSE_LOSS}` : ""}`}, every query file weighted equally (MetaTool's two files half each${args.pairs ? "; pairs of single-step queries as multi-tool requests, each pairs file half its source file's weight" : ""})${ship.includes("hybrid") && !args["no-coverage"] ? "; coverage weight chosen on the same sets" : ""}`,
        sets: sets.map((s) => `${s.spec.name} (${s.queries.length} queries${s.spec.lexicalOnly ? ", lexical model only" : ""})`),
      },
    };
    for (const kind of ship) model[kind] = trainKind(kind, sets);
    writeFileSync(args.model!, modelJson(model));
    process.stdout.write(`wrote ${args.model} (${ship.join(", ")})\n`);
  }
}

/** How a tree model was trained, in words, for `model.json`. */
function treesTrained(): string {
  const o = { ...BOOST_DEFAULTS, ...boostOptions() };
  const loss = o.loss === "softmax" ? "listwise softmax, every relevant candidate asked for" : "LambdaMART (pairwise logistic × |ΔnDCG|)";
  const base = args["tree-base"] === "linear" ? ", boosted from the linear model of the same sets (its weights kept)" : "";
  const shape = args["fixed-trees"]
    ? `depth ${args.depth}, leaf hessian ${args["min-hessian"]}, ${o.trees} trees`
    : `depth (${args.depth}), leaf hessian (${args["min-hessian"]}) and number of trees (steps of ${TREE_STEP} up to ${o.trees}) chosen by an inner leave-one-catalog-out`;
  return `gradient-boosted trees (${loss})${base}, shrinkage ${o.shrinkage}, L2 ${o.l2}, ${o.bins} bins; ${shape}`;
}

/** The model file: indented as before, but each tree on one line (hundreds of small trees would fill screens). */
function modelJson(model: RankerModel): string {
  const trees: string[] = [];
  const shown = JSON.parse(JSON.stringify(model), (key, value) => {
    if (key !== "trees" || !Array.isArray(value)) return value;
    return value.map((tree) => (trees.push(JSON.stringify(tree)), `\u0000tree ${trees.length - 1}`));
  }) as RankerModel;
  let text = JSON.stringify(shown, null, 2);
  trees.forEach((tree, i) => (text = text.replace(JSON.stringify(`\u0000tree ${i}`), () => tree)));
  return text + "\n";
}

await main();
