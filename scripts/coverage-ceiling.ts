/**
 * How far the clause-coverage stage (`src/ranking/coverage.ts`) could lift a left-out set, read from the trainer's
 * stored features and left-out models (`scripts/train-ranker.ts --leave-out GROUP --out DIR` first):
 *
 *   node --import tsx scripts/coverage-ceiling.ts --out DIR --group GROUP --set SET
 *
 * Prints: where each relevant tool that misses the top 5 ranks in its best clause's own list (coverage can only lift
 * a tool its clause ranks high); recall@5 / nDCG@10 for coverage weights 0–1 with the clause scores divided by a
 * temperature (a flatter P(c | clause)); the same with the weight of each request scaled by label-free guesses of
 * whether its split says anything (how distinct its clauses' best candidates are from the whole request's); and the
 * ceiling of any per-request choice of weight (an oracle reading the labels: no ranker can reach it).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { compareRanked, type Ranked } from "../src/engines/top-k.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";
import { coverClauses } from "../src/ranking/coverage.js";
import { type LearnedModel, scoreRow } from "../src/ranking/model.js";

const { values: args } = parseArgs({ options: { out: { type: "string", default: ".bench-out/ranker" }, group: { type: "string" }, set: { type: "string" } } });
if (!args.group || !args.set) throw new Error("--group and --set are required");
const model = (JSON.parse(readFileSync(join(args.out!, "leave-out-models.json"), "utf8")) as Record<string, { hybrid?: LearnedModel }>)[args.group]?.hybrid;
if (!model) throw new Error(`${args.out}/leave-out-models.json: no hybrid model for ${args.group}`);
interface Table { ids: string[]; rows: number[][] }
const queries = JSON.parse(readFileSync(join(args.out!, `${args.set}.json`), "utf8")) as { relevant: string[]; hybrid: Table & { clauses?: Table[] } }[];

const score = (t: Table, temperature = 1): Ranked[] => t.ids.map((id, i) => ({ id, score: scoreRow(model, Float64Array.from(t.rows[i])) / temperature })).sort(compareRanked);
const scored = queries.map((q) => ({ relevant: new Set(q.relevant), whole: score(q.hybrid), clauses: q.hybrid.clauses?.map((c) => score(c)) ?? [], raw: q.hybrid }));
const ranked = (q: (typeof scored)[number], weight: number, whole = q.whole, clauses = q.clauses) =>
  (clauses.length ? coverClauses(whole, clauses, weight, 10) : whole).map((hit) => hit.id);
const pct = (x: number) => (100 * x / scored.length).toFixed(1);

const places: Record<string, number> = {};
for (const q of scored) {
  const top5 = new Set(ranked(q, model.coverage ?? 0).slice(0, 5));
  for (const id of q.relevant) {
    if (top5.has(id)) continue;
    const best = q.clauses.length ? Math.min(...q.clauses.map((list) => { const k = list.findIndex((hit) => hit.id === id); return k < 0 ? Infinity : k + 1; })) : NaN;
    const bucket = Number.isNaN(best) ? "request not split" : best === Infinity ? "not a candidate" : best <= 1 ? "1" : best <= 3 ? "2-3" : best <= 5 ? "4-5" : best <= 10 ? "6-10" : "11+";
    places[bucket] = (places[bucket] ?? 0) + 1;
  }
}
console.log(`misses of the top 5 (coverage ${model.coverage ?? 0}), by place in their best clause's own list:`, places);

const weights = [0, 0.2, 0.4, 0.6, 0.8, 1];
for (const temperature of [1, 2, 4, 8]) {
  const cells = weights.map((w) => {
    let r5 = 0, ndcg = 0;
    for (const q of scored) {
      const list = ranked(q, w, score(q.raw, temperature), q.raw.clauses?.map((c) => score(c, temperature)) ?? []);
      r5 += recallAt(5, list, q.relevant);
      ndcg += ndcgAt(10, list, q.relevant);
    }
    return `w ${w}: ${pct(ndcg)} / ${pct(r5)}`;
  });
  console.log(`temperature ${temperature} (nDCG@10 / recall@5): ${cells.join(", ")}`);
}

/** Label-free guesses of whether a request's split says anything (0–1), each scaling the coverage weight. */
const bestOfClauses = (q: (typeof scored)[number]) => q.clauses.map((list) => list[0].id);
const head = (q: (typeof scored)[number], k: number) => new Set(q.whole.slice(0, k).map((hit) => hit.id));
const gates: Record<string, (q: (typeof scored)[number]) => number> = {
  "share of clauses whose best candidate is not in the request's top 3": (q) => bestOfClauses(q).filter((id) => !head(q, 3).has(id)).length / q.clauses.length,
  "share of clauses whose best candidate is not in the request's top 5": (q) => bestOfClauses(q).filter((id) => !head(q, 5).has(id)).length / q.clauses.length,
  "1 − mean share of a clause's top 5 in the request's top 5": (q) =>
    1 - q.clauses.reduce((sum, list) => sum + list.slice(0, 5).filter((hit) => head(q, 5).has(hit.id)).length / 5, 0) / q.clauses.length,
  "1 when every clause has a different best candidate, else 0": (q) => (new Set(bestOfClauses(q)).size === q.clauses.length ? 1 : 0),
};
for (const [gate, share] of Object.entries(gates)) {
  const cells = weights.slice(1).map((base) => {
    let r5 = 0;
    for (const q of scored) r5 += recallAt(5, ranked(q, q.clauses.length ? base * share(q) : 0), q.relevant);
    return `w ${base}: ${pct(r5)}`;
  });
  console.log(`weight × ${gate} (recall@5): ${cells.join(", ")}`);
}
const oracle = scored.reduce((sum, q) => sum + Math.max(...weights.map((w) => recallAt(5, ranked(q, w), q.relevant))), 0);
console.log(`best weight per request, chosen by the labels (a ceiling, recall@5): ${pct(oracle)}`);
