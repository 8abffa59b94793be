/**
 * How well imported OpenAPI operations are found, end to end, on the ToolAlpaca dev set (../shared/data/toolalpaca):
 * the 21 specs are imported (each under its own prefix, as the gateway would name them), the 214 labelled queries are
 * mapped onto the imported names through operations.json (spec, method, path), and bm25-plain, bm25, semantic and
 * hybrid are evaluated (nDCG@10) on each description recipe next to the converter's catalog (catalog.json).
 *
 * Every recipe is compared with the importer's former texts API by API (mean, worst API, APIs better/worse), and a
 * leave-one-API-out run picks, for each API, the recipe best on the other 20 and scores it on that one: a choice that
 * helps on average because of one API shows up there.
 *
 *   node --import tsx scripts/eval-openapi.ts [--cache FILE] [--recipes A,B] [--per-api] [--out DIR [--write LABEL]]
 *
 * --cache is the embedding cache (SQLite; default .toolsearch/embeddings.sqlite). --recipes keeps the recipes whose
 * label contains one of the words. With --out the recipe labelled LABEL (default "default") is written there with the
 * mapped queries, so the figures can be checked with
 * `toolsearch eval --catalog DIR/catalog.json --queries DIR/queries.jsonl --engine bm25-plain,bm25,semantic,hybrid`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Embedder } from "../src/embeddings/embedder.js";
import { UseLiteProvider } from "../src/embeddings/use-lite.js";
import type { LabelledQuery } from "../src/eval/queries.js";
import { EmbeddingCache } from "../src/embeddings/cache.js";
import { ndcgAt } from "../src/eval/metrics.js";
import { toolEvaluators } from "../src/eval/searchers.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import type { DescriptionRecipe } from "../src/openapi/text.js";
import { DATA, importAll, mapQueries, readOperations, readQueries, type Operation } from "./toolalpaca-openapi.js";

const ENGINES = ["bm25-plain", "bm25", "semantic", "hybrid"] as const;
const SEARCH_ENGINES = ["bm25", "semantic", "hybrid"] as const;

/** The importer's texts before this comparison (last session's default), the reference every recipe is compared to. */
const OLD: DescriptionRecipe = { apiTitle: false, apiDescription: false, responses: false, categoryFallback: "title", categoryWithTitle: false, path: "raw", texts: "both" };

/** The recipes compared: each choice alone against OLD, then the combinations worth a look. */
const RECIPES: Record<string, DescriptionRecipe> = {
  default: OLD,
  "+ API title in description": { ...OLD, apiTitle: true },
  "+ API description (first sentence)": { ...OLD, apiDescription: true },
  "+ 2xx response description": { ...OLD, responses: true },
  "category: title + tag": { ...OLD, categoryWithTitle: true },
  "category: tag only": { ...OLD, categoryFallback: "none" },
  "path as words": { ...OLD, path: "words" },
  "no method/path": { ...OLD, path: "none" },
  "summary only (else description)": { ...OLD, texts: "summary" },
  "description only (else summary)": { ...OLD, texts: "description" },
  "path as words + category: title + tag": { ...OLD, path: "words", categoryWithTitle: true },
};
const ONLY = flag("--recipes")?.split(",");

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** nDCG@10 of every query, per engine (bm25-plain is the plain-BM25 reference run on the same texts). */
async function perQuery(tools: unknown[], queries: LabelledQuery[], embedder: Embedder): Promise<Record<string, number[]>> {
  const index = await ToolIndex.fromTools(tools, { embedder });
  await index.prepareEmbeddings();
  const { searchers } = toolEvaluators(index, [...ENGINES]);
  const out: Record<string, number[]> = {};
  for (const engine of ENGINES) {
    out[engine] = [];
    for (const query of queries) out[engine]!.push(ndcgAt(10, await searchers[engine]!(query.query), new Set(query.relevant)));
  }
  return out;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const pct = (x: number) => (x * 100).toFixed(1);
const signed = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}`;

/** The API a query asks about: the spec of its first label. */
function apiOf(query: LabelledQuery, operations: Record<string, Operation>): string {
  return basename(operations[query.relevant[0]!]?.spec ?? "?", ".json");
}

interface RecipeRun {
  label: string;
  scores: Record<string, number[]>;
}

/** Per-API mean of one engine's scores. */
function byApi(scores: number[], apis: string[]): Map<string, number> {
  const groups = new Map<string, number[]>();
  apis.forEach((api, i) => groups.set(api, [...(groups.get(api) ?? []), scores[i]!]));
  return new Map([...groups].map(([api, xs]) => [api, mean(xs)]));
}

/**
 * Leave one API out: for each API, the recipe with the best mean nDCG (over bm25, semantic and hybrid) on the queries
 * of the other 20 is scored on that API's queries. Returns the held-out mean per engine and how often each recipe won.
 */
function leaveOneApiOut(runs: RecipeRun[], apis: string[]): { scores: Record<string, number>; picks: Record<string, number> } {
  const picks: Record<string, number> = {};
  const held: Record<string, number[]> = Object.fromEntries(ENGINES.map((e) => [e, []]));
  for (const api of new Set(apis)) {
    const train = apis.map((a, i) => (a === api ? -1 : i)).filter((i) => i >= 0);
    const objective = (run: RecipeRun) => mean(SEARCH_ENGINES.map((e) => mean(train.map((i) => run.scores[e]![i]!))));
    const best = runs.reduce((a, b) => (objective(b) > objective(a) + 1e-9 ? b : a));
    picks[best.label] = (picks[best.label] ?? 0) + 1;
    apis.forEach((a, i) => {
      if (a === api) for (const e of ENGINES) held[e]!.push(best.scores[e]![i]!);
    });
  }
  return { scores: Object.fromEntries(ENGINES.map((e) => [e, mean(held[e]!)])), picks };
}

async function main(): Promise<void> {
  const cachePath = flag("--cache");
  const embedder = new Embedder(new UseLiteProvider(), { persistQueries: true, queryCacheSize: 100_000, ...(cachePath ? { cache: new EmbeddingCache({ path: cachePath }) } : {}) });
  const operations = readOperations();
  const queries = readQueries();
  const out: string[] = [];
  const converter = JSON.parse(readFileSync(join(DATA, "catalog.json"), "utf8")) as unknown[];
  const converterScores = await perQuery(converter, queries, embedder);
  const runs: RecipeRun[] = [];
  let mappedQueries: LabelledQuery[] = [];
  for (const [label, recipe] of Object.entries(RECIPES)) {
    if (ONLY && label !== "default" && !ONLY.some((o) => label.includes(o))) continue;
    const { tools, byOperation, skipped } = await importAll(recipe);
    const { mapped, unmapped } = mapQueries(queries, operations, byOperation);
    if (label === "default") {
      out.push(`imported ${tools.length} tools from 21 specs (${skipped} operations skipped); ${mapped.length} of ${queries.length} queries mapped, ${unmapped.length} not (${unmapped.join(", ") || "none"})`);
      mappedQueries = mapped;
    } else if (mapped.length !== mappedQueries.length) throw new Error(`${label}: mapped ${mapped.length} queries, old ${mappedQueries.length}`);
    const dir = flag("--out");
    if (dir && label === (flag("--write") ?? "default")) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "catalog.json"), JSON.stringify(tools, null, 2));
      writeFileSync(join(dir, "queries.jsonl"), mapped.map((q) => JSON.stringify(q)).join("\n") + "\n");
      out.push(`wrote ${label}'s ${join(dir, "catalog.json")} and ${join(dir, "queries.jsonl")}`);
    }
    runs.push({ label, scores: await perQuery(tools, mapped, embedder) });
  }
  const apiById = new Map(queries.map((q) => [q.id, apiOf(q, operations)]));
  const apis = mappedQueries.map((q) => apiById.get(q.id)!);
  const old = runs[0]!;
  out.push(`\nnDCG@10 (${mappedQueries.length} queries, 21 APIs); Δ = recipe − default per API: mean of the APIs, worst API, APIs better/worse\n`);
  out.push(`| catalog | ${ENGINES.join(" | ")} | ${SEARCH_ENGINES.map((e) => `${e} worst-API Δ`).join(" | ")} | better/worse APIs (${SEARCH_ENGINES.join("/")}) |`);
  out.push(`|---|${ENGINES.map(() => "---:").join("|")}|${SEARCH_ENGINES.map(() => "---").join("|")}|---|`);
  out.push(`| converter's catalog.json (${queries.length} queries) | ${ENGINES.map((e) => pct(mean(converterScores[e]!))).join(" | ")} | ${SEARCH_ENGINES.map(() => "").join(" | ")} | |`);
  for (const run of runs) {
    const worst: string[] = [];
    const counts: string[] = [];
    for (const e of SEARCH_ENGINES) {
      const now = byApi(run.scores[e]!, apis);
      const before = byApi(old.scores[e]!, apis);
      const deltas = [...now].map(([api, v]) => [api, v - before.get(api)!] as const).sort((a, b) => a[1] - b[1]);
      worst.push(run === old ? "" : `${signed(deltas[0]![1])} (${deltas[0]![0]})`);
      counts.push(`${deltas.filter((d) => d[1] > 1e-9).length}/${deltas.filter((d) => d[1] < -1e-9).length}`);
    }
    out.push(`| import: ${run.label} | ${ENGINES.map((e) => pct(mean(run.scores[e]!))).join(" | ")} | ${worst.join(" | ")} | ${run === old ? "" : counts.join(", ")} |`);
  }
  // SPEC §13: a tool's description says its method and path, so recipes that drop or rewrite the path are measured
  // for information but cannot be chosen.
  const eligible = runs.filter((run) => (RECIPES[run.label]!.path ?? "raw") === "raw");
  if (eligible.length > 1) {
    const loao = leaveOneApiOut(eligible, apis);
    out.push(`| leave-one-API-out choice (recipes that keep the path) | ${ENGINES.map((e) => pct(loao.scores[e]!)).join(" | ")} | ${SEARCH_ENGINES.map(() => "").join(" | ")} | |`);
    out.push(`\nleave-one-API-out picks: ${Object.entries(loao.picks).map(([l, n]) => `${l} ×${n}`).join(", ")}`);
  }
  const m = (run: RecipeRun, e: string) => mean(run.scores[e]!);
  for (const run of [old, ...runs.filter((r) => r.label === flag("--write"))]) {
    const per = Object.fromEntries(ENGINES.map((e) => [e, byApi(run.scores[e]!, apis)]));
    const apiNames = [...per.bm25!.keys()];
    const bm25Met = apiNames.filter((a) => per.bm25!.get(a)! >= per["bm25-plain"]!.get(a)!).length;
    const hybridMet = apiNames.filter((a) => per.hybrid!.get(a)! >= Math.max(per.bm25!.get(a)!, per.semantic!.get(a)!)).length;
    out.push(`\ntargets (${run.label}): bm25 ${pct(m(run, "bm25"))} ≥ bm25-plain ${pct(m(run, "bm25-plain"))}: ${m(run, "bm25") >= m(run, "bm25-plain") ? "met" : "MISSED"} (per API: ${bm25Met}/${apiNames.length}); ` +
      `hybrid ${pct(m(run, "hybrid"))} ≥ max(bm25, semantic) ${pct(Math.max(m(run, "bm25"), m(run, "semantic")))}: ${m(run, "hybrid") >= Math.max(m(run, "bm25"), m(run, "semantic")) ? "met" : "MISSED"} (per API: ${hybridMet}/${apiNames.length})`);
  }
  process.stdout.write(`${out.join("\n")}\n`);
  if (process.argv.includes("--per-api")) {
    for (const run of runs) {
      process.stdout.write(`\n${run.label}: ${ENGINES.map((e) => `${e} ${[...byApi(run.scores[e]!, apis)].map(([a, v]) => `${a}=${pct(v)}`).join(" ")}`).join("\n  ")}\n`);
    }
  }
  embedder.close();
}

await main();
