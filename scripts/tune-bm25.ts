/**
 * Chooses the tool BM25F parameters so that they generalize: every candidate is scored, on each labelled set, as its
 * nDCG@10 over that of plain BM25 (`PLAIN_TOOL_BM25`: one bag of words, k1 0.9, b 0.4, same analyzer and engine),
 * and the objective is the WORST set's ratio (ties by the mean ratio). Coordinate ascent runs once per held-out set
 * on the other sets (leave-one-set-out: how well a setting chosen without a set does on it) and once on all sets.
 *
 *   node --import tsx scripts/tune-bm25.ts [--data ../shared/data] [--json] [--no-loso] [--evaluate '{"k1":…}']
 *
 * Sets: stabletoolbench (765 queries), metatool (every 10th query: 2,062 of 20,614), toolalpaca (214), and with
 * `--with-scale` the 12k scale set (StableToolBench's queries among 9.7k Smithery distractors: slow, but it reacts to
 * the weights differently from StableToolBench alone, so check the final choice with it).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadCatalogFile } from "../src/catalog/load.js";
import { Bm25fIndex } from "../src/engines/bm25f.js";
import { ndcgAt } from "../src/eval/metrics.js";
import { loadQueries } from "../src/eval/queries.js";
import { TOOL_FIELDS, toolTexts, type ToolTexts } from "../src/indexes/tool-fields.js";
import { DEFAULT_TOOL_BM25, type FieldWeight, PLAIN_TOOL_BM25, type ToolBm25Options } from "../src/indexes/tool-index-options.js";
import { createAnalyzer } from "../src/text/analyzer.js";

const { values } = parseArgs({
  options: { data: { type: "string", default: "../shared/data" }, json: { type: "boolean" }, "with-scale": { type: "boolean" }, evaluate: { type: "string" }, "no-loso": { type: "boolean" } },
});

/** A set reduced to what scoring needs: analyzed field terms per tool and analyzed queries with their labels. */
interface PreparedSet {
  name: string;
  tools: { name: string; fields: string[][] }[];
  queries: { terms: string[]; relevant: Set<string> }[];
  plain: number;
}

type Params = { k1: number; fields: Record<keyof ToolTexts, FieldWeight> };

const analyzer = createAnalyzer();
const SETS: [string, number][] = [["stabletoolbench", 1], ["metatool", 10], ["toolalpaca", 1]];
if (values["with-scale"]) SETS.push(["scale", 1]);

function prepare(name: string, every: number): PreparedSet {
  const catalog = loadCatalogFile(join(values.data!, name, "catalog.json"));
  const names = new Set(catalog.map((t) => t.name));
  const queries = loadQueries(join(values.data!, name, "queries.jsonl"), (l) => names.has(l))
    .filter((_, i) => i % every === 0)
    .map((q) => ({ terms: analyzer.analyze(q.query), relevant: new Set(q.relevant) }));
  const tools = catalog.map((tool) => {
    const texts = toolTexts(tool);
    return { name: tool.name, fields: TOOL_FIELDS.map((f) => analyzer.analyze(texts[f])) };
  });
  const set = { name, tools, queries, plain: 0 };
  set.plain = score(set, PLAIN_TOOL_BM25);
  return set;
}

/** Mean nDCG@10 of one parameter setting on one set, through the same engine `ToolIndex` uses. */
function score(set: PreparedSet, params: ToolBm25Options): number {
  const bag = params.bag;
  const index = new Bm25fIndex({
    k1: params.k1,
    fields: bag ? [{ name: "all", weight: 1, b: bag.b }] : TOOL_FIELDS.map((name) => ({ name, ...params.fields![name] })),
    fuzzy: params.fuzzy,
  });
  for (const tool of set.tools) index.add(tool.name, bag ? [tool.fields.flat()] : tool.fields);
  let sum = 0;
  for (const q of set.queries) sum += ndcgAt(10, index.search(q.terms, 10).map((h) => h.id), q.relevant);
  return sum / set.queries.length;
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
const sets = SETS.map(([name, every]) => prepare(name, every));
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

const heldOut: Record<string, { params: Params; ratio: number; ratioOfCurrent: number }> = {};
for (const held of values["no-loso"] ? [] : sets) {
  log(`leave out ${held.name}:`);
  const params = ascend(sets.filter((s) => s !== held), start, log);
  heldOut[held.name] = { params, ratio: score(held, params) / held.plain, ratioOfCurrent: score(held, start) / held.plain };
  log(`  held-out ${held.name}: ${heldOut[held.name].ratio.toFixed(4)} of plain (current defaults ${heldOut[held.name].ratioOfCurrent.toFixed(4)})`);
}
log("all sets:");
const chosen = ascend(sets, start, log);
const final = ratios(sets, chosen);
log(`chosen, ratio to plain: ${fmt(final)}`);
console.log(JSON.stringify(values.json ? { plain: Object.fromEntries(sets.map((s) => [s.name, s.plain])), heldOut, chosen, ratios: final } : chosen));
