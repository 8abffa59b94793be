/**
 * Coverage of a multi-step request's clauses, after the learned model (issue 36). The model scores each candidate
 * on its own, so for "find news about Tesla and chart its stock" it may give every top place to news tools: each is
 * likely for the whole request, and none is for the other step. A task needs one tool per step, so the top of the
 * list should cover each clause before it repeats one.
 *
 * The stage re-ranks greedily as xQuAD does (Santos et al., 2010): the model's scores become probabilities by a
 * softmax over the candidates (the loss it was trained with makes them so), for the whole request and for each
 * clause ranked as a request of its own; each next place goes to the candidate with the most
 *   (1 − w) · P(c | request) + w · Σ_clauses P(c | clause) · Π_{s placed} (1 − P(s | clause)) / clauses,
 * that is, its likelihood for the request plus what it adds to the clauses not yet covered. A clause that names no
 * tool (a polite "can you help me") spreads its probability thinly and lifts nothing; a clause already covered by a
 * placed tool lifts nothing more. `w` is learned with the model (`LearnedModel.coverage`); 0, or a request of one
 * clause, keeps the model's order.
 */
import { compareRanked, type Ranked } from "../engines/top-k.js";

/** Each candidate's probability under a softmax of its scores (the largest score subtracted first, for range). */
export function softmax(ranked: Ranked[]): Map<string, number> {
  const top = Math.max(...ranked.map((hit) => hit.score));
  const mass = ranked.map((hit) => Math.exp(hit.score - top));
  const sum = mass.reduce((a, b) => a + b, 0);
  return new Map(ranked.map((hit, i) => [hit.id, mass[i] / sum]));
}

/** Places chosen one by one; the candidates below are ordered by what they are worth once those are placed. */
export const COVER_DEPTH = 50;

/**
 * The candidates of `whole` (the model's scores for the whole request) in coverage order, each scored by what it
 * had when placed; `clauses` are the model's scores of each clause's own candidates. The first `depth` places are
 * chosen one by one, the rest ranked by their worth after those. The scores fall down the list.
 */
export function coverClauses(whole: Ranked[], clauses: Ranked[][], weight: number, depth = COVER_DEPTH): Ranked[] {
  const parts = clauses.filter((list) => list.length > 0);
  if (weight <= 0 || parts.length < 2 || whole.length < 2) return [...whole].sort(compareRanked);
  const order = [...whole].sort(compareRanked);
  const request = softmax(order);
  const perClause = parts.map(softmax);
  // P(c | clause j) of candidate i at [i * clauses + j], read once rather than from maps at every step.
  const m = parts.length;
  const chance = new Float64Array(order.length * m);
  order.forEach((hit, i) => perClause.forEach((p, j) => (chance[i * m + j] = p.get(hit.id) ?? 0)));
  // What each clause still lacks: the chance that nothing placed so far serves it.
  const uncovered = new Float64Array(m).fill(1);
  const value = (i: number) => {
    let gain = 0;
    for (let j = 0; j < m; j++) gain += chance[i * m + j] * uncovered[j];
    return (1 - weight) * request.get(order[i].id)! + (weight * gain) / m;
  };
  const left = order.map((_, i) => i);
  const out: Ranked[] = [];
  while (left.length > 0 && out.length < depth) {
    let best = 0;
    let bestValue = value(left[0]);
    for (let k = 1; k < left.length; k++) {
      const v = value(left[k]);
      if (v > bestValue) (best = k), (bestValue = v);
    }
    const [i] = left.splice(best, 1);
    out.push({ id: order[i].id, score: bestValue });
    for (let j = 0; j < m; j++) uncovered[j] *= 1 - chance[i * m + j];
  }
  // Each one left is worth less than when the last place was chosen (coverage only shrinks), so the scores still fall.
  const rest = left.map((i) => ({ id: order[i].id, score: value(i) })).sort(compareRanked);
  out.push(...rest);
  return out;
}
