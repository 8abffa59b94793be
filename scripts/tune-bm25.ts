/**
 * Chooses the tool BM25F parameters so that they generalize: every candidate is scored, on each labelled set, as its
 * nDCG@10 over that of plain BM25 (`PLAIN_TOOL_BM25`: one bag of words, k1 0.9, b 0.4, same analyzer and engine),
 * and the objective is the WORST set's ratio (ties by the mean ratio). Coordinate ascent runs once per held-out set
 * on the other sets (leave-one-set-out: how well a setting chosen without a set does on it) and once on all sets.
 *
 *   node --import tsx scripts/tune-bm25.ts [--data ../shared/data] [--json] [--no-loso] [--evaluate '{"k1":…}']
 *     [--with-scale] [--stress .bench-out/stress] [--grid]
 *
 * Sets: stabletoolbench (765 queries), metatool (every 10th query: 2,062 of 20,614), toolalpaca (214), toollens (1,877), and with
 * `--with-scale` the 12k scale set (StableToolBench's queries among 9.7k Smithery distractors: slow, but it reacts to
 * the weights differently from StableToolBench alone, so check the final choice with it). With `--stress DIR` the
 * stress variants of scripts/make-stress-sets.ts join them, and a variant is never scored by a setting fitted on its
 * own source's queries: leave-one-set-out then leaves out a whole FAMILY (a source set with all its variants).
 * `--grid` scores a small grid around the defaults instead of climbing (see `GRID`): each setting is judged by its worst
 * set in nDCG@10 AND recall@10 against plain BM25, and the setting chosen without each family is scored on it.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadCatalogFile } from "../src/catalog/load.js";
import { Bm25fIndex } from "../src/engines/bm25f.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";
import { loadQueries } from "../src/eval/queries.js";
import { TOOL_FIELDS, toolTexts, type ToolTexts } from "../src/indexes/tool-fields.js";
import { DEFAULT_TOOL_BM25, type FieldWeight, PLAIN_TOOL_BM25, type ToolBm25Options } from "../src/indexes/tool-index-options.js";
import { createAnalyzer } from "../src/text/analyzer.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    json: { type: "boolean" },
    "with-scale": { type: "boolean" },
    stress: { type: "string" },
    evaluate: { type: "string" },
    grid: { type: "boolean" },
    "no-loso": { type: "boolean" },
  },
});

/** A set reduced to what scoring needs: analyzed field terms per tool and analyzed queries with their labels. */
interface PreparedSet {
  name: string;
  /** The source set it comes from (itself for an original): left out together in leave-one-out. */
  family: string;
  tools: { name: string; fields: string[][] }[];
  queries: { terms: string[]; relevant: Set<string> }[];
  plain: number;
  plainRecall: number;
}

type Params = { k1: number; fields: Record<keyof ToolTexts, FieldWeight> };

const analyzer = createAnalyzer();
/** A labelled set: its folder, which queries count (every n-th) and its family. */
interface SetSource {
  name: string;
  dir: string;
  every: number;
  family: string;
}
const original = (name: string, every = 1, family = name): SetSource => ({ name, dir: join(values.data!, name), every, family });
const SETS: SetSource[] = [original("stabletoolbench"), original("metatool", 10), original("toolalpaca"), original("toollens")];
if (values["with-scale"]) SETS.push(original("scale", 1, "stabletoolbench"));
if (values.stress) {
  // The variants' MetaTool queries are already every 10th; the family is the source set the name starts with.
  for (const name of readdirSync(values.stress).sort()) {
    const family = SETS.find((s) => name.startsWith(`${s.name}-`))?.family;
    if (family) SETS.push({ name, dir: join(values.stress, name), every: 1, family });
  }
}

function prepare({ name, dir, every, family }: SetSource): PreparedSet {
  const catalog = loadCatalogFile(join(dir, "catalog.json"));
  const names = new Set(catalog.map((t) => t.name));
  const queries = loadQueries(join(dir, "queries.jsonl"), (l) => names.has(l))
    .filter((_, i) => i % every === 0)
    .map((q) => ({ terms: analyzer.analyze(q.query), relevant: new Set(q.relevant) }));
  const tools = catalog.map((tool) => {
    const texts = toolTexts(tool);
    return { name: tool.name, fields: TOOL_FIELDS.map((f) => analyzer.analyze(texts[f])) };
  });
  const set = { name, family, tools, queries, plain: 0, plainRecall: 0 };
  ({ ndcg: set.plain, recall: set.plainRecall } = measure(set, PLAIN_TOOL_BM25));
  return set;
}

/** Mean nDCG@10 and recall@10 of one parameter setting on one set, through the same engine `ToolIndex` uses. */
function measure(set: PreparedSet, params: ToolBm25Options): { ndcg: number; recall: number } {
  const bag = params.bag;
  const index = new Bm25fIndex({
    k1: params.k1,
    fields: bag ? [{ name: "all", weight: 1, b: bag.b }] : TOOL_FIELDS.map((name) => ({ name, ...params.fields![name] })),
    fuzzy: params.fuzzy,
  });
  for (const tool of set.tools) index.add(tool.name, bag ? [tool.fields.flat()] : tool.fields);
  let ndcg = 0;
  let recall = 0;
  for (const q of set.queries) {
    const ids = index.search(q.terms, 10).map((h) => h.id);
    ndcg += ndcgAt(10, ids, q.relevant);
    recall += recallAt(10, ids, q.relevant);
  }
  return { ndcg: ndcg / set.queries.length, recall: recall / set.queries.length };
}

/** Mean nDCG@10 of one parameter setting on one set. */
function score(set: PreparedSet, params: ToolBm25Options): number {
  return measure(set, params).ndcg;
}

/** Ratios to plain BM25, per set. */
function ratios(sets: PreparedSet[], params: Params): number[] {
  return sets.map((set) => score(set, params) / set.plain);
}

/** Worst ratio first, then the mean: the order candidates are compared in. */
function objective(rs: number[]): [number, number] {
  return [Math.min(...rs), rs.reduce((a, b) => a + b, 0) / rs.length];
}

function better(a: [number, number], b: [number, number]): boolean {
  return a[0] > b[0] + 1e-4 || (Math.abs(a[0] - b[0]) <= 1e-4 && a[1] > b[1] + 1e-4);
}

const KNOBS: { label: string; values: number[]; set: (p: Params, v: number) => void }[] = [
  { label: "k1", values: [0.6, 0.9, 1.2, 1.6, 2.0], set: (p, v) => (p.k1 = v) },
  ...TOOL_FIELDS.flatMap((field) => [
    { label: `${field}.weight`, values: [0, 0.1, 0.2, 0.5, 1, 2, 3, 5], set: (p: Params, v: number) => (p.fields[field].weight = v) },
    { label: `${field}.b`, values: [0.2, 0.4, 0.5, 0.75, 0.9], set: (p: Params, v: number) => (p.fields[field].b = v) },
  ]),
];

/** Coordinate ascent from `start` on the worst-set objective over `sets`. */
function ascend(sets: PreparedSet[], start: Params, log: (line: string) => void): Params {
  let best = structuredClone(start);
  let bestScore = objective(ratios(sets, best));
  for (let pass = 0; pass < 2; pass++) {
    let moved = false;
    for (const knob of KNOBS) {
      for (const value of knob.values) {
        const candidate = structuredClone(best);
        knob.set(candidate, value);
        const s = objective(ratios(sets, candidate));
        if (better(s, bestScore)) {
          best = candidate;
          bestScore = s;
          moved = true;
          log(`  pass ${pass} ${knob.label}=${value}: worst ${s[0].toFixed(4)} mean ${s[1].toFixed(4)}`);
        }
      }
    }
    if (!moved) break;
  }
  return best;
}

const log = values.json ? () => {} : (line: string) => console.log(line);
const sets = SETS.map(prepare);
const start: Params = structuredClone(DEFAULT_TOOL_BM25);
const fmt = (rs: number[]) => rs.map((r, i) => `${sets[i].name} ${r.toFixed(3)}`).join(", ");
log(`plain BM25 nDCG@10: ${sets.map((s) => `${s.name} ${s.plain.toFixed(4)}`).join(", ")}`);
log(`current defaults, ratio to plain: ${fmt(ratios(sets, start))}`);
if (values.evaluate) {
  // `--evaluate '{"k1":…}'`: only the ratios of one setting (fields left out keep the defaults).
  const given = JSON.parse(values.evaluate) as Partial<Params>;
  const params: Params = { k1: given.k1 ?? start.k1, fields: { ...start.fields } };
  for (const [field, weight] of Object.entries(given.fields ?? {})) params.fields[field as keyof ToolTexts] = { ...start.fields[field as keyof ToolTexts], ...weight };
  console.log(`given, ratio to plain: ${fmt(ratios(sets, params))}`);
  process.exit(0);
}

if (values.grid) {
  runGrid();
  process.exit(0);
}

const heldOut: Record<string, { params: Params; ratio: number; ratioOfCurrent: number }> = {};
for (const family of values["no-loso"] ? [] : [...new Set(sets.map((s) => s.family))]) {
  log(`leave out ${family}:`);
  const params = ascend(sets.filter((s) => s.family !== family), start, log);
  for (const held of sets.filter((s) => s.family === family)) {
    heldOut[held.name] = { params, ratio: score(held, params) / held.plain, ratioOfCurrent: score(held, start) / held.plain };
    log(`  held-out ${held.name}: ${heldOut[held.name].ratio.toFixed(4)} of plain (current defaults ${heldOut[held.name].ratioOfCurrent.toFixed(4)})`);
  }
}
log("all sets:");
const chosen = ascend(sets, start, log);
const final = ratios(sets, chosen);
log(`chosen, ratio to plain: ${fmt(final)}`);
console.log(JSON.stringify(values.json ? { plain: Object.fromEntries(sets.map((s) => [s.name, s.plain])), heldOut, chosen, ratios: final } : chosen));

/**
 * A small grid around the defaults, over the knobs the stress variants react to: k1, the name's weight (short
 * descriptions among many long generated names: scale-short), the category's weight (the domain of a short
 * description), the parameter descriptions' weight and length normalization (example values that task queries quote:
 * toollens) and the description's length normalization.
 */
function gridSettings(): Params[] {
  const out: Params[] = [];
  for (const k1 of [1.2, 1.6])
    for (const name of [2, 3])
      for (const category of [1, 2])
        for (const paramDescriptions of [0.1, 0.3, 0.5, 0.75, 1])
          for (const paramDescriptionsB of [0.4, 0.75])
            for (const descriptionB of [0.5, 0.75]) {
              const p: Params = structuredClone(start);
              p.k1 = k1;
              p.fields.name.weight = name;
              p.fields.category.weight = category;
              p.fields.paramDescriptions = { weight: paramDescriptions, b: paramDescriptionsB };
              p.fields.description.b = descriptionB;
              out.push(p);
            }
  return out;
}

/** Scores the grid once on every set, then picks by worst set (both metrics) on all sets and without each family. */
function runGrid(): void {
  const grid = gridSettings();
  const label = (p: Params) => `k1 ${p.k1} name ${p.fields.name.weight} category ${p.fields.category.weight} paramDescriptions ${p.fields.paramDescriptions.weight} paramDescriptions.b ${p.fields.paramDescriptions.b} description.b ${p.fields.description.b}`;
  // both[g][s]: the smaller of the nDCG@10 and recall@10 ratios to plain; ndcg[g][s]: the nDCG@10 ratio.
  const both: number[][] = [];
  const ndcg: number[][] = [];
  for (const params of grid) {
    const m = sets.map((set) => measure(set, params));
    ndcg.push(m.map((x, i) => x.ndcg / sets[i].plain));
    both.push(m.map((x, i) => Math.min(x.ndcg / sets[i].plain, x.recall / sets[i].plainRecall)));
    log(`${label(params)}: worst ${Math.min(...both.at(-1)!).toFixed(4)} | ${fmt(both.at(-1)!)}`);
  }
  const pickAmong = (keep: (i: number) => boolean): number => {
    let best = 0;
    const key = (g: number): [number, number] => [Math.min(...both[g].filter((_, i) => keep(i))), mean(ndcg[g].filter((_, i) => keep(i)))];
    for (let g = 1; g < grid.length; g++) if (better(key(g), key(best))) best = g;
    return best;
  };
  const families = [...new Set(sets.map((s) => s.family))];
  const heldOut: Record<string, { chosen: string; ratios: Record<string, number> }> = {};
  for (const family of families) {
    const g = pickAmong((i) => sets[i].family !== family);
    heldOut[family] = { chosen: label(grid[g]), ratios: Object.fromEntries(sets.flatMap((s, i) => (s.family === family ? [[s.name, both[g][i]]] : []))) };
    log(`without ${family}: ${label(grid[g])}; on ${family}: ${Object.entries(heldOut[family].ratios).map(([n, r]) => `${n} ${r.toFixed(3)}`).join(", ")}`);
  }
  const chosen = pickAmong(() => true);
  const current = grid.findIndex((p) => JSON.stringify(p) === JSON.stringify(start));
  if (current >= 0) log(`current defaults: worst ${Math.min(...both[current]).toFixed(4)}`);
  log(`chosen on all sets: ${label(grid[chosen])}: worst ${Math.min(...both[chosen]).toFixed(4)} | ${fmt(both[chosen])}`);
  console.log(JSON.stringify({ heldOut, chosen: grid[chosen], ratios: both[chosen] }));
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
