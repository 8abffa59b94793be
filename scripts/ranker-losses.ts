/**
 * The losses `scripts/train-ranker.ts` can fit a linear ranker with (--loss), as the gradient of one query's loss with
 * respect to each candidate's score; the trainer turns it into a gradient of the weights.
 */
export const LOSSES = ["every", "any", "apart", "lambda", "recall"] as const;
export type Loss = (typeof LOSSES)[number];

/**
 * d(loss)/d(score) of each of a query's `n` candidates into `out`, for the loss asked for:
 * - `every`: the mean of −log of each relevant candidate's softmax share (each is asked for);
 * - `any`: −log of the relevant candidates' mass together (one high relevant candidate satisfies it);
 * - `apart`: each relevant candidate's −log share against the irrelevant ones only, so that two relevant tools do not
 *   compete for one share (the second tool of a task is not pushed down by the first);
 * - `lambda`: LambdaRank, the logistic loss of each (relevant, irrelevant) pair's score gap weighted by |ΔnDCG@K| of
 *   swapping them at their present places (K = `at`, 0 for no cut-off);
 * - `recall`: the same pairs weighted by |Δrecall@K| of the swap (1/min(R, K) when one of the two is in the top K).
 */
export function scoreGradients(loss: Loss, at: number, labels: Uint8Array, relevant: number, scores: Float64Array, n: number, out: Float64Array): void {
  let top = -Infinity;
  for (let i = 0; i < n; i++) if (scores[i] > top) top = scores[i];
  if (loss === "every" || loss === "any" || loss === "apart") {
    let sum = 0, relSum = 0;
    for (let i = 0; i < n; i++) {
      const e = Math.exp(scores[i] - top);
      sum += e;
      if (labels[i]) relSum += e;
    }
    if (loss !== "apart") {
      // d/ds of −log(Σ_rel e^s / Σ_all e^s) = p − (the softmax within the relevant ones); of the mean over each
      // relevant one, p − 1/R on the relevant ones.
      for (let i = 0; i < n; i++) {
        const e = Math.exp(scores[i] - top);
        out[i] = e / sum - (!labels[i] ? 0 : loss === "every" ? 1 / relevant : e / relSum);
      }
      return;
    }
    // −(1/R) Σ_rel log(e_i / (e_i + N)), N the irrelevant mass: a relevant one's gradient −(1 − its share)/R, an
    // irrelevant one's e_j Σ_rel 1/(e_i + N) / R.
    const negative = sum - relSum;
    let inverse = 0;
    for (let i = 0; i < n; i++) if (labels[i]) inverse += 1 / (Math.exp(scores[i] - top) + negative);
    for (let i = 0; i < n; i++) {
      const e = Math.exp(scores[i] - top);
      out[i] = labels[i] ? -(1 - e / (e + negative)) / relevant : (e * inverse) / relevant;
    }
    return;
  }
  out.fill(0, 0, n);
  const place = new Int32Array(n);
  Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b).forEach((i, rank) => (place[i] = rank));
  // What a relevant tool at 0-based place `rank` adds to the measure.
  const gain = (rank: number) => (loss === "recall" ? (rank < at ? 1 : 0) : at > 0 && rank >= at ? 0 : 1 / Math.log2(rank + 2));
  let ideal = 0;
  for (let k = 0; k < relevant; k++) ideal += gain(k);
  for (let i = 0; i < n; i++) {
    if (!labels[i]) continue;
    for (let j = 0; j < n; j++) {
      if (labels[j]) continue;
      const delta = Math.abs(gain(place[i]) - gain(place[j])) / ideal;
      if (delta === 0) continue;
      const lambda = delta / (1 + Math.exp(scores[i] - scores[j]));
      out[i] -= lambda;
      out[j] += lambda;
    }
  }
}

